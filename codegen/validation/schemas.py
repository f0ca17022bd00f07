"""The checks of a schema's extensions: a model's own ``discriminator``, ``x-sdk-identity-field``,
``x-sdk-changes``, ``x-sdk-max-combined-items``, and a union's ``x-sdk-variants`` and
``x-sdk-fallback-variant``."""

from __future__ import annotations

import string
from collections.abc import Iterator

from codegen.source import Problem, pointer
from codegen.validation.nodes import Node, resolve, resolved


def own_discriminator(node: Node, at: str) -> Iterator[Problem]:
    """A ``discriminator`` on a model schema (the types one model stands for): its property is one
    of the schema's, and every mapping value is the schema itself."""
    discriminator = node["discriminator"]
    name = discriminator.get("propertyName") if isinstance(discriminator, dict) else None
    if name not in (node.get("properties") or {}):
        yield Problem(
            at + pointer("discriminator"), f"propertyName {name!r} is not a property of this schema"
        )
    mapping = discriminator.get("mapping") if isinstance(discriminator, dict) else None
    for value, ref in (mapping or {}).items():
        if ref != f"#{at}":
            where = at + pointer("discriminator") + pointer("mapping") + pointer(value)
            yield Problem(where, f"maps to {ref!r}; a model's own discriminator maps every type to #{at}")


def identity_field(document: Node, node: Node, at: str) -> Iterator[Problem]:
    """``x-sdk-identity-field``: a property of the schema, or of every variant of a union (the
    field a listing's cursor names its last item by); or ``{field, fallbacks}``, the fallbacks
    templates (``"{content_type}:{key}"``) whose every placeholder is a property of some variant."""
    value = node["x-sdk-identity-field"]
    where = at + pointer("x-sdk-identity-field")
    name = value.get("field") if isinstance(value, dict) else value
    variants = [resolved(document, variant) for variant in node.get("anyOf") or node.get("oneOf") or ()]
    for schema in variants or [node]:
        if not isinstance(name, str) or name not in (schema.get("properties") or {}):
            yield Problem(where, f"{name!r} is not a property of every variant")
            return
    fallbacks = value.get("fallbacks", []) if isinstance(value, dict) else []
    known = {key for schema in variants or [node] for key in schema.get("properties") or {}}
    if not isinstance(fallbacks, list) or not all(isinstance(text, str) for text in fallbacks):
        yield Problem(where + pointer("fallbacks"), "must be a list of templates ('{content_type}:{key}')")
        return
    for text in fallbacks:
        names = [part[1] for part in string.Formatter().parse(text) if part[1] is not None]
        unknown = [part for part in names if part not in known]
        if not names or unknown:
            yield Problem(where + pointer("fallbacks"), f"{text!r} names no property, or unknown {unknown}")


def changes(document: Node, node: Node, at: str) -> Iterator[Problem]:
    """``x-sdk-changes``: ``identity``, templates (``"{content_type}:{key}"``) whose every
    placeholder is a property of some variant, and ``not_content``, properties of some variant."""
    value = node["x-sdk-changes"]
    where = at + pointer("x-sdk-changes")
    if not isinstance(value, dict) or not value.get("identity"):
        yield Problem(where, "needs `identity`: a list of templates ('{content_type}:{key}')")
        return
    variants = [resolved(document, variant) for variant in node.get("anyOf") or node.get("oneOf") or ()]
    known = {key for schema in variants or [node] for key in schema.get("properties") or {}}
    templates, ignored = value.get("identity"), value.get("not_content", [])
    if not isinstance(templates, list) or not all(isinstance(text, str) for text in templates):
        yield Problem(where + pointer("identity"), "must be a list of templates ('{content_type}:{key}')")
        return
    for text in templates:
        names = [part[1] for part in string.Formatter().parse(text) if part[1] is not None]
        unknown = [part for part in names if part not in known]
        if not names or unknown:
            yield Problem(where + pointer("identity"), f"{text!r} names no property, or unknown {unknown}")
    if not isinstance(ignored, list) or any(name not in known for name in ignored):
        yield Problem(where + pointer("not_content"), f"must list properties of the items, got {ignored!r}")


def combined(schema: Node, at: str) -> Iterator[Problem]:
    rule = schema["x-sdk-max-combined-items"]
    where = at + pointer("x-sdk-max-combined-items")
    if not isinstance(rule, dict) or not isinstance(rule.get("maximum"), int) or not rule.get("fields"):
        yield Problem(where, "x-sdk-max-combined-items needs `fields: [array, ...]` and an integer `maximum`")
        return
    properties = schema.get("properties", {})
    for name in rule["fields"]:
        if properties.get(name, {}).get("type") != "array":
            yield Problem(
                where, f"x-sdk-max-combined-items names {name!r}, which is not an array property here"
            )


def variants(document: Node, schema: Node, at: str) -> Iterator[Problem]:
    where = at + pointer("x-sdk-variants")
    options = [option.get("$ref", "") for option in schema.get("oneOf") or schema.get("anyOf") or ()]
    names = {ref.rpartition("/")[2]: ref for ref in options}
    markers = schema["x-sdk-variants"]
    if not isinstance(markers, dict):
        yield Problem(where, "x-sdk-variants maps a variant's schema name to fields only it carries")
        return
    for name, fields in markers.items():
        if name not in names:
            yield Problem(
                where + pointer(name), f"{name!r} is not a $ref variant of this union ({', '.join(names)})"
            )
            continue
        properties = (resolve(document, names[name]) or {}).get("properties", {})
        for field_name in [fields] if isinstance(fields, str) else fields or ():
            if field_name not in properties:
                yield Problem(
                    where + pointer(name), f"{name} has no field {field_name!r}; name one of its properties"
                )


def fallback_variant(schema: Node, at: str) -> Iterator[Problem]:
    options = [option.get("$ref", "") for option in schema.get("oneOf") or schema.get("anyOf") or ()]
    names = [ref.rpartition("/")[2] for ref in options]
    fallback = schema["x-sdk-fallback-variant"]
    if fallback not in names:
        yield Problem(
            at + pointer("x-sdk-fallback-variant"),
            f"{fallback!r} is not a $ref variant of this union ({', '.join(names)})",
        )
