"""What a model's fields are on the wire: their names, types, defaults, computed once per class."""

from __future__ import annotations

import functools
import operator
import typing
from types import NoneType
from typing import Any, NamedTuple, get_args

import attrs

from .hooks import is_list, is_union

__all__ = [
    "ABSENT",
    "WIRE",
    "FieldPlan",
    "field_plans",
    "has_scalar_default",
    "is_listish",
    "known_fields",
    "model_fields",
    "wire_name",
    "without_none",
]

ABSENT: Any = object()
"""What ``data.get(wire, ABSENT)`` gives for a field left out (None is a field sent as null)."""

WIRE = "_sdk_wire"
"""The private attribute of every model holding the object it was decoded from (see ``to_dict``)."""


# Caches keyed by the model class alone, which decides what they hold (its fields, their types):
# they are the same for every conversion.
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
    return functools.reduce(operator.or_, members)  # ``A | B``, as the models declare it


class FieldPlan(NamedTuple):
    """One field as the decoder reads it, worked out once per class (``typing.get_type_hints`` is slow)."""

    name: str
    wire: str
    type: Any
    """The declared type without ``None``."""
    left_out: Any
    """What the field holds when the server leaves it out: its scalar default, else None."""
    listish: bool
    required: bool = False
    """The field has no default: left out, or null where its type admits none, it cannot be read."""
    nullable: bool = True


_PLANS: dict[type[Any], tuple[FieldPlan, ...]] = {}


def field_plans(cls: type[Any]) -> tuple[FieldPlan, ...]:
    """The wire fields of a model class, with their resolved types, cached per class."""
    plans = _PLANS.get(cls)
    if plans is None:
        hints = typing.get_type_hints(cls)
        plans = _PLANS[cls] = tuple(
            FieldPlan(
                name=field.name,
                wire=wire_name(field),
                type=(type_ := without_none(hints[field.name])),
                left_out=field.default if has_scalar_default(field) else None,
                listish=is_listish(type_),
                required=field.default is attrs.NOTHING,
                nullable=is_union(hints[field.name]) and NoneType in get_args(hints[field.name]),
            )
            for field in model_fields(cls)
        )
    return plans


def has_scalar_default(field: attrs.Attribute[Any]) -> bool:
    """Whether a field left out keeps a default other than None (``partial = False``)."""
    default = field.default
    return default is not None and default is not attrs.NOTHING and not isinstance(default, attrs.Factory)  # type: ignore[arg-type]
