"""Union dispatch: a union's variant is picked by the value's JSON kind, then by the spec's variant rules.

The rules (a discriminator and its mapping, or marker fields) are data of the spec, which the
``Conversion`` holding them was made with: the decoder itself knows no generated module. A
discriminator value that names no variant (a content type the spec does not know) is reported to
the drift listener with the class the value was decoded as.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Mapping
from types import NoneType
from typing import TYPE_CHECKING, Any, get_args

import attrs

from .._spec import VariantRule
from .enums import OpenEnum
from .failure import DecodeError, describe, type_name
from .fields import known_fields
from .hooks import enum_hook, is_list, is_mapping, is_open_enum
from .scalars import SCALAR_HOOKS, Hook
from .tolerance import report_unknown_type

if TYPE_CHECKING:
    from .tables import ConversionTables

__all__ = ["union_hook", "variant_of"]


def variant_of(conversion: ConversionTables, union: Any, value: Mapping[str, Any]) -> type[Any] | None:
    """The class of a union of classes that ``value`` decodes into; None for any other union."""
    dispatch = conversion.hook(union)
    if isinstance(dispatch, _UnionDispatch) and dispatch.classes:
        return dispatch.choose_class(value)
    return None


_TEXT_COERCIONS = (bool, int, float, decimal.Decimal, datetime.datetime, datetime.date)


def union_hook(conversion: ConversionTables, union: Any) -> Hook:
    members = get_args(union)
    nullable = NoneType in members
    members = tuple(member for member in members if member is not NoneType)
    if len(members) == 1:
        return _optional_hook(conversion, members[0])
    if len(members) == 2 and is_open_enum(members[0]) and members[1] is str:
        return _optional_enum_hook(members[0]) if nullable else enum_hook(members[0])
    return _UnionDispatch(conversion, union, members, nullable)


def _optional_hook(conversion: ConversionTables, member: Any) -> Hook:
    resolved: list[Hook] = []

    def structure_optional(value: Any, _: Any = None) -> Any:
        if value is None:
            return None
        if not resolved:
            resolved.append(conversion.hook(member))
        return resolved[0](value, member)

    return structure_optional


def _optional_enum_hook(enum: type[OpenEnum]) -> Hook:
    structure_enum = enum_hook(enum)

    def structure_optional_enum(value: Any, _: Any = None) -> Any:
        return None if value is None else structure_enum(value, None)

    return structure_optional_enum


class _UnionDispatch:
    """Picks a union's variant from the value: its JSON kind first, then, for text, the most specific type."""

    def __init__(
        self, conversion: ConversionTables, union: Any, members: tuple[Any, ...], nullable: bool
    ) -> None:
        self.hook = conversion.hook
        self.union = union
        self.nullable = nullable
        self.classes = tuple(member for member in members if attrs.has(member))
        self.lists = tuple(member for member in members if is_list(member))
        self.mappings = tuple(member for member in members if is_mapping(member))
        self.enums = tuple(member for member in members if is_open_enum(member))
        self.scalars = tuple(member for member in members if member in SCALAR_HOOKS)
        self.text_order = tuple(kind for kind in _TEXT_COERCIONS if kind in self.scalars)
        self.rule: VariantRule | None = conversion.variants.get(union) if len(self.classes) > 1 else None
        """The spec's rule for choosing among the classes (looked up once: hashing a union costs
        microseconds)."""
        self.hooks: dict[type[Any], Hook] = {}

    def __call__(self, value: Any, _: Any = None) -> Any:
        if value is None:
            return self._none()
        if isinstance(value, dict):
            return self._object(value)
        if isinstance(value, list):
            if self.lists:
                return self.hook(self.lists[0])(value, self.lists[0])
            raise self._mismatch(value)
        if isinstance(value, str):
            return self._text(value)
        return self._scalar(value)

    def _none(self) -> Any:
        if self.nullable:
            return None
        if self.lists:
            return []  # an empty XML element where a list is one of the choices
        raise self._mismatch(None)

    def _object(self, value: dict[str, Any]) -> Any:
        if not self.classes:
            if self.mappings:
                return value
            raise self._mismatch(value)
        rule = self.rule
        if rule is None or not rule.discriminator:
            return self._build(self.choose_class(value), value)
        tag = value.get(rule.discriminator)
        model = self._build(self._chosen(rule, tag, value), value)
        if tag is not None and not (tag.__class__ is str and tag in rule.mapping):
            report_unknown_type(model, rule.discriminator, tag, rule.name or type_name(self.union))
        return model

    def _build(self, chosen: type[Any], value: dict[str, Any]) -> Any:
        structure = self.hooks.get(chosen)
        if structure is None:
            structure = self.hooks[chosen] = self.hook(chosen)
        return structure(value, chosen)

    def choose_class(self, value: Mapping[str, Any]) -> type[Any]:
        """The class ``value`` decodes into: by the discriminator, then the markers, then the fallback."""
        rule = self.rule
        if rule is None:
            return self._by_fields(value)
        return self._chosen(rule, value.get(rule.discriminator) if rule.discriminator else None, value)

    def _chosen(self, rule: VariantRule, tag: Any, value: Mapping[str, Any]) -> type[Any]:
        if tag.__class__ is str and tag in rule.mapping:
            return rule.mapping[tag]
        if rule.fallback is not None and tag not in (None, ""):
            return rule.fallback  # a type the spec does not know: never one it does
        for variant, markers in rule.markers:
            if not markers.isdisjoint(value.keys()):
                return variant
        if rule.fallback is not None:
            return rule.fallback
        return self._by_fields(value)

    def _by_fields(self, value: Mapping[str, Any]) -> type[Any]:
        """With one class, that class; else (no rule decides) the class knowing most of the value's fields."""
        if len(self.classes) == 1:
            return self.classes[0]
        return max(self.classes, key=lambda cls: len(known_fields(cls) & value.keys()))

    def _text(self, value: str) -> Any:
        for enum in self.enums:
            found = enum_hook(enum)(value, None)
            if isinstance(found, OpenEnum):
                return found
        for kind in self.text_order:
            try:
                return SCALAR_HOOKS[kind](value, None)
            except DecodeError:
                continue
        if str in self.scalars or self.enums or Any in self.scalars:
            return value
        if not value.strip() and self.nullable:
            return None
        raise self._mismatch(value)

    def _scalar(self, value: Any) -> Any:
        exact = type(value)
        if exact in self.scalars:
            return value
        for kind in (int, float, decimal.Decimal, str):
            if kind in self.scalars:
                try:
                    return SCALAR_HOOKS[kind](value, None)
                except DecodeError:
                    continue
        if Any in self.scalars:
            return value
        raise self._mismatch(value)

    def _mismatch(self, value: Any) -> DecodeError:
        return DecodeError(f"expected {type_name(self.union)}, got {describe(value)}")
