"""Field readers: what a compiled structuring function calls for the values it does not take as they are.

A reader decodes a field's value with the hook of its type, keeps it as sent when the type does not
allow it (``tolerance.keep``), and notes a value whose written form is not what was sent, so that
``to_dict`` writes it back as sent. A reader never raises: a model with an odd value costs hardly more
than a clean one.
"""

from __future__ import annotations

import datetime
import typing
from collections.abc import Callable
from types import NoneType
from typing import Any, get_args

import attrs

from .failure import DecodeError
from .fields import FieldPlan
from .registry import PASS_THROUGH_CLASSES, hook, is_list, is_mapping, is_open_enum, is_union
from .scalars import SCALAR_HOOKS, Hook
from .tolerance import Note, keep, noting_outside_enum
from .writers import written_as_sent

__all__ = ["COMPILING", "Reader", "field_hook", "field_reader", "inline_class", "null_array"]

Reader = Callable[[Any, list[Note]], Any]
"""Reads a field's value (never None) for its model; notes what the model must keep; never raises."""

COMPILING: set[type[Any]] = set()
"""The model classes whose function is being compiled: a field of one of them gets its hook on first use."""


def null_array(wire: str, type_: Any) -> Callable[[list[Note]], list[Any]]:
    """An array sent as null: ``[]`` on the model, and a note so that ``to_dict`` writes null back."""
    note: Note = (wire, type_, None, None)

    def read_null(notes: list[Note]) -> list[Any]:
        notes.append(note)
        return []

    return read_null


def field_reader(plan: FieldPlan) -> Reader:
    """The reader of a field's values that the compiled function does not take as they are."""
    type_, wire = plan.type, plan.wire
    decode = field_hook(type_)
    if _writes_itself(type_):
        return _nested_reader(decode, type_, wire)
    if inline_class(type_) is not None:
        return _converting_reader(decode, type_, wire, _never_same)
    same = _SAME_AS_SENT.get(type_, written_as_sent)
    if is_union(type_) and is_open_enum(get_args(type_)[0]):
        same = _same_member
    return typing.cast(
        Reader, noting_outside_enum(_converting_reader(decode, type_, wire, same), type_, wire)
    )


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


def _nested_reader(decode: Hook, type_: Any, wire: str) -> Reader:
    """Models write themselves: nothing to note but a value kept as sent."""

    def read_nested(value: Any, notes: list[Note]) -> Any:
        try:
            return decode(value, type_)
        except DecodeError as error:
            return keep(value, type_, wire, error, notes)

    return read_nested


def _converting_reader(decode: Hook, type_: Any, wire: str, same: Callable[[Any, Any], bool]) -> Reader:
    """Noted when the value decoded is not written back as sent (``"12"`` read as 12, ``Z`` datetimes)."""

    def read_converted(value: Any, notes: list[Note]) -> Any:
        try:
            decoded = decode(value, type_)
        except DecodeError as error:
            return keep(value, type_, wire, error, notes)
        if decoded is not value and not same(decoded, value):
            notes.append((wire, type_, value, None))
        return decoded

    return read_converted


def _never_same(decoded: Any, sent: Any) -> bool:
    """A string, number or boolean of another class than declared: written back as sent."""
    return False


def _same_datetime(moment: datetime.datetime, sent: Any) -> bool:
    """Whether ``json_datetime(moment)`` is ``sent``, without writing it: the text is in that canonical
    form (``T``, seconds, microseconds only when not zero, ``Z`` for UTC, else ``+HH:MM`` or no offset
    for a naive datetime) or not."""
    if sent.__class__ is not str or moment.__class__ is not datetime.datetime or not _extended_form(sent):
        return written_as_sent(moment, sent)
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


def _same_date(day: datetime.date, sent: Any) -> bool:
    return sent.__class__ is str and len(sent) == 10 and day.__class__ is datetime.date


def _same_member(member: Any, sent: Any) -> bool:
    return bool(getattr(member, "_value_", member) == sent)


_SAME_AS_SENT: dict[Any, Callable[[Any, Any], bool]] = {
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


def field_hook(type_: Any) -> Hook:
    """The hook of a field's type, resolved now unless the type is a model still being compiled."""
    scalar = SCALAR_HOOKS.get(type_)
    if scalar is not None:
        return scalar
    if type_ in COMPILING or (is_list(type_) and (get_args(type_) or (Any,))[0] in COMPILING):
        return _lazy_hook(type_)
    return hook(type_)


def _lazy_hook(type_: Any) -> Hook:
    """A hook resolved on first use, for a model that refers to itself."""
    resolved: list[Hook] = []

    def lazy(value: Any, _: Any = None) -> Any:
        if not resolved:
            resolved.append(hook(type_))
        return resolved[0](value, type_)

    return lazy
