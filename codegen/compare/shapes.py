"""A schema of either document reduced to what `compare` weighs: its types, format, nullability,
enum, properties and required list, with ``$ref``, ``allOf`` and ``oneOf``/``anyOf`` folded in.

Both dialects read the same: OpenAPI 3.1's ``type: [X, "null"]`` (ours) and 3.0's ``nullable:
true`` (drf-spectacular's), its ``NullEnum`` and ``BlankEnum`` variants, and ``allOf: [$ref]``
wrappers that carry ``nullable`` or ``readOnly`` beside them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from attrs import field, frozen

Direction = Literal["request", "response"]
FORMATS = frozenset({"date-time", "date", "uuid", "decimal"})
"""The formats a type difference counts; others (email, uri...) say how a string is written."""


class UnresolvableError(Exception):
    """A ``$ref`` that points to nothing in its document."""


@frozen
class Shape:
    """What one schema says, in either dialect."""

    ref: str | None = None
    kinds: frozenset[str] = frozenset()
    format: str | None = None
    nullable: bool = False
    enum: frozenset[Any] | None = None
    properties: Mapping[str, Any] = field(factory=dict)
    fields_listed: bool = False
    """Whether the schema lists its fields (``properties``, even none), unlike a free-form object."""
    required: frozenset[str] | None = None
    items: Any = None
    read_only: bool = False
    write_only: bool = False

    def describe(self) -> str:
        """``string(uuid)``, ``integer|string``, ``array``..., with ``|null`` when nullable."""
        kinds = "|".join(sorted(self.kinds)) or "any"
        text = f"{kinds}({self.format})" if self.format else kinds
        return text + ("|null" if self.nullable else "")

    def sent(self, name: str, direction: Direction) -> bool:
        """Whether property ``name`` travels in ``direction`` (readOnly never in a request,
        writeOnly never in a response)."""
        return True if name not in self.properties else _travels(self.properties[name], direction)


def _travels(schema: Any, direction: Direction) -> bool:
    if not isinstance(schema, dict):
        return True
    if direction == "request":
        return not schema.get("readOnly", False)
    return not schema.get("writeOnly", False)


def shape(document: Mapping[str, Any], schema: Any) -> Shape:
    """The shape of ``schema``, its ``$ref`` chain resolved in ``document``."""
    if not isinstance(schema, dict):
        return Shape()
    return _fold(document, schema, None, depth=0)


def resolve(document: Mapping[str, Any], ref: str) -> Any:
    """The node at a local ``$ref`` (``#/components/schemas/Name``)."""
    target: Any = document
    for part in ref.removeprefix("#/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, dict) or part not in target:
            raise UnresolvableError(ref)
        target = target[part]
    return target


def _fold(document: Mapping[str, Any], schema: dict[str, Any], ref: str | None, depth: int) -> Shape:
    if depth > 32:
        raise UnresolvableError("a $ref chain that does not end")
    siblings = {key: value for key, value in schema.items() if key != "$ref"}
    if "$ref" in schema:
        name = str(schema["$ref"]).rpartition("/")[2]
        target = resolve(document, str(schema["$ref"]))
        inner = _fold(document, target if isinstance(target, dict) else {}, ref or name, depth + 1)
        return _with_siblings(inner, siblings)
    wrapped = schema.get("allOf")
    if isinstance(wrapped, list) and wrapped:
        parts = [_fold(document, part, None, depth + 1) for part in wrapped if isinstance(part, dict)]
        merged = _merge_all(parts, ref if ref else (parts[0].ref if len(parts) == 1 else None))
        rest = {key: value for key, value in siblings.items() if key != "allOf"}
        return _with_siblings(merged, rest)
    variants = schema.get("oneOf") or schema.get("anyOf")
    if isinstance(variants, list) and variants:
        folded = [_fold(document, part, None, depth + 1) for part in variants if isinstance(part, dict)]
        rest = {key: value for key, value in siblings.items() if key not in ("oneOf", "anyOf")}
        return _with_siblings(_merge_any(folded, ref), rest)
    return _plain(schema, ref)


def _plain(schema: dict[str, Any], ref: str | None) -> Shape:
    declared = schema.get("type")
    kinds = (
        set(declared) if isinstance(declared, list) else {declared} if isinstance(declared, str) else set()
    )
    nullable = "null" in kinds or bool(schema.get("nullable", False))
    kinds.discard("null")
    enum: frozenset[Any] | None = None
    if "enum" in schema and isinstance(schema["enum"], list):
        values = [value for value in schema["enum"] if value is not None]
        nullable = nullable or None in schema["enum"]
        enum = frozenset(values)
        if not values:  # drf-spectacular's NullEnum: [null]
            kinds = set()
    elif "const" in schema:
        enum = frozenset([schema["const"]])
    if not kinds and "properties" in schema:
        kinds = {"object"}
    fmt = schema.get("format")
    required = schema.get("required")
    return Shape(
        ref=ref,
        kinds=frozenset(str(kind) for kind in kinds),
        format=fmt if fmt in FORMATS else None,
        nullable=nullable,
        enum=enum,
        properties=dict(schema.get("properties") or {}),
        fields_listed=isinstance(schema.get("properties"), dict),
        required=frozenset(required) if isinstance(required, list) else None,
        items=schema.get("items"),
        read_only=bool(schema.get("readOnly", False)),
        write_only=bool(schema.get("writeOnly", False)),
    )


def _with_siblings(inner: Shape, siblings: Mapping[str, Any]) -> Shape:
    """A ``$ref`` or ``allOf`` with ``nullable``/``readOnly``/``type`` beside it."""
    nullable = inner.nullable or bool(siblings.get("nullable", False))
    declared = siblings.get("type")
    if isinstance(declared, list) and "null" in declared:
        nullable = True
    return Shape(
        ref=inner.ref,
        kinds=inner.kinds,
        format=inner.format,
        nullable=nullable,
        enum=inner.enum,
        properties=inner.properties,
        fields_listed=inner.fields_listed,
        required=inner.required,
        items=inner.items,
        read_only=inner.read_only or bool(siblings.get("readOnly", False)),
        write_only=inner.write_only or bool(siblings.get("writeOnly", False)),
    )


def _merge_all(parts: list[Shape], ref: str | None) -> Shape:
    """``allOf``: every part's properties and required fields at once."""
    properties: dict[str, Any] = {}
    required: set[str] | None = None
    for part in parts:
        properties.update(part.properties)
        if part.required is not None:
            required = (required or set()) | part.required
    first = parts[0] if parts else Shape()
    return Shape(
        ref=ref,
        kinds=frozenset().union(*(part.kinds for part in parts)) if parts else frozenset(),
        format=first.format,
        nullable=all(part.nullable for part in parts) if parts else False,
        enum=first.enum,
        properties=properties,
        fields_listed=any(part.fields_listed for part in parts),
        required=frozenset(required) if required is not None else None,
        items=first.items,
    )


def _merge_any(variants: list[Shape], ref: str | None) -> Shape:
    """``oneOf``/``anyOf``: a null variant (``type: "null"``, ``NullEnum``) makes it nullable; the
    other variants' types and enum values (``BlankEnum``'s ``""`` included) are pooled."""
    nullable = any(variant.nullable for variant in variants)
    real = [variant for variant in variants if variant.kinds or variant.properties or variant.enum]
    enums = [variant.enum for variant in real if variant.enum is not None]
    properties: dict[str, Any] = {}
    for variant in real:
        properties.update(variant.properties)
    formats = {variant.format for variant in real}
    objects = [variant for variant in real if variant.fields_listed]
    # One variant, or one model among scalars (a model or its uuid): the union is named by it.
    single = real[0] if len(real) == 1 else objects[0] if len(objects) == 1 else None
    required = [variant.required for variant in real if variant.required is not None]
    return Shape(
        ref=ref or (single.ref if single is not None else None),
        kinds=frozenset().union(*(variant.kinds for variant in real)) if real else frozenset(),
        format=formats.pop() if len(formats) == 1 else None,
        nullable=nullable,
        enum=frozenset().union(*enums) if enums else None,
        properties=properties,
        fields_listed=any(variant.fields_listed for variant in real),
        required=frozenset.intersection(*required) if required and len(required) == len(real) else None,
        items=real[0].items if len(real) == 1 else None,
    )
