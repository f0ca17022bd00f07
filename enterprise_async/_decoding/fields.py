"""What a model's fields are on the wire: their names, types, defaults, computed once per class."""

from __future__ import annotations

import typing
from types import NoneType
from typing import Any, get_args

import attrs

from .registry import is_list, is_union

__all__ = [
    "WIRE",
    "has_scalar_default",
    "is_listish",
    "known_fields",
    "model_fields",
    "wire_name",
    "without_none",
]

WIRE = "_sdk_wire"
"""The private attribute of every model holding the object it was decoded from (see ``to_dict``)."""


_FIELD_NAMES: dict[type[Any], frozenset[str]] = {}
_FIELDS: dict[type[Any], tuple[attrs.Attribute[Any], ...]] = {}


def model_fields(cls: type[Any]) -> tuple[attrs.Attribute[Any], ...]:
    """The fields of a model that describe the wire: neither ``extra`` nor the private wire record."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple(
            field for field in attrs.fields(cls) if field.name != "extra" and field.init
        )
    return found


def known_fields(cls: type[Any]) -> frozenset[str]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = frozenset(wire_name(field) for field in model_fields(cls))
        _FIELD_NAMES[cls] = names
    return names


def wire_name(field: attrs.Attribute[Any]) -> str:
    return str(field.metadata.get("wire", field.name))


def is_listish(type_: Any) -> bool:
    """Whether a field of this type holds an array (``[]`` when left out)."""
    return is_list(type_) or (is_union(type_) and is_list(get_args(type_)[0]))


def without_none(type_: Any) -> Any:
    """``X`` for ``X | None``; the union without ``None`` for larger unions; other types as they are."""
    if not is_union(type_):
        return type_
    members = tuple(member for member in get_args(type_) if member is not NoneType)
    if len(members) == len(get_args(type_)):
        return type_
    if len(members) == 1:
        return members[0]
    return typing.Union[members]  # noqa: UP007 - built from a runtime tuple


def has_scalar_default(field: attrs.Attribute[Any]) -> bool:
    """Whether a field left out keeps a default other than None (``partial = False``)."""
    default = field.default
    return default is not None and default is not attrs.NOTHING and not isinstance(default, attrs.Factory)  # type: ignore[arg-type]
