"""Render the schema table: what each operation takes and answers, for the sandbox.

The sandbox ships in the wheel and `spec/` does not, so the schemas it answers from (the success
responses of every operation, the components they name), the requests it accepts (each parameter
and body schema with its ``x-sdk-*`` rules) and which operations need no token (``security: []``)
are written down here as plain JSON-shaped data. The sandbox checks requests against this data
with a JSON Schema validator of its own, never with the client's argument checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from codegen.operations import HTTP_METHODS
from codegen.rendering import template_environment

DROPPED_KEYS = frozenset(
    {
        "description",
        "summary",
        "example",
        "examples",
        "x-sdk-variants",
        "x-sdk-fallback-variant",
        "x-sdk-identity-field",
        "x-sdk-changes",
    }
)
"""Schema keys that only document; left out to keep the table small."""


def read_schemas(spec_path: Path) -> dict[str, Any]:
    """The components, each operation's success response schemas, and its security."""
    document = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    default_security = document.get("security", [])
    responses: dict[str, dict[int, Any]] = {}
    requests: dict[str, dict[str, Any]] = {}
    unauthenticated: list[str] = []
    service: dict[str, Any] = {}
    for item in document["paths"].values():
        for method in HTTP_METHODS:
            node = item.get(method)
            if node is None or node.get("x-sdk-internal"):
                continue
            name = f"{node['tags'][0]}.{node['x-sdk-method']}"
            responses[name] = _success_schemas(document, node)
            requests[name] = _request(document, node)
            if "x-sdk-service" in node:
                service[name] = node["x-sdk-service"]
            if not node.get("security", default_security):
                unauthenticated.append(name)
    components = document.get("components", {}).get("schemas", {})
    return {
        "components": {name: _plain(schema) for name, schema in components.items()},
        "responses": responses,
        "requests": requests,
        "unauthenticated": sorted(unauthenticated),
        "services": document.get("x-sdk-services", {}),
        "service": service,
    }


def _success_schemas(document: Mapping[str, Any], node: Mapping[str, Any]) -> dict[int, Any]:
    schemas: dict[int, Any] = {}
    for status, response in node.get("responses", {}).items():
        if not str(status).isdigit() or not 200 <= int(status) < 300:
            continue
        response = _resolve(document, response)
        media = response.get("content", {}).get("application/json")
        schemas[int(status)] = _plain(media["schema"]) if media and "schema" in media else None
    return schemas


def _request(document: Mapping[str, Any], node: Mapping[str, Any]) -> dict[str, Any]:
    """What the operation accepts: its path and query parameters (how each is serialized, whether
    required, its schema) and its JSON body schema (None: it takes no body)."""
    parameters = []
    for parameter in node.get("parameters", ()):
        parameter = _resolve(document, parameter)
        style = parameter.get("style", "form" if parameter["in"] == "query" else "simple")
        parameters.append(
            {
                "name": parameter["name"],
                "in": parameter["in"],
                "required": bool(parameter.get("required")) or parameter["in"] == "path",
                "style": style,
                "explode": parameter.get("explode", style == "form"),
                "schema": _plain(parameter.get("schema", {})),
            }
        )
    body = None
    if "requestBody" in node:
        media = _resolve(document, node["requestBody"]).get("content", {}).get("application/json")
        body = _plain(media["schema"]) if media and "schema" in media else None
    return {"parameters": parameters, "body": body}


def _resolve(document: Mapping[str, Any], node: Mapping[str, Any]) -> Mapping[str, Any]:
    while "$ref" in node:
        target: Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def _plain(schema: Any) -> Any:
    """A schema without its documentation keys (``properties`` keep every field name, and an
    ``x-sdk-*`` rule is data kept whole: its ``description`` labels the sandbox's refusal)."""
    if isinstance(schema, Mapping):
        return {
            key: (
                {name: _plain(value) for name, value in schema[key].items()}
                if key == "properties"
                else value
                if key.startswith("x-sdk-")
                else _plain(value)
            )
            for key, value in schema.items()
            if key not in DROPPED_KEYS or key == "properties"
        }
    if isinstance(schema, list):
        return [_plain(value) for value in schema]
    return schema


def render_schemas(table: Mapping[str, Any]) -> str:
    return (
        template_environment()
        .get_template("schemas.py.jinja2")
        .render(**{k: repr(v) for k, v in table.items()})
    )
