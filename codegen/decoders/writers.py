"""Render `_generated/writers.py`: one writer per model, each field written as sent while it can."""

from __future__ import annotations

import textwrap
import types
from typing import Any

import attrs

from codegen.decoders.fields import (
    AS_IS,
    WRITE_METHOD,
    Field,
    Model,
    article,
    import_models,
    items_of,
    open_enum,
    snake,
    source_of,
)
from enterprise_async._decoding.hooks import is_list

WRITERS_DOC = '''"""Each model's writer (`to_dict`), writing a decoded one as sent: see `codegen/decoders`.

`writers(conversion)` makes them for one `Conversion` (`_decoding.conversion`), which calls it on
its first `to_dict` and uses them as its unstructure hooks; a value they do not write themselves
goes to that conversion's `plain` or `as_sent`.
"""
'''


def _write(type_: Any) -> str:
    """The expression that writes ``value``, a value of ``type_`` (or None), as JSON-ready data."""
    if type_ in AS_IS:
        return f"value if value is None or value.__class__ is {type_.__name__} else plain(value, every)"
    if type_ in WRITE_METHOD:
        written = f"{WRITE_METHOD[type_]} if value.__class__ is {source_of(type_)} else plain(value)"
        return f"None if value is None else ({written})"
    if (enum := open_enum(type_)) is not None:
        as_is = "value if value is None or value.__class__ is str else plain(value)"
        return f"value.value if value.__class__ is {enum.__name__} else ({as_is})"
    if attrs.has(type_):
        write = f"write_{snake(type_.__name__)}"
        written = f"{write}(value, every) if value.__class__ is {type_.__name__} else plain(value, every)"
        return f"None if value is None else ({written})"
    if is_list(type_) and attrs.has(items_of(type_)):
        return f"{_write_items(type_)} if value.__class__ is list else plain(value, every)"
    return "plain(value, every)"


def _write_items(type_: Any) -> str:
    """The expression that writes ``value``, a list of models of ``type_`` (``list[M]``)."""
    item_type = items_of(type_)
    write = f"write_{snake(item_type.__name__)}"
    each = f"{write}(item, every) if item.__class__ is {item_type.__name__} else plain(item, every)"
    return f"[{each} for item in value]"


def _write_sent(type_: Any, wire: str) -> str:
    """The expression that writes ``value``, decoded from what the server sent for the field
    ``wire`` (its ``differs`` entry), as sent while it can; a nested model writes itself so."""
    if attrs.has(type_):
        return _write(type_)
    return f"as_sent(value, differs[{wire}], {source_of(type_)}, record.text, every)"


def _write_models(field: Field) -> list[str]:
    """The lines that write a list of models: anything else as plain data; an array sent as null
    and still empty as it was sent (XML's empty element: ``[]``); else each model as it writes
    itself, unless the server left the field out and it is still empty."""
    wire = repr(field.wire)
    return [
        f"    value = model.{field.name}",
        "    if value.__class__ is not list:",
        f"        data[{wire}] = plain(value, every)",
        f"    elif not value and {wire} in differs and differs[{wire}] is None:",
        f"        data[{wire}] = [] if record.text else None",
        f"    elif every or value or {wire} not in left_out:",
        f"        data[{wire}] = {_write_items(field.type)}",
    ]


def _write_by_class(field: Field) -> list[str] | None:
    """The lines that write a field holding a date, a datetime, a decimal, an open enum's member or
    a model (and None while the server did not leave the field out), one test for each class;
    None for a field of another type, or whose default is not None."""
    type_, wire = field.type, repr(field.wire)
    if field.listish or field.default is not None:
        return None
    if type_ in WRITE_METHOD:
        cases, other = [(source_of(type_), WRITE_METHOD[type_])], "plain(value)"
    elif (enum := open_enum(type_)) is not None:
        cases, other = [(enum.__name__, "value.value"), ("str", "value")], "plain(value)"
    elif attrs.has(type_):
        cases = [(type_.__name__, f"write_{snake(type_.__name__)}(value, every)")]
        other = "plain(value, every)"
    else:
        return None
    lines = [f"    value = model.{field.name}"]
    if not attrs.has(type_):  # a nested model writes itself as it was sent
        lines += [f"    if {wire} in differs:", f"        data[{wire}] = {_write_sent(type_, wire)}"]
    for cls, written in [*cases, ("", other)]:
        test = f"value.__class__ is {cls}" if cls else "value is not None"
        lines += [f"    {'elif' if len(lines) > 1 else 'if'} {test}:", f"        data[{wire}] = {written}"]
    return [*lines, f"    elif every or {wire} not in left_out:", f"        data[{wire}] = None"]


def _set_since(field: Field) -> str:
    """The test that ``value`` no longer holds what a field left out reads as: it was set since."""
    if field.listish:
        return "value.__class__ is not list or value"
    if field.default is not None:
        return (
            f"value is not {field.default!r}"
            if isinstance(field.default, bool)
            else f"value != {field.default!r}"
        )
    return "value is not None"


def _writer(model: Model) -> list[str]:
    cls = model.cls.__name__
    lines = [
        f"def write_{snake(cls)}(model: {cls}, every: bool = False) -> dict[str, Any]:",
        f'    """{article(cls)} ``{cls}`` as JSON-ready data:'
        ' as the server sent it if decoded, else from its values."""',
        "    record = model._sdk_wire or BUILT",
        "    left_out = record.left_out",
        "    differs = record.differs",
        "    data = plain(model.extra, every) if model.extra else {}",
        "    value: Any",
    ]
    if model.rule:
        lines[2:2] = [
            "    if (problem := model._sdk_rule()) is not None:",
            "        raise ValueError(problem)",
        ]
    for field in model.fields:
        wire = repr(field.wire)
        write, as_sent = _write(field.type), _write_sent(field.type, wire)
        if is_list(field.type) and attrs.has(items_of(field.type)):
            lines += _write_models(field)
        elif is_list(field.type) and items_of(field.type) in AS_IS:
            item_type = items_of(field.type).__name__
            lines += [
                f"    value = model.{field.name}",
                f"    if {wire} in differs:",
                f"        data[{wire}] = {as_sent}",
                f"    elif value.__class__ is not list or not of_class(value, {item_type}):",
                f"        data[{wire}] = plain(value, every)",
                f"    elif every or value or {wire} not in left_out:",
                f"        data[{wire}] = list(value)",
            ]
        elif (by_class := _write_by_class(field)) is not None:
            lines += by_class
        elif as_sent == write:
            # a field the server sent is never among those it left out: ``differs`` needs no test here
            lines += [
                f"    value = model.{field.name}",
                f"    if every or {wire} not in left_out or {_set_since(field)}:",
                f"        data[{wire}] = {write}",
            ]
        else:
            lines += [
                f"    value = model.{field.name}",
                f"    if {wire} in differs:",
                f"        data[{wire}] = {as_sent}",
                f"    elif every or {wire} not in left_out or {_set_since(field)}:",
                f"        data[{wire}] = {write}",
            ]
    if not any("in differs" in line for line in lines):  # every field writes itself
        lines.remove("    differs = record.differs")
    return [*lines, "    return data"]


def render_writers(module: types.ModuleType, models: list[Model]) -> str:
    """The source of ``_generated/writers.py`` (unformatted, without header)."""
    functions = [_writer(model) for model in models]
    table = "".join(f"    {model.cls.__name__}: write_{snake(model.cls.__name__)},\n" for model in models)
    body = "\n".join(
        [
            "plain = conversion.plain",
            "as_sent = conversion.as_sent",
            "",
            *["\n".join(function) + "\n" for function in functions],
            f"return {{\n{table}}}",
        ]
    )
    return "\n".join(
        [
            WRITERS_DOC,
            "from __future__ import annotations",
            "",
            "import datetime",
            "import decimal",
            "from collections.abc import Callable",
            "from typing import Any",
            "",
            "from enterprise_async._decoding.exact import of_class",
            "from enterprise_async._decoding.conversion import Conversion",
            "from enterprise_async._decoding.writers import BUILT, json_datetime",
            import_models(module),
            "",
            "",
            "def writers(conversion: Conversion) -> dict[type[Any], Callable[[Any, bool], dict[str, Any]]]:",
            '    """The writer of each model class, bound to ``conversion``: its unstructure hooks."""',
            textwrap.indent(body, "    "),
            "",
        ]
    )
