"""What every check of the spec walks and reads: its nodes, with their pointers, and ``$ref``s
followed to what they point to."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from codegen.source import pointer

Node = Mapping[str, Any]


DATA_KEYS = ("example", "examples", "default", "enum", "const")
"""Keys whose values are data, not spec: nothing inside them is checked."""


def walk(node: Any, at: str = "") -> Iterator[tuple[str, Any]]:
    """Every (pointer, node) of the document, skipping data (examples, defaults, enums)."""
    yield at, node
    if isinstance(node, dict):
        for key, value in node.items():
            if key not in DATA_KEYS:
                yield from walk(value, at + pointer(key))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from walk(item, f"{at}/{index}")


def resolve(document: Node, ref: str) -> Any:
    """The node a local ``$ref`` points to, or None."""
    node: Any = document
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def resolved(document: Node, node: Any) -> Node:
    """``node`` with its ``$ref`` chain followed; an empty mapping where it dangles."""
    for _ in range(32):
        if not isinstance(node, dict) or "$ref" not in node:
            break
        node = resolve(document, str(node["$ref"])) if str(node["$ref"]).startswith("#/") else None
    return node if isinstance(node, dict) else {}


def body_schema(document: Node, response: Node) -> Node:
    content = response.get("content") or {}
    media = content.get("application/json") or next(iter(content.values()), None)
    schema = media.get("schema") if isinstance(media, dict) else None
    return schema if isinstance(schema, dict) else {}


def object_schema(document: Node, schema: Node) -> Node | None:
    """The object schema of a body (or of its single object variant)."""
    schema = resolved(document, schema)
    if "properties" in schema:
        return schema
    objects = [
        resolved(document, variant)
        for variant in schema.get("oneOf") or schema.get("anyOf") or ()
        if "properties" in resolved(document, variant)
    ]
    return objects[0] if len(objects) == 1 else None
