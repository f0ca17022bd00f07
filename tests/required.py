"""The fields a test's payload must carry for its model, read from the spec's `required` lists.

A test about one field (a datetime's reading, an enum's spelling) builds the smallest payload that
shows it; the services always send more, and the models refuse an answer without the fields the
spec says are guaranteed. ``required(Course)`` gives those fields with plain values of their
types (nested models filled the same way), to spread under the test's own:
``from_dict(Course, {**required(Course), "modified": "2026-01-05T10:00:00Z"})``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from tests.openapi_spec import document

__all__ = ["required"]


def _schemas() -> Mapping[str, Any]:
    schemas: Mapping[str, Any] = document()["components"]["schemas"]
    return schemas


def _value(schema: Mapping[str, Any], name: str) -> Any:
    """A plain value a service could send for a field of this schema."""
    if "$ref" in schema:
        target = schema["$ref"].rsplit("/", 1)[1]
        referenced = _schemas()[target]
        if "enum" in referenced:
            return referenced["enum"][0]
        return dict(_filled(target))
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "null" in kinds:
        return None
    for alternative in schema.get("oneOf", []) + schema.get("anyOf", []):
        if alternative.get("type") == "null" or "null" in (alternative.get("type") or []):
            return None
    alternatives = schema.get("oneOf", []) + schema.get("anyOf", [])
    if alternatives:
        return _value(alternatives[0], name)
    kind = kinds[0]
    if kind == "string":
        return {
            "uuid": "00000000-0000-4000-8000-000000000000",
            "date-time": "2024-01-01T00:00:00Z",
            "date": "2024-01-01",
            "decimal": "0.00",
        }.get(schema.get("format", ""), name)
    if kind == "integer":
        return 0
    if kind == "number":
        return 0.0
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    return {}


@cache
def _filled(name: str) -> tuple[tuple[str, Any], ...]:
    schema = _schemas()[name]
    properties = schema.get("properties", {})
    tag = schema.get("discriminator", {})
    values = {field: _value(properties[field], field) for field in schema.get("required", ())}
    if tag.get("propertyName") in values:  # a type the spec lists, not one the drift report names
        values[tag["propertyName"]] = next(iter(tag["mapping"]))
    return tuple(values.items())


def required(model: Any) -> dict[str, Any]:
    """The required fields of ``model`` (a model class, or its schema's name), with plain values."""
    name = model if isinstance(model, str) else getattr(model, "__name__", "")
    if name not in _schemas():  # a union (ContentItem): each variant requires its own
        return {}
    return {field: (dict(value) if isinstance(value, dict) else value) for field, value in _filled(name)}
