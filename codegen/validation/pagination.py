"""The checks of ``x-sdk-pagination``: its keys, the envelope's fields (or a bare list) and the
query parameters it drives."""

from __future__ import annotations

from collections.abc import Iterator

from codegen.source import Problem, pointer
from codegen.validation.nodes import Node, body_schema, object_schema, resolved

PAGINATION_KEYS = (
    "items",
    "next_field",
    "count_field",
    "pages_field",
    "size_field",
    "page_param",
    "offset_param",
    "size_param",
    "bulk_size",
    "size_aliases",
)


def pagination(document: Node, node: Node, at: str) -> Iterator[Problem]:
    where = at + "/x-sdk-pagination"
    rule = node["x-sdk-pagination"]
    if not isinstance(rule, dict):
        yield Problem(where, f"x-sdk-pagination is a mapping of {', '.join(PAGINATION_KEYS)}")
        return
    for key in rule:
        if key not in PAGINATION_KEYS:
            yield Problem(
                where + pointer(key),
                f"unknown key {key!r}; x-sdk-pagination reads {', '.join(PAGINATION_KEYS)}",
            )
    success = [
        resolved(document, r) for s, r in (node.get("responses") or {}).items() if str(s).startswith("2")
    ]
    body = body_schema(document, success[0]) if success else {}
    if rule.get("items", "results") is None:
        yield from _bare_list(document, rule, body, where)
    else:
        yield from _envelope_fields(document, rule, body, where)
    yield from _driven_parameters(document, node, rule, where)
    yield from _page_size_keys(document, node, rule, where)


def _page_size_keys(document: Node, node: Node, rule: Node, where: str) -> Iterator[Problem]:
    """``bulk_size`` is a page size the size parameter allows; ``size_aliases`` are other query
    parameters of the operation, sent under ``size_param``."""
    parameters = {
        resolved(document, parameter).get("name"): resolved(document, parameter)
        for parameter in node.get("parameters") or ()
        if resolved(document, parameter).get("in") == "query"
    }
    size_param = rule.get("size_param")
    if ("bulk_size" in rule or "size_aliases" in rule) and size_param is None:
        yield Problem(where, "bulk_size and size_aliases need a size_param")
        return
    maximum = (parameters.get(size_param) or {}).get("schema", {}).get("maximum")
    bulk = rule.get("bulk_size")
    if "bulk_size" in rule and (
        not isinstance(bulk, int) or bulk < 1 or (maximum is not None and bulk > maximum)
    ):
        yield Problem(
            where + "/bulk_size", f"bulk_size must be a page size {size_param!r} allows, got {bulk!r}"
        )
    aliases = rule.get("size_aliases", [])
    if not isinstance(aliases, list):
        yield Problem(where + "/size_aliases", "size_aliases is a list of query parameter names")
        return
    for alias in aliases:
        if alias not in parameters or alias == size_param:
            yield Problem(
                where + "/size_aliases",
                f"size alias {alias!r} must be another query parameter of this operation",
            )


def _bare_list(document: Node, rule: Node, body: Node, where: str) -> Iterator[Problem]:
    if resolved(document, body).get("type") != "array":
        yield Problem(
            where + "/items",
            "`items: null` means the body is a bare list, but the 2xx response schema is not an array",
        )
    for key in ("next_field", "count_field", "pages_field", "size_field"):
        if rule.get(key) is not None:
            yield Problem(where + pointer(key), f"a bare list has no fields; drop {key}")


def _envelope_fields(document: Node, rule: Node, body: Node, where: str) -> Iterator[Problem]:
    envelope = object_schema(document, body)
    if envelope is None and "$ref" in body and not resolved(document, body):
        return  # the dangling $ref is reported by itself
    if envelope is None:
        yield Problem(
            where,
            "a paginated operation's 2xx response must be an envelope object schema ($ref it), or set "
            "`items: null` for a bare list",
        )
        return
    properties = envelope.get("properties", {})
    items = rule.get("items", "results")
    if items not in properties:
        yield Problem(
            where + "/items",
            f"the envelope has no field {items!r}; name the field holding the items "
            f"({', '.join(properties)})",
        )
    elif (
        not isinstance(resolved(document, properties[items]).get("items"), dict)
        or "$ref" not in resolved(document, properties[items])["items"]
    ):
        yield Problem(
            where + "/items",
            f"the envelope's {items!r} must be an array whose items are a $ref to a named schema",
        )
    defaults = {"next_field": "next", "count_field": "count", "pages_field": None, "size_field": None}
    for key, default in defaults.items():
        name = rule.get(key, default)
        if name is not None and name not in properties:
            yield Problem(
                where + (pointer(key) if key in rule else ""),
                f"the envelope has no field {name!r} for {key}; name the right field or set `{key}: null`",
            )


def _driven_parameters(document: Node, node: Node, rule: Node, where: str) -> Iterator[Problem]:
    query = {
        resolved(document, parameter).get("name")
        for parameter in node.get("parameters") or ()
        if resolved(document, parameter).get("in") == "query"
    }
    for key, default in (("page_param", "page"), ("offset_param", None), ("size_param", None)):
        name = rule.get(key, default)
        if name is not None and name not in query:
            yield Problem(
                where + (pointer(key) if key in rule else ""),
                f"{key} {name!r} is not a query parameter of this operation; declare it or set `{key}: null`",
            )
