"""Render `_generated/readers.py`: one reader per model, a test per value a field mostly holds."""

from __future__ import annotations

import datetime
import decimal
import textwrap
import types
from collections.abc import Iterator
from typing import Any, NamedTuple, get_args

import attrs

from codegen.decoders.fields import (
    AS_IS,
    Field,
    Model,
    TypeLists,
    article,
    constant,
    import_models,
    is_date_or_datetime,
    items_of,
    open_enum,
    snake,
    source_of,
)
from enterprise_async._decoding.hooks import is_list, is_mapping, is_union

READERS_DOC = '''"""Each model's reader, from a JSON object or an XML one (text leaves); see codegen/decoders.

`readers(conversion)` makes them for one `Conversion` (`_decoding.conversion`), which calls it on
its first decode and uses them as its structure hooks. A value a reader does not take as it is
goes to that conversion's reader of its type (`_decoding.readers`), which never raises; `finish`
gives the model its `extra` and its record of what was sent.
"""
'''


class _Names:
    """The module-level constants the readers use: one type reader per declared type, one table of
    documented values per open enum. Named from the type, and defined once."""

    def __init__(self) -> None:
        self.readers: dict[str, str] = {}
        self.enums: dict[str, str] = {}
        self.spelled: dict[str, str] = {}
        self.types: dict[str, str] = {}

    def reader(self, type_: Any) -> str:
        source = source_of(type_)
        if source not in self.readers:
            name = f"_READ_{constant(snake(source.replace('datetime.', '').replace('decimal.', '')))}"
            while name in self.readers.values():
                name += "_"
            self.readers[source] = name
        return self.readers[source]

    def enum(self, enum: Any) -> str:
        return self.enums.setdefault(enum.__name__, f"_{constant(snake(enum.__name__))}_VALUES")

    def spellings(self, enum: Any) -> str:
        return self.spelled.setdefault(enum.__name__, f"_{constant(snake(enum.__name__))}_SPELLINGS")

    def type(self, type_: Any) -> str:
        """A declared type as a constant: what a reader's note names, as the runtime's reader names it."""
        source = source_of(type_)
        return self.types.setdefault(source, f"_{self.reader(type_).removeprefix('_READ_')}_TYPE")

    def lines(self) -> Iterator[str]:
        for enum, name in self.enums.items():
            yield f"{name} = values_of({enum})"
        for enum, name in self.spelled.items():
            yield f"{name} = other_spellings({enum})"
        for source, name in self.types.items():
            yield f"{name} = {source}"
        for source, name in self.readers.items():
            yield f"{name} = reader_for({source})"


class Branch(NamedTuple):
    """One test a reader makes of the value sent for a field (``sent``), and what it does then."""

    test: str
    value: str
    """What the model takes."""
    nested: str | None = None
    """The field's wire name, when ``value`` reads a nested model (a missing field names its place)."""
    note: str | None = None
    """The declared type's constant, when the value is noted for ``to_dict`` (written back as sent)."""


def _fast(field: Field, names: _Names) -> list[Branch]:
    """The tests for the values a field mostly holds (``sent``), and what the model takes then."""
    type_ = field.type
    if type_ in AS_IS:
        return [Branch(f"sent.__class__ is {type_.__name__}", "sent")]
    if is_mapping(type_):
        return [Branch("sent.__class__ is dict or sent.__class__ is TextObject", "sent")]
    if (enum := open_enum(type_)) is not None:
        test = f"sent.__class__ is str and (decoded := {names.enum(enum)}.get(sent)) is not None"
        return [Branch(test, "decoded")]
    if type_ is datetime.datetime or is_date_or_datetime(type_):
        return [Branch("sent.__class__ is str and (decoded := utc_datetime(sent)) is not None", "decoded")]
    if type_ is decimal.Decimal:
        return [Branch("sent.__class__ is str and (decoded := exact_decimal(sent)) is not None", "decoded")]
    if attrs.has(type_):
        read = f"read_{snake(type_.__name__)}(sent)"
        return [Branch("sent.__class__ is dict or sent.__class__ is TextObject", read, repr(field.wire))]
    if (model := _text_or_model(type_)) is not None:
        # a JSON object is the model's, which writes itself as sent; XML's goes to the union's reader
        read = f"read_{snake(model.__name__)}(sent)"
        return [
            Branch("sent.__class__ is str", "sent"),
            Branch("sent.__class__ is dict", read, repr(field.wire)),
        ]
    if not is_list(type_):
        return []
    item = items_of(type_)
    if attrs.has(item):
        read = f"read_{snake(item.__name__)}"
        value = f"read_models(sent, {read}, {field.wire!r}, {item.__name__}, notes)"
        return [Branch("sent.__class__ is list", value)]
    if item in (Any, object):
        return [Branch("sent.__class__ is list", "sent")]
    if item in AS_IS:
        return [Branch(f"sent.__class__ is list and of_class(sent, {item.__name__})", "sent")]
    if is_mapping(item):
        test = "sent.__class__ is list and (of_class(sent, dict) or of_class(sent, TextObject))"
        return [Branch(test, "sent")]
    return []


def _late(field: Field, names: _Names) -> list[Branch]:
    """The tests made after null: another spelling of an open enum's value (the reference's
    ``intermediate`` for ``Intermediate``) gives its member, noted to be written back as sent."""
    if (enum := open_enum(field.type)) is None:
        return []
    test = f"sent.__class__ is str and (decoded := {names.spellings(enum)}.get(sent)) is not None"
    return [Branch(test, "decoded", note=names.type(field.type))]


def _text_or_model(type_: Any) -> Any:
    """``M`` for a field of ``str | M`` (a model ``M``), else None."""
    members = get_args(type_) if is_union(type_) else ()
    classes = [member for member in members if attrs.has(member)]
    if len(members) == 2 and str in members and len(classes) == 1:
        return classes[0]
    return None


def _branch_lines(branches: list[Branch], target: str, wire: str, first: bool) -> list[str]:
    lines: list[str] = []
    for index, branch in enumerate(branches):
        lines.append(f"    {'if' if first and index == 0 else 'elif'} {branch.test}:")
        if branch.nested is not None:
            # a nested model that breaks a promise names its place, as one read by reader_for does
            lines += [
                "        try:",
                f"            {target} = {branch.value}",
                "        except MissingFieldError as error:",
                f"            raise error.within({branch.nested}) from None",
            ]
        else:
            lines.append(f"        {target} = {branch.value}")
        if branch.note is not None:
            lines.append(f"        notes.append(({wire}, {branch.note}, sent, None))")
    return lines


def _read_field(field: Field, names: _Names, cls: str) -> list[str]:
    """The lines that read one field into the model. A required field left out, or sent as null
    where its type admits none, raises ``MissingFieldError`` (``missing``): only on those branches,
    so the values a field mostly holds cost nothing more. An array sent as null is ``[]``, as an
    empty XML element is, required or not."""
    wire, target = repr(field.wire), f"model.{field.name}"
    absent = "[]" if field.listish else repr(field.default)
    left_out = (
        [f"        missing({cls}, {wire})"]
        if field.required
        else [f"        left_out.append({wire})", f"        {target} = {absent}"]
    )
    lines = [f"    sent = get({wire}, ABSENT)"]
    if field.type is Any:  # any value is taken as sent, null included
        return [*lines, "    if sent is ABSENT:", *left_out, "    else:", f"        {target} = sent"]
    fast = _fast(field, names)
    if field.required and not field.nullable and not field.listish:
        null = f"missing({cls}, {wire}, null=True)"
    elif field.listish:
        null = f"{target} = null_array({wire}, {source_of(field.type)}, notes)"
    else:
        null = f"{target} = None"
    if null == f"{target} = None" and field.default is None and len(fast) == 1 and fast[0].value == "sent":
        # null is taken as sent, with the value the field mostly holds: one test, after that one
        test = f"({fast[0].test})" if " and " in fast[0].test else fast[0].test
        fast, null = [Branch(f"{test} or sent is None", "sent")], ""
    if null == f"missing({cls}, {wire}, null=True)":  # left out or null: both raise
        left_out, null = [f"        missing({cls}, {wire}, null=sent is None)"], ""
        absent = "sent is ABSENT or sent is None"
    else:
        absent = "sent is ABSENT"
    lines += _branch_lines(fast, target, wire, first=True)
    lines += [f"    elif {absent}:" if fast else f"    if {absent}:"]
    lines += left_out
    if field.default is not None:
        null += "  # type: ignore[assignment]  # null where the spec gives a default: kept as None"
    return [
        *lines,
        *(["    elif sent is None:", f"        {null}"] if null else []),
        *_branch_lines(_late(field, names), target, wire, first=False),
        "    else:",
        f"        {target} = {names.reader(field.type)}(sent, {wire}, notes)",
    ]


def _type_check(model: Model, types: tuple[str, tuple[str, ...]] | None) -> tuple[list[str], list[str]]:
    """The lines that report a type the spec does not list, for a model whose schema lists them,
    and the constant they read (the listed types). Only text names a type: a value of another
    kind (an array, an object) was already noted by its field's reader, and is not hashable."""
    if types is None:
        return [], []
    wire, values = types
    field = next((field for field in model.fields if field.wire == wire), None)
    if field is None:
        raise ValueError(f"{model.cls.__name__}: its discriminator {wire!r} is none of its fields")
    cls, target = model.cls.__name__, f"model.{field.name}"
    listed = ", ".join(repr(value) for value in values)
    return [
        f"    if isinstance({target}, str) and {target} not in _{constant(snake(cls))}_TYPES:",
        f"        report_unknown_type(model, {wire!r}, {target}, {cls!r})",
    ], [f"_{constant(snake(cls))}_TYPES = frozenset({{{listed}}})", ""]


def _reader(model: Model, names: _Names, types: tuple[str, tuple[str, ...]] | None = None) -> list[str]:
    cls = model.cls.__name__
    known = ", ".join(repr(field.wire) for field in model.fields)
    check, listed = _type_check(model, types)
    lines = [
        *listed,
        f"_{constant(snake(cls))}_FIELDS = frozenset({{{known}}})",
        "",
        "",
        f"def read_{snake(cls)}(data: Any, _cls: Any = None) -> Any:",
        f'    """{article(cls)} ``{cls}`` read from an object'
        ' (None for null; ``DecodeError`` for anything else)."""',
        "    if data.__class__ is not dict and data.__class__ is not TextObject:",
        f"        return not_an_object(data, {cls})",
        "    get = data.get",
        "    notes: list[Note] = []",
        "    left_out: list[str] = []",
        "    sent: Any",
        f"    model = {cls}.__new__({cls})",
    ]
    body = [line for field in model.fields for line in _read_field(field, names, cls)]
    if any("(decoded := " in line for line in body):
        lines.insert(-1, "    decoded: Any")
    lines += body
    if model.rule:
        fields = ", ".join(repr(wire) for wire in model.rule)
        lines += [
            "    if (problem := model._sdk_rule()) is not None:",
            f"        broken_rule({cls}, ({fields}{',' if len(model.rule) == 1 else ''}), problem)",
        ]
    lines += [
        # a JSON object with nothing noted nor unknown: its record is shared (see ``finish``)
        f"    if notes or len(data) + len(left_out) != {len(model.fields)} or data.__class__ is not dict:",
        f"        finish(model, data, notes, left_out, _{constant(snake(cls))}_FIELDS)",
        "    else:",
        "        model.extra = {}",
        "        model._sdk_wire = wire_record(tuple(left_out), False) if left_out else ALL_SENT_JSON",
        *check,
        "    return model",
    ]
    return lines


def render_readers(module: types.ModuleType, models: list[Model], type_lists: TypeLists | None = None) -> str:
    """The source of ``_generated/readers.py`` (unformatted, without header)."""
    names = _Names()
    listed = type_lists or {}
    functions = [_reader(model, names, listed.get(model.cls.__name__)) for model in models]
    table = "".join(f"    {model.cls.__name__}: read_{snake(model.cls.__name__)},\n" for model in models)
    body = "\n".join(
        [
            "reader_for = conversion.reader_for",
            "read_models = conversion.read_models",
            *names.lines(),
            "",
            *["\n".join(function) + "\n" for function in functions],
            f"return {{\n{table}}}",
        ]
    )
    return "\n".join(
        [
            READERS_DOC,
            "from __future__ import annotations",
            "",
            "import datetime",
            "import decimal",
            "from collections.abc import Callable",
            "from typing import Any",
            "",
            "from enterprise_async._decoding.exact import exact_decimal, of_class, utc_datetime",
            "from enterprise_async._decoding.failure import MissingFieldError, broken_rule, missing",
            "from enterprise_async._decoding.fields import ABSENT",
            "from enterprise_async._decoding.conversion import Conversion",
            "from enterprise_async._decoding.readers import (",
            "    finish, not_an_object, null_array, other_spellings, values_of,",
            ")",
            "from enterprise_async._decoding.record import EVERY_FIELD_SENT, wire_record",
            "from enterprise_async._decoding.tolerance import Note, report_unknown_type",
            import_models(module),
            "from enterprise_async._utils.xml import TextObject",
            "",
            "ALL_SENT_JSON = EVERY_FIELD_SENT[False]",
            "",
            "",
            "def readers(conversion: Conversion) -> dict[type[Any], Callable[[Any, Any], Any]]:",
            '    """The reader of each model class, bound to ``conversion``: its structure hooks."""',
            textwrap.indent(body, "    "),
            "",
        ]
    )
