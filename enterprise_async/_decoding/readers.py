"""What the generated readers (``_generated/readers.py``) call: the tolerant path, and a model's end.

A generated reader takes the values a field mostly holds as they are (a ``str`` for a string
field, a UTC datetime as ``to_dict`` writes it back, a documented enum value, an object for a
nested model) and hands anything else to the field's type reader (``reader_for``), made by the
``Conversion`` the readers were made for. That reader decodes the value with that conversion's
hook of its type, keeps it as sent when the type does not
allow it (``tolerance.keep``), and notes a value whose written form is not what was sent, so that
``to_dict`` writes it back as sent. A reader never raises for an odd value: a model with one costs
hardly more than a clean one. A required field left out (or null where its type admits none) is
the one thing a model's reader raises for (``MissingFieldError``), whatever the depth. ``finish``
then gives the model its ``extra`` and its ``WireRecord``.

A model class the generator did not see (one a user or a test declares) is read field by field
with the same readers (``model_reader``).
"""

from __future__ import annotations

import datetime
import functools
import typing
from collections.abc import Callable
from types import NoneType
from typing import TYPE_CHECKING, Any, get_args

import attrs

from .._utils.xml import TextObject
from .failure import DecodeError, describe, missing
from .fields import ABSENT, WIRE, field_plans, known_fields
from .hooks import PASS_THROUGH_CLASSES, is_list, is_mapping, is_open_enum, is_union
from .record import EVERY_FIELD_SENT, WireRecord, wire_record
from .scalars import SCALAR_HOOKS, Hook
from .tolerance import Note, keep, noting_outside_enum, report_problems, report_unknown
from .writers import text_natural, written_as_sent

if TYPE_CHECKING:
    from .tables import ConversionTables

__all__ = [
    "ABSENT",
    "Reader",
    "finish",
    "inline_class",
    "model_reader",
    "not_an_object",
    "null_array",
    "other_spellings",
    "read_models",
    "reader_for",
    "values_of",
]

Reader = Callable[[Any, str, list[Note]], Any]
"""Reads a field's value (never None), sent under a wire name, for its model; notes what the model
must keep; never raises."""


def reader_for(conversion: ConversionTables, type_: Any) -> Reader:
    """The reader of the values of a field of ``type_`` that its model's reader does not take as they are."""
    if _writes_itself(type_):
        return _nested_reader(conversion, type_)
    if inline_class(type_) is not None:
        return _converting_reader(conversion, type_, _never_same)
    same: Callable[[Any, Any], bool] = functools.partial(
        _SAME_AS_SENT.get(type_, written_as_sent), conversion
    )
    if is_union(type_) and is_open_enum(get_args(type_)[0]):
        same = _same_member
    return typing.cast(Reader, noting_outside_enum(_converting_reader(conversion, type_, same), type_))


def values_of(enum: Any) -> dict[str, Any]:
    """The members of an open enum by their documented value: what a reader takes with nothing to note."""
    return {member.value: member for member in enum}


def other_spellings(enum: Any) -> dict[str, Any]:
    """The members of an open enum by the other usual spellings of their value (lower, upper and
    title case; ``_``, ``-`` or a blank between words): those the enum itself reads as the member
    (``LevelType("intermediate")``), which a reader takes with a note to write back the spelling."""
    spellings: dict[str, Any] = {}
    for member in enum:
        value = member.value
        for cased in (value, value.lower(), value.upper(), value.title(), value.capitalize()):
            for joiner in ("_", "-", " "):
                spelling = cased.replace("_", joiner).replace("-", joiner).replace(" ", joiner)
                if spelling != value and spelling not in spellings and _member_of(enum, spelling) is member:
                    spellings[spelling] = member
    return spellings


def _member_of(enum: Any, spelling: str) -> Any:
    try:
        return enum(spelling)
    except ValueError:
        return None


def not_an_object(data: Any, cls: type[Any]) -> Any:
    """What a model's reader gives for a value that is no object: None for null, else ``DecodeError``."""
    if data is None:
        return None
    raise DecodeError(f"expected an object ({cls.__name__}), got {describe(data)}")


def null_array(wire: str, type_: Any, notes: list[Note]) -> list[Any]:
    """An array sent as null: ``[]`` on the model, and a note so that ``to_dict`` writes null back."""
    notes.append((wire, type_, None, None))
    return []


def read_models(
    conversion: ConversionTables,
    items: list[Any],
    read: Callable[[Any], Any],
    wire: str,
    item_type: type[Any],
    notes: list[Note],
) -> list[Any]:
    """An array of models, each read by ``read``; when one item is no object, the array is read
    item by item with the tolerant path, so the others are still decoded."""
    try:
        return [read(item) for item in items]
    except DecodeError as error:  # a required field missing is raised again by keep, with its place
        return typing.cast(list[Any], keep(conversion, items, list[item_type], wire, error, notes))  # type: ignore[valid-type]


def finish(model: Any, data: Any, notes: list[Note], left: list[str], known: frozenset[str]) -> None:
    """Give a model read from ``data`` its ``extra`` (the fields the spec does not describe) and its
    ``WireRecord``; report what its readers noted. ``left``: the documented fields left out."""
    if len(data) + len(left) == len(known):
        model.extra = {}
    else:
        model.extra = {key: data[key] for key in data.keys() - known}
        report_unknown(model)
    text = data.__class__ is TextObject
    if notes:
        record = _record(model, notes, tuple(left), text)
    else:  # what most models are: nothing noted, the shared record of the fields left out
        record = wire_record(tuple(left), text) if left else EVERY_FIELD_SENT[text]
    setattr(model, WIRE, record)


def _record(model: Any, notes: list[Note], left: tuple[str, ...], text: bool) -> WireRecord:
    """The record of a model from what its readers noted (some); its problems are reported."""
    problems = [note for note in notes if note[3] is not None]
    if problems:
        report_problems(model, problems)
    differs: dict[str, Any] = {}
    for where, type_, value, error in notes:
        if "[" in where:
            continue  # an item of an array: the array's own note keeps it
        if text and (value is None or (error is None and value.__class__ is str and not text_natural(type_))):
            continue  # XML text of a number, or an empty element: the model's value is the JSON one
        differs[where] = value
    return wire_record(left, text, differs)


def model_reader(conversion: ConversionTables, cls: type[Any]) -> Hook:
    """The reader of a model class the generator did not write one for: field by field, with the
    same readers and the same record as a generated one."""
    plans = field_plans(cls)
    known = known_fields(cls)
    readers: list[Reader] = []

    def read_model(data: Any, _: Any = None) -> Any:
        if data.__class__ is not dict and data.__class__ is not TextObject:
            return not_an_object(data, cls)
        if not readers:  # resolved on first use: a model may refer to itself
            readers.extend(reader_for(conversion, plan.type) for plan in plans)
        notes: list[Note] = []
        left: list[str] = []
        values: dict[str, Any] = {}
        for plan, read in zip(plans, readers, strict=True):
            value = data.get(plan.wire, ABSENT)
            if plan.required and (value is ABSENT or (value is None and not (plan.nullable or plan.listish))):
                missing(cls, plan.wire, null=value is None)
            if value is ABSENT:
                left.append(plan.wire)
                value = [] if plan.listish else plan.left_out
            elif value is None:
                value = null_array(plan.wire, plan.type, notes) if plan.listish else None
            else:
                value = read(value, plan.wire, notes)
            values[plan.name] = value
        model = cls(**values)
        finish(model, data, notes, left, known)
        return model

    return read_model


def _writes_itself(type_: Any) -> bool:
    """Whether values of ``type_`` are models (one of a union of models, a list of either), which
    keep their own notes: writing them back to compare with what was sent would only repeat that."""
    if attrs.has(type_):
        return True
    if is_list(type_):
        return _writes_itself((get_args(type_) or (Any,))[0])
    if is_union(type_):
        members = [member for member in get_args(type_) if member is not type(None)]
        return bool(members) and all(attrs.has(member) for member in members)
    return False


def _type_hook(conversion: ConversionTables, type_: Any) -> Callable[[], Hook]:
    """The conversion's hook of ``type_``, looked up on first use (the hook of a model may be its own
    reader's caller)."""
    resolved: list[Hook] = [SCALAR_HOOKS[type_]] if type_ in SCALAR_HOOKS else []

    def decoder() -> Hook:
        if not resolved:
            resolved.append(conversion.hook(type_))
        return resolved[0]

    return decoder


def _nested_reader(conversion: ConversionTables, type_: Any) -> Reader:
    """Models write themselves: nothing to note but a value kept as sent."""
    decoder = _type_hook(conversion, type_)

    def read_nested(value: Any, wire: str, notes: list[Note]) -> Any:
        try:
            return decoder()(value, type_)
        except DecodeError as error:
            return keep(conversion, value, type_, wire, error, notes)

    return read_nested


def _converting_reader(conversion: ConversionTables, type_: Any, same: Callable[[Any, Any], bool]) -> Reader:
    """Notes a value decoded that is not written back as sent (``"12"`` read as 12, ``+00:00`` datetimes)."""
    decoder = _type_hook(conversion, type_)

    def read_converted(value: Any, wire: str, notes: list[Note]) -> Any:
        try:
            decoded = decoder()(value, type_)
        except DecodeError as error:
            return keep(conversion, value, type_, wire, error, notes)
        if decoded is not value and not same(decoded, value):
            notes.append((wire, type_, value, None))
        return decoded

    return read_converted


def _never_same(decoded: Any, sent: Any) -> bool:
    """A string, number or boolean of another class than declared: written back as sent."""
    return False


def _same_datetime(conversion: ConversionTables, moment: datetime.datetime, sent: Any) -> bool:
    """Whether ``json_datetime(moment)`` is ``sent``, without writing it: the text is in that canonical
    form (``T``, seconds, microseconds only when not zero, ``Z`` for UTC, else ``+HH:MM`` or no offset
    for a naive datetime) or not."""
    if sent.__class__ is not str or moment.__class__ is not datetime.datetime or not _extended_form(sent):
        return written_as_sent(conversion, moment, sent)
    size = len(sent)
    if sent[-1] == "Z":
        return (size == 20 and moment.microsecond == 0) or (
            size == 27 and moment.microsecond != 0 and sent[19] == "."
        )
    if sent.endswith("+00:00"):
        return False
    if moment.tzinfo is None:
        return (size == 19 and moment.microsecond == 0) or (size == 26 and moment.microsecond != 0)
    if size == 25:
        return moment.microsecond == 0 and sent[19] in "+-"
    if size == 32:
        return moment.microsecond != 0 and sent[19] == "." and sent[26] in "+-"
    return False


def _extended_form(text: str) -> bool:
    """Whether a datetime's text has the separators of ``YYYY-MM-DDTHH:MM:SS`` in their places (not a
    week date such as ``2026-W02-1``, nor a basic-format time such as ``100000.0``, whose written
    form is another text even when their length matches)."""
    return text[10:11] == "T" and text[4:5] == text[7:8] == "-" and text[13:14] == text[16:17] == ":"


def _same_date(_: ConversionTables, day: datetime.date, sent: Any) -> bool:
    return sent.__class__ is str and len(sent) == 10 and day.__class__ is datetime.date


def _same_member(member: Any, sent: Any) -> bool:
    return bool(getattr(member, "_value_", member) == sent)


_SAME_AS_SENT: dict[Any, Callable[[ConversionTables, Any, Any], bool]] = {
    datetime.datetime: _same_datetime,
    datetime.date: _same_date,
}


def inline_class(type_: Any) -> type[Any] | None:
    """The class whose values pass a field of this type unchanged (``str`` for ``str | None``)."""
    members = get_args(type_) if is_union(type_) else (type_,)
    members = tuple(member for member in members if member is not NoneType)
    if len(members) != 1:
        return None
    member = members[0]
    if is_mapping(member):
        return dict
    return member if member in PASS_THROUGH_CLASSES else None
