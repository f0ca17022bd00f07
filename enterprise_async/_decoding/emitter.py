"""The source of the compiled structuring functions, and their compilation.

A class's general function (``structuring``) and the branches it gains for the layouts its objects
recur in (``layouts``) are written from the same pieces: the expression that reads each field, with
the values a field mostly holds checked inline, and the construction of the model from them. So a
model read either way is the same, note for note.
"""

from __future__ import annotations

import datetime
import decimal
import linecache
import typing
from collections.abc import Callable
from typing import Any, get_args

import attrs

from .exact import exact_decimal, read_utc_datetime
from .fields import WIRE, FieldPlan
from .keys import parser_key
from .readers import COMPILING, Reader, field_hook, inline_class, null_array
from .registry import PASS_THROUGH_CLASSES, hook, is_list, is_mapping, is_open_enum, is_union

__all__ = ["AFTER_DECODE_ERROR", "compiled", "construction", "field_expression", "fills_slots"]


def compiled(source: str, function: str, name: str, namespace: dict[str, Any]) -> Any:
    """The function ``function`` that ``source`` defines, compiled in ``namespace``; the source is
    registered with ``linecache`` under ``name``, so that tracebacks, coverage and profilers show it."""
    filename = f"<enterprise_async {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[function]


AFTER_DECODE_ERROR = [
    "    except DecodeError:  # an item of an array of models that is no object",
    "        notes = []",
    "        extra = empty_extra if known.issuperset(data) else fields_of(data, data.keys() - known)",
    "        model = rebuild(cls, data, plans, readers, notes, extra)",
    "        missing = count - len(data) + len(extra)",
]


def construction(names: list[str], expressions: list[str], fill: bool, extra: str) -> list[str]:
    """The source that builds the model from its fields' expressions: slot by slot when ``fill``.

    The expressions count the documented fields left out (``missing``), so that the fields sent are
    known without a look at every key, and whether anything else was sent, from the object's size.
    """
    pairs = zip(names, expressions, strict=True)
    if fill:
        assigned = [f"        model.{name} = {expression}" for name, expression in pairs]
        return ["        model = new(cls)", *assigned, f"        model.extra = extra = {extra}"]
    arguments = [f"            {name}=({expression})," for name, expression in pairs]
    return ["        model = cls(", *arguments, f"            extra=(extra := {extra}),", "        )"]


def fills_slots(cls: type[Any]) -> bool:
    """Whether a model can be built by setting its fields one by one, as its ``__init__`` would.

    Calling ``__init__`` with some seventy keyword arguments costs ten times setting the same
    seventy attributes: matching each keyword to its parameter is most of it. Setting them is what
    the ``__init__`` attrs writes does when it has nothing else to do: no validator, converter,
    hook or ``__setattr__`` of its own, and no field outside ``__init__`` but the wire record.
    """
    init_code = getattr(cls.__init__, "__code__", None)
    if init_code is None or not init_code.co_filename.startswith("<attrs generated"):
        return False
    if any(hasattr(cls, name) for name in ("__attrs_pre_init__", "__attrs_post_init__")):
        return False
    if typing.cast(Any, cls).__setattr__ is not object.__setattr__:
        return False
    for field in attrs.fields(cls):
        if field.validator is not None or field.converter is not None:
            return False
        if not field.init and field.name != WIRE:
            return False
    return True


def field_expression(
    index: int, plan: FieldPlan, reader: Reader, namespace: dict[str, Any], fetch: str, v: str = "v"
) -> str:
    """The source that reads one field's value, which ``fetch`` gives and binds to ``v``: the
    values a field mostly holds are checked inline (see ``exact``), anything else goes to the
    field's reader. ``absent`` is the value of a field left out, counted in ``missing``."""
    namespace[f"r{index}"] = reader
    namespace[f"w{index}"] = parser_key(plan.wire)
    namespace[f"d{index}"] = plan.left_out
    if plan.listish:
        return _array_expression(index, plan, fetch, namespace, v)
    otherwise = f"None if {v} is None else ({_LEFT_OUT} and None if {v} is absent else r{index}({v}, notes))"
    type_ = plan.type
    inline = inline_class(type_)
    if inline is not None:
        namespace[f"c{index}"] = inline
        as_is = f" or {v}.__class__ is text_object" if inline is dict else ""
        return f"{v} if {fetch}.__class__ is c{index}{as_is} else ({otherwise})"
    if is_union(type_) and is_open_enum(enum := get_args(type_)[0]):
        # A documented value spelled as documented: its member, with nothing to note; spelled
        # another common way (``advanced``, ``self-paced``): its member, noted for ``to_dict``.
        namespace[f"x{index}"] = {member.value: member for member in enum}.get
        namespace[f"y{index}"] = _other_spellings(enum, type_).get
        namespace[f"t{index}"] = type_
        noted = f"notes.append((w{index}, t{index}, {v}, None)) is None"
        found = f"(m := x{index}({v})) is not None or ((m := y{index}({v})) is not None and {noted})"
        return f"m if {fetch}.__class__ is str and ({found}) else ({otherwise})"
    exact = _EXACT.get(type_)
    if exact is not None:
        namespace[f"x{index}"] = exact
        taken = f"(m := x{index}({v})) is not None"
        if type_ is datetime.datetime:  # one read lately: looked up, not parsed again
            taken = f"((m := read_datetime({v})) is not None or {taken})"
        return f"m if {fetch}.__class__ is str and {taken} else ({otherwise})"
    if attrs.has(type_) and type_ not in COMPILING:
        # An object: the nested model's own compiled function, which reads any object.
        namespace[f"i{index}"] = hook(type_)
        namespace[f"m{index}"] = type_
        is_object = f"{fetch}.__class__ is dict or {v}.__class__ is text_object"
        return f"i{index}({v}, m{index}) if {is_object} else ({otherwise})"
    return f"None if {fetch} is None else ({_LEFT_OUT} and None if {v} is absent else r{index}({v}, notes))"


def _other_spellings(enum: Any, type_: Any) -> dict[str, Any]:
    """Spellings of documented values other than the members' own that services commonly send,
    each with the member the field's hook reads it as (it notes the spelling, for ``to_dict``)."""
    decode = field_hook(type_)
    spellings: dict[str, Any] = {}
    for member in enum:
        value = member.value
        for other in (value.lower(), value.upper(), value.capitalize(), value.title()):
            for text in (other, other.replace("_", "-"), other.replace("-", "_")):
                read = decode(text, type_)
                if text != value and isinstance(read, enum) and read.value != text:
                    spellings.setdefault(text, read)
    return spellings


_LEFT_OUT = "(missing := missing + 1)"
"""Counts a field left out; its value, at least 1, is true."""

_EXACT: dict[Any, Callable[[str], Any]] = {
    datetime.datetime: read_utc_datetime,
    decimal.Decimal: exact_decimal,
}
"""Text that decodes, with nothing to note, to a value of these types (see ``exact``)."""


def _array_expression(index: int, plan: FieldPlan, fetch: str, namespace: dict[str, Any], v: str) -> str:
    """The source that reads an array field: ``[]`` when left out or sent empty (the shared one),
    a list of models built right here, a list whose items all have the declared class as sent."""
    type_ = plan.type
    namespace[f"null{index}"] = null_array(plan.wire, type_)
    otherwise = (
        f"(null{index}(notes) if {v} is None else "
        f"({_LEFT_OUT} and empty_array if {v} is absent else r{index}({v}, notes)))"
    )
    item = (get_args(type_) or (Any,))[0] if is_list(type_) else None
    if item is not None and attrs.has(item) and item not in COMPILING:
        # A list of models, built right here; an item that is no object raises DecodeError.
        namespace[f"i{index}"] = hook(item)
        namespace[f"m{index}"] = item
        as_sent = f"[i{index}(x, m{index}) for x in {v}]"
    elif item in (Any, object):
        as_sent = v
    elif (kind := dict if item is not None and is_mapping(item) else item) in PASS_THROUGH_CLASSES:
        namespace[f"k{index}"] = kind
        xml_objects = f" or of_class({v}, text_object)" if kind is dict else ""  # objects read from XML
        as_sent = f"({v} if of_class({v}, k{index}){xml_objects} else r{index}({v}, notes))"
    else:
        as_sent = f"r{index}({v}, notes)"
    return f"({as_sent} if {v} else empty_array) if {fetch}.__class__ is list else {otherwise}"
