"""The spec as the tests read it: the operations and models `spec/openapi.yaml` promises.

Tests derive what they expect from here instead of keeping copies of the spec, so an endpoint,
a parameter or a field added to the spec is expected (and checked) the moment it is generated.

A test about one field (a datetime's reading, an enum's spelling) builds the smallest payload that
shows it; the services always send more, and the models refuse an answer without the fields the
spec says are guaranteed. ``required(Course)`` gives those fields with plain values of their
types (nested models filled the same way), to spread under the test's own:
``from_dict(Course, {**required(Course), "modified": "2026-01-05T10:00:00Z"})``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from attrs import frozen

SPEC = Path(__file__).resolve().parent.parent / "spec" / "openapi.yaml"
HTTP_METHODS = ("get", "post", "put", "patch", "delete")


@frozen
class SpecOperation:
    """One operation of the spec, as the client should expose it."""

    name: str  # resource.method
    http_method: str
    path: str
    positional: tuple[str, ...]
    keyword: tuple[str, ...]
    required_keywords: frozenset[str]
    query: tuple[str, ...]
    body: tuple[str, ...]
    statuses: frozenset[int]
    pagination: Mapping[str, Any] | None


@cache
def document(path: Path = SPEC) -> Mapping[str, Any]:
    """The parsed spec."""
    loaded: Mapping[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded


def resolve(node: Any, path: Path = SPEC) -> Any:
    """``node`` with its local ``$ref``s followed."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = document(path)
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


def operations(path: Path = SPEC) -> Iterator[SpecOperation]:
    """Every public operation (not ``x-sdk-internal``) of the spec."""
    for route, item in document(path)["paths"].items():
        for method in HTTP_METHODS:
            node = item.get(method)
            if node is not None and not node.get("x-sdk-internal"):
                yield _operation(route, method, node, path)


def _operation(route: str, method: str, node: Mapping[str, Any], path: Path) -> SpecOperation:
    pagination = node.get("x-sdk-pagination")
    driven = {pagination.get("page_param", "page"), pagination.get("offset_param")} if pagination else set()
    parameters = [resolve(parameter, path) for parameter in node.get("parameters", ())]
    parameters = [parameter for parameter in parameters if parameter["name"] not in driven]
    # an argument named otherwise than its wire parameter (x-sdk-argument: job_id)
    positional = [
        p.get("x-sdk-argument", p["name"]) for p in parameters if p["in"] == "path" or p.get("required")
    ]
    optional = [
        p.get("x-sdk-argument", p["name"]) for p in parameters if not (p["in"] == "path" or p.get("required"))
    ]
    body: dict[str, Any] = {}
    required: set[str] = set()
    if "requestBody" in node:
        schema = resolve(resolve(node["requestBody"], path)["content"]["application/json"]["schema"], path)
        body = schema.get("properties", {})
        required = set(schema.get("required", ()))
        # a field the service requires though the reference does not (x-sdk-service body-required)
        required |= set(node.get("x-sdk-service", {}).get("body-required", ()))
    return SpecOperation(
        name=f"{node['tags'][0]}.{node['x-sdk-method']}",
        http_method=method.upper(),
        path=route,
        positional=tuple(positional),
        keyword=(*optional, *body),
        required_keywords=frozenset(required),
        query=tuple(p["name"] for p in parameters if p["in"] == "query"),
        body=tuple(body),
        statuses=frozenset(int(status) for status in node.get("responses", {}) if str(status).isdigit()),
        pagination=pagination,
    )


def object_schemas(path: Path = SPEC) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(name, schema) of every component schema with properties: each is a model class."""
    for name, schema in document(path)["components"]["schemas"].items():
        if "properties" in schema:
            yield name, schema


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
