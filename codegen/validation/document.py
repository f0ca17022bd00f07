"""The whole document's checks: ``$ref``s that resolve, JSON Schema types, known ``x-sdk-*``
extensions (each handed to its own check), and the document-wide lists."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any

from codegen.source import Problem, pointer
from codegen.validation.nodes import Node, resolve, walk
from codegen.validation.operations import service
from codegen.validation.schemas import (
    changes,
    combined,
    fallback_variant,
    identity_field,
    own_discriminator,
    variants,
)

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")


EXTENSIONS = (
    "x-sdk-method",
    "x-sdk-pagination",
    "x-sdk-result",
    "x-sdk-variants",
    "x-sdk-fallback-variant",
    "x-sdk-max-combined-items",
    "x-sdk-internal",
    "x-sdk-computed",
    "x-sdk-max-product-items",
    "x-sdk-wire",
    "x-sdk-retry",
    "x-sdk-identity",
    "x-sdk-identity-field",
    "x-sdk-changes",
    "x-sdk-json-fallback",
    "x-sdk-retry-statuses",
    "x-sdk-request-id-headers",
    "x-sdk-request-id-placeholders",
    "x-sdk-request-id-header",
    "x-sdk-past-last-page",
    "x-sdk-empty-result",
    "x-sdk-chunks",
    "x-sdk-services",
    "x-sdk-service",
    "x-sdk-argument",
    "x-sdk-job-results",
    "x-sdk-limit-refusal",
    "x-sdk-type-name",
)


def references(document: Node) -> Iterator[Problem]:
    for at, node in walk(document):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if ref is None:
            continue
        if not isinstance(ref, str) or not ref.startswith("#/"):
            yield Problem(f"{at}/$ref", f"$ref {ref!r} is not local; only `#/...` references are supported")
        elif resolve(document, ref) is None:
            yield Problem(f"{at}/$ref", _dangling(document, ref))


def _dangling(document: Node, ref: str) -> str:
    parent, _, name = ref.rpartition("/")
    siblings = resolve(document, parent) if parent != "#" else document
    close = difflib.get_close_matches(name, list(siblings or ()), n=1)
    hint = f" (did you mean {parent}/{close[0]}?)" if close else f"; define {name!r} under {parent[2:]}"
    return f"$ref {ref!r} points to nothing{hint}"


def types(document: Node) -> Iterator[Problem]:
    for at, node in walk(document):
        if not isinstance(node, dict) or "/securitySchemes/" in at:
            continue
        kinds = node.get("type")
        for kind in kinds if isinstance(kinds, list) else [kinds]:
            if isinstance(kind, str) and kind not in JSON_TYPES:
                close = difflib.get_close_matches(kind, JSON_TYPES, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                yield Problem(
                    f"{at}/type", f"unknown type {kind!r}; {hint}use one of {', '.join(JSON_TYPES)}"
                )


def extensions(document: Node) -> Iterator[Problem]:
    for at, node in walk(document):
        if not isinstance(node, dict):
            continue
        for key in node:
            if isinstance(key, str) and key.startswith("x-sdk-") and key not in EXTENSIONS:
                known = ", ".join(EXTENSIONS)
                yield Problem(at + pointer(key), f"unknown extension {key!r}; the generator reads {known}")
        if "x-sdk-max-combined-items" in node:
            yield from combined(node, at)
        if "x-sdk-variants" in node:
            yield from variants(document, node, at)
        if "x-sdk-fallback-variant" in node:
            yield from fallback_variant(node, at)
        if "x-sdk-service" in node:
            yield from service(document, node, at)
        if "x-sdk-identity-field" in node:
            yield from identity_field(document, node, at)
        if "x-sdk-changes" in node:
            yield from changes(document, node, at)
        if "discriminator" in node and not (node.get("oneOf") or node.get("anyOf")):
            yield from own_discriminator(node, at)


def top_level(document: Node) -> Iterator[Problem]:
    """The document-wide lists: retry statuses are HTTP statuses, request-id headers are names."""
    statuses = document.get("x-sdk-retry-statuses", [])
    if not isinstance(statuses, list) or not all(_is_status(status) for status in statuses):
        yield Problem(pointer("x-sdk-retry-statuses"), "must be a list of HTTP statuses, e.g. [429]")
    headers = document.get("x-sdk-request-id-headers", [])
    if not isinstance(headers, list) or not all(isinstance(name, str) and name for name in headers):
        yield Problem(
            pointer("x-sdk-request-id-headers"), "must be a list of header names, e.g. [x-amzn-RequestId]"
        )
    placeholders = document.get("x-sdk-request-id-placeholders", [])
    if not isinstance(placeholders, list) or not all(isinstance(value, str) for value in placeholders):
        yield Problem(pointer("x-sdk-request-id-placeholders"), 'must be a list of texts, e.g. ["-", "none"]')
    sent = document.get("x-sdk-request-id-header")
    if sent is not None and not (isinstance(sent, str) and sent.strip() and " " not in sent):
        yield Problem(pointer("x-sdk-request-id-header"), "must be a header name, e.g. X-Request-ID")
    yield from _past_last_page(document)


def _past_last_page(document: Node) -> Iterator[Problem]:
    """``x-sdk-past-last-page``: the 4xx status, and the detail, of the answer to a page past the last."""
    if "x-sdk-past-last-page" not in document:
        return
    answer = document["x-sdk-past-last-page"]
    status = answer.get("status") if isinstance(answer, dict) else None
    detail = answer.get("detail") if isinstance(answer, dict) else None
    a_4xx = _is_status(status) and 400 <= status < 500
    if not isinstance(answer, dict) or set(answer) - {"status", "detail"} or not a_4xx:
        yield Problem(
            pointer("x-sdk-past-last-page"),
            'must be a mapping of a 4xx `status` and a `detail`, e.g. {status: 404, detail: "Invalid page."}',
        )
    elif detail is not None and (not isinstance(detail, str) or not detail):
        yield Problem(
            pointer("x-sdk-past-last-page", "detail"),
            "the answer's error detail is a non-empty string (or null: any body of that status)",
        )


def _is_status(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599
