"""The hooks a conversion's converter finds by predicate: open enums, arrays, objects; the predicates.

A hook that reads values of another type (an array's items) asks its ``Conversion`` for that
type's hook on first use: hooks are made per conversion, never shared between two.
"""

from __future__ import annotations

import types
import typing
from typing import TYPE_CHECKING, Any, get_args, get_origin

from .enums import OpenEnum, normalized
from .failure import DecodeError, describe
from .scalars import SCALAR_HOOKS, Hook, to_mapping, to_str

if TYPE_CHECKING:
    from .tables import ConversionTables

__all__ = [
    "PASS_THROUGH_CLASSES",
    "enum_hook",
    "is_list",
    "is_mapping",
    "is_open_enum",
    "is_union",
    "list_hook",
    "mapping_hook",
]


def is_union(type_: Any) -> bool:
    return get_origin(type_) in (typing.Union, types.UnionType)


def is_list(type_: Any) -> bool:
    return get_origin(type_) is list


def is_mapping(type_: Any) -> bool:
    return type_ is dict or get_origin(type_) is dict


def is_open_enum(type_: Any) -> bool:
    return isinstance(type_, type) and issubclass(type_, OpenEnum)


def enum_hook(enum: type[OpenEnum]) -> Hook:
    members: dict[Any, OpenEnum] = {}
    for member in enum:
        members[normalized(member.value)] = member
    for member in enum:
        members[member.value] = member

    def structure_enum(value: Any, _: Any = None) -> OpenEnum | str:
        if value.__class__ is str and (found := members.get(value)) is not None:
            return found
        text = to_str(value)
        return members.get(normalized(text), text)

    return structure_enum


def list_hook(conversion: ConversionTables, type_: Any) -> Hook:
    (item_type,) = get_args(type_) or (Any,)
    if item_type in (Any, object):
        return _structure_plain_list
    if item_type in PASS_THROUGH_CLASSES:
        return _scalar_list_hook(item_type)
    resolved: list[Hook] = []

    def structure_list(value: Any, _: Any = None) -> list[Any]:
        if value is None:
            return []
        if value.__class__ is not list:
            raise DecodeError(f"expected an array, got {describe(value)}")
        if not resolved:
            resolved.append(conversion.hook(item_type))
        return _items(value, resolved[0], item_type)

    return structure_list


def _scalar_list_hook(item_type: type[Any]) -> Hook:
    item_hook = SCALAR_HOOKS[item_type]

    def structure_scalar_list(value: Any, _: Any = None) -> list[Any]:
        if value is None:
            return []
        if value.__class__ is not list:
            raise DecodeError(f"expected an array, got {describe(value)}")
        for item in value:
            if item.__class__ is not item_type:
                return _items(value, item_hook, item_type)
        return value

    return structure_scalar_list


def _structure_plain_list(value: Any, _: Any = None) -> list[Any]:
    if value is None:
        return []
    if value.__class__ is not list:
        raise DecodeError(f"expected an array, got {describe(value)}")
    return value


def _items(items: list[Any], item_hook: Hook, item_type: Any) -> list[Any]:
    """Each item decoded; the first that cannot be names its place (``[3]``) in the error."""
    try:
        return [item_hook(item, item_type) for item in items]
    except DecodeError:
        pass
    for index, item in enumerate(items):
        try:
            item_hook(item, item_type)
        except DecodeError as error:
            raise error.within(f"[{index}]") from None
    raise DecodeError("array could not be decoded")  # pragma: no cover - the first pass failed


def mapping_hook(type_: Any) -> Hook:
    return to_mapping


PASS_THROUGH_CLASSES: frozenset[type[Any]] = frozenset({str, int, float, bool, dict})
"""Classes whose values a field of the same type takes as they are, with no conversion."""
