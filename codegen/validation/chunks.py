"""The checks of ``x-sdk-chunks``: the body arrays a call is cut along, and the chunk's size."""

from __future__ import annotations

from collections.abc import Iterator

from codegen.source import Problem, pointer
from codegen.validation.nodes import Node, resolved

CHUNK_KEYS = ("field", "size", "aligned", "across", "concurrent")


def chunks(document: Node, node: Node, at: str) -> Iterator[Problem]:
    """``x-sdk-chunks``: the arrays it cuts are array properties of the JSON body, the size a
    positive integer (taken from the body's ``x-sdk-max-product-items`` over ``field`` and
    ``across`` when left out, and never above it), ``concurrent`` a boolean."""
    where = at + pointer("x-sdk-chunks")
    rule = node["x-sdk-chunks"]
    if not isinstance(rule, dict) or not isinstance(rule.get("field"), str):
        yield Problem(where, "x-sdk-chunks needs `field`: the body array cut into chunks")
        return
    for key in rule:
        if key not in CHUNK_KEYS:
            yield Problem(
                where + pointer(key), f"unknown key {key!r}; x-sdk-chunks reads {', '.join(CHUNK_KEYS)}"
            )
    media = (resolved(document, node.get("requestBody")).get("content") or {}).get("application/json") or {}
    body = resolved(document, media.get("schema") if isinstance(media, dict) else None)
    properties = body.get("properties") or {}
    across = rule.get("across")
    aligned = rule.get("aligned", [])
    if not isinstance(aligned, list):
        yield Problem(where + pointer("aligned"), "must be a list of body arrays cut in step with `field`")
        aligned = []
    for name in [rule["field"], *aligned, *([across] if across is not None else [])]:
        if not isinstance(name, str) or resolved(document, properties.get(name)).get("type") != "array":
            yield Problem(
                where, f"x-sdk-chunks names {name!r}, which is not an array property of the JSON body"
            )
    if not isinstance(rule.get("concurrent", False), bool):
        yield Problem(where + pointer("concurrent"), "must be true or false")
    yield from _chunk_size(rule, body, where)


def _chunk_size(rule: Node, body: Node, where: str) -> Iterator[Problem]:
    product = body.get("x-sdk-max-product-items")
    limit = product.get("maximum") if isinstance(product, dict) else None
    crossed = isinstance(product, dict) and set(product.get("fields") or ()) == {
        rule["field"],
        rule.get("across"),
    }
    size = rule.get("size", limit if crossed else None)
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        yield Problem(
            where,
            "x-sdk-chunks needs a positive integer `size` (or `across` with the body's "
            "x-sdk-max-product-items over `field` and `across`, whose maximum it then is)",
        )
    elif crossed and isinstance(limit, int) and size > limit:
        yield Problem(
            where + pointer("size"), f"{size} exceeds the body's x-sdk-max-product-items maximum {limit}"
        )
