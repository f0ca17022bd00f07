"""The JSON Schema a request is checked against, as ``jsonschema`` reads it.

One job: turn an operation's request description into validators. A description comes from the
spec (``REQUESTS`` in ``_generated/schemas.py``), or is written here from the rules of a table
built by hand (``described``); ``validator`` inlines its references and writes every
``x-sdk-wire`` object in the form it travels in. ``_request_validation`` checks requests with them.

``jsonschema`` is imported only when a first validator is made (see ``_request_validation``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Final

from .._spec import AtLeastOneOf, MaxCombinedItems, MaxProductItems, NeverTogether, Operation, Rule
from ._parsing import is_email, valid_uuid

__all__ = ["COMPONENT_PREFIX", "described", "validator"]

COMPONENT_PREFIX: Final = "#/components/schemas/"


def _string_check(check: Any) -> Any:
    return lambda value: not isinstance(value, str) or check(value)


@functools.cache
def _formats() -> Any:
    """Formats as the services read them: a hyphenated uuid, an address with one @ and a dotted
    domain (jsonschema's own defaults for the others)."""
    import jsonschema

    formats = jsonschema.FormatChecker()
    formats.checks("uuid")(_string_check(valid_uuid))
    formats.checks("email")(_string_check(is_email))
    return formats


def validator(schema: Mapping[str, Any], components: Mapping[str, Any]) -> Any:
    """A validator of ``schema`` with its references followed and every ``x-sdk-wire`` object in
    the form it travels in; what is left as a reference (a cycle) resolves among ``components``."""
    import jsonschema

    document = {**_inlined(schema, components, ()), "components": {"schemas": components}}
    return jsonschema.Draft202012Validator(document, format_checker=_formats())


def _inlined(schema: Any, components: Mapping[str, Any], trail: tuple[str, ...]) -> Any:
    if isinstance(schema, list):
        return [_inlined(item, components, trail) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(COMPONENT_PREFIX):
        name = ref.removeprefix(COMPONENT_PREFIX)
        if name in trail or name not in components:
            return dict(schema)
        target = _inlined(components[name], components, (*trail, name))
        rest = {key: item for key, item in schema.items() if key != "$ref"}
        return {"allOf": [target, _inlined(rest, components, trail)]} if rest else target
    result = {
        key: item if key.startswith("x-sdk-") else _inlined(item, components, trail)
        for key, item in schema.items()
    }
    wire = result.get("x-sdk-wire")
    return _wire_form(result, wire) if isinstance(wire, Mapping) else result


def _wire_form(schema: Mapping[str, Any], wire: Mapping[str, str]) -> dict[str, Any]:
    """An object of alternative fields as it travels (``x-sdk-wire``): ``{name_field: one of the
    fields, value_field: a value valid for that field}`` and nothing else."""
    name, value = wire["name_field"], wire["value_field"]
    properties: Mapping[str, Any] = schema.get("properties", {})
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [name, value],
        "properties": {name: {"enum": list(properties)}, value: {}},
        "allOf": [
            {
                "if": {"properties": {name: {"const": field}}, "required": [name]},
                "then": {"properties": {value: rule}},
            }
            for field, rule in properties.items()
        ],
        "x-sdk-wire": dict(wire),
    }


def described(operation: Operation[Any]) -> dict[str, Any]:
    """The request description of an operation of a table built by hand (no ``REQUESTS`` entry),
    written from its parameters and body rule in the same JSON Schema the generator writes."""
    parameters = [
        {
            "name": param.name,
            "in": param.location,
            "required": param.required or param.location == "path",
            "style": "form" if param.location == "query" else "simple",
            "explode": param.explode,
            "schema": _schema_of(param.rule),
        }
        for param in operation.params
    ]
    body = None if operation.body is None else _schema_of(operation.body)
    return {"parameters": parameters, "body": body}


def _schema_of(rule: Rule) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    if rule.kind != "any":
        schema["type"] = [rule.kind, "null"] if rule.nullable else rule.kind
    keywords = {
        "format": rule.format,
        "const": rule.const,
        "minimum": rule.minimum,
        "maximum": rule.maximum,
        "minLength": rule.min_length,
        "pattern": rule.pattern,
        "minItems": rule.min_items,
        "maxItems": rule.max_items,
    }
    schema.update({key: value for key, value in keywords.items() if value is not None})
    if rule.items is not None:
        schema["items"] = _schema_of(rule.items)
    if rule.properties:
        schema["properties"] = {name: _schema_of(item) for name, item in rule.properties.items()}
    if rule.required:
        schema["required"] = sorted(rule.required)
    if rule.closed:
        schema["additionalProperties"] = False
    if rule.wire is not None:
        schema["x-sdk-wire"] = {"name_field": rule.wire.name_field, "value_field": rule.wire.value_field}
    for check in rule.checks:
        schema.update(_check_schema(check))
    return schema


def _check_schema(check: Any) -> dict[str, Any]:
    if isinstance(check, NeverTogether):
        return {"not": {"required": list(check.fields)}}
    if isinstance(check, AtLeastOneOf):
        return {"anyOf": [{"required": [name]} for name in check.fields]}
    key = "x-sdk-max-combined-items" if isinstance(check, MaxCombinedItems) else "x-sdk-max-product-items"
    assert isinstance(check, (MaxCombinedItems, MaxProductItems))
    return {key: {"fields": list(check.fields), "maximum": check.maximum, "description": check.label}}
