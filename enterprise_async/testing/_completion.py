"""What a stateful handler's answer lacks, filled in from the spec: every documented field, as the
services send them.

A handler writes the fields its records hold; a field the spec documents that a record does not
know yet (a maintainer just added it) is drawn from its schema, required or optional, so that a
spec edit reaches the sandbox's answers at once. What the spec says is never sent stays out: a
field the SDK computes (``x-sdk-computed``), a listing's envelope beyond what its pagination
writes (the completer is given an empty ``envelope`` shape), and, under the services profile, a field outside
what an operation's service emits (its ``x-sdk-service`` ``fields``, the serializer's, and its
``envelope``). A stored document (a variant of a discriminated union, such as a catalog's
content item: course-discovery's JSON as the catalog service stored it, passed on as it is) gets
no optional field: what it lacks, its author left out. A required field is always there.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from attrs import frozen

if TYPE_CHECKING:
    from ._synthesis import Synthesizer

__all__ = ["Completion", "Draw", "Shape", "shape_of"]

MAX_DEPTH: Final = 6
"""Nesting beyond which nothing is filled in (recursive schemas end)."""

Draw = Callable[[Mapping[str, Any], str], random.Random]
"""The random source of a field an object lacks, given the object and the field's name: the same
object (an item met on page 1 of one listing and on page 3 of another) is given the same value."""


@frozen
class Shape:
    """The fields a service emits of an object: ``names`` (None: every documented one), and the
    shape of each field that has fields of its own."""

    names: frozenset[str] | None = None
    inner: Mapping[str, Shape] = {}

    def of(self, name: str) -> Shape | None:
        return self.inner.get(name)


def shape_of(fields: Sequence[Any]) -> Shape:
    """A ``fields`` rule (names, and ``{field: [...]}`` entries for a nested serializer) as a Shape."""
    names: set[str] = set()
    inner: dict[str, Shape] = {}
    for entry in fields:
        nested = entry if isinstance(entry, dict) else {entry: None}
        for name, below in nested.items():
            names.add(name)
            if below is not None:
                inner[name] = shape_of(below)
    return Shape(frozenset(names), inner)


@frozen
class _Field:
    """A property of an object schema as completion visits it."""

    name: str
    schema: Any
    required: bool
    below: bool
    """Whether a value of it may hold fields of its own to complete (an object or an array)."""


class Completion:
    """Fills in the fields an answer lacks (``complete``), by the synthesizer's schemas and values."""

    def __init__(self, synthesizer: Synthesizer) -> None:
        self.synthesizer = synthesizer
        self._fields: dict[int, tuple[_Field, ...] | None] = {}
        self.stored = _variants(synthesizer.components)
        """The schemas of stored documents, by name: the variants of every discriminated union."""

    def complete(
        self,
        value: Any,
        schema: Any,
        draw: random.Random | Draw,
        *,
        shape: Shape | None = None,
        items: Mapping[str, Shape] | None = None,
        depth: int = 0,
        stored: bool = False,
    ) -> Any:
        """``value`` with every documented field it lacks filled in from ``schema``: required ones
        always, optional ones unless computed by the SDK or outside ``shape`` (the top object's)
        or ``items`` (the shape of every object of a schema, by its name), or within a ``stored``
        document. ``value`` itself is never changed: what lacks nothing is returned as it is, the
        rest as copies."""
        if depth > MAX_DEPTH:
            return value
        resolved = self.synthesizer.resolve(schema)
        if isinstance(value, list):
            part = resolved.get("items")
            if part is None:
                return value
            done = [
                self.complete(item, part, draw, shape=shape, items=items, depth=depth + 1, stored=stored)
                for item in value
            ]
            return value if all(new is old for new, old in zip(done, value, strict=True)) else done
        if not isinstance(value, dict):
            return value
        fields = self._object_fields(schema)
        if not fields:
            return value
        if isinstance(schema, Mapping) and "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            stored = stored or name in self.stored
            if shape is None and items:
                shape = items.get(name)
        names = frozenset() if stored else shape.names if shape is not None else None
        result = value
        for field in fields:
            if field.name in value:
                if not field.below:
                    continue
                inner = shape.of(field.name) if shape is not None else None
                old = value[field.name]
                new = self.complete(
                    old, field.schema, draw, shape=inner, items=items, depth=depth + 1, stored=stored
                )
                if new is old:
                    continue
            elif field.required or names is None or field.name in names:
                source = draw if isinstance(draw, random.Random) else draw(value, field.name)
                new = self.synthesizer.value(field.schema, source, depth + 1)
            else:
                continue
            result = dict(result) if result is value else result
            result[field.name] = new
        return result

    def _object_fields(self, schema: Any) -> tuple[_Field, ...] | None:
        """The fields completion visits of an object schema (None: not an object); made once."""
        key = id(schema)
        if key in self._fields:
            return self._fields[key]
        resolved = self.synthesizer.resolve(schema)
        properties: Mapping[str, Any] = resolved.get("properties", {})
        found: tuple[_Field, ...] | None = None
        if properties:
            required = set(resolved.get("required", ()))
            excluded = set(resolved.get("not", {}).get("required", ())) - required
            found = tuple(
                _Field(name, part, name in required, self._holds_fields(part))
                for name, part in properties.items()
                if name not in excluded and not self.synthesizer.resolve(part).get("x-sdk-computed")
            )
        self._fields[key] = found
        return found

    def _holds_fields(self, schema: Any) -> bool:
        """Whether a value of ``schema`` may hold fields to complete: an object with properties,
        or an array (of arrays) of such objects."""
        resolved = self.synthesizer.resolve(schema)
        while "items" in resolved and not resolved.get("properties"):
            resolved = self.synthesizer.resolve(resolved["items"])
        return bool(resolved.get("properties"))


def _variants(components: Mapping[str, Any]) -> frozenset[str]:
    """The names of the schemas that a discriminated union of ``components`` chooses among."""
    found: set[str] = set()

    def visit(schema: Any) -> None:
        if isinstance(schema, Mapping):
            options = [*schema.get("oneOf", ()), *schema.get("anyOf", ())]
            if "discriminator" in schema and options:  # a union (a schema naming its own type is none)
                targets = [option.get("$ref", "") for option in options if isinstance(option, Mapping)]
                found.update(target.rsplit("/", 1)[-1] for target in targets if target)
            for value in schema.values():
                visit(value)
        elif isinstance(schema, list):
            for value in schema:
                visit(value)

    visit(components)
    return frozenset(found)
