"""The sandbox's own reading of a request against the spec, as Django REST framework refuses one.

The rules come from the spec as data (``REQUESTS`` in ``_generated/schemas.py``: each parameter's
schema and serialization, the body's JSON Schema with its ``x-sdk-*`` rules) and are checked with
``jsonschema``, an implementation that shares nothing with the client's argument checks: a bug in
those is caught here, the way the real service would catch it. Only the ``x-sdk-*`` rules, which
JSON Schema cannot say, are checked by hand below; the schemas themselves are made in
``_request_schemas``.

A path parameter breaking its schema is 404 (no such resource); anything else is 400 with errors
by field (``{"field": ["message"]}``), worded as DRF words them.

``jsonschema`` is imported only when a first operation needs checking (one without a stateful
handler): it would add about half again to the sandbox's import time, for nothing when every
operation has its handler.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from multidict import MultiMapping

from .._spec import Operation
from ._parsing import json_object
from ._replies import ApiError, not_found
from ._request_schemas import validator

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = ["RequestCheck"]

NON_FIELD: Final = "non_field_errors"
"""DRF's key for an error of the whole object (a rule between fields)."""
_SEPARATORS: Final = {"form": ",", "simple": ",", "spaceDelimited": " ", "pipeDelimited": "|"}
_TRUE: Final = frozenset({"true", "True", "1"})
_FALSE: Final = frozenset({"false", "False", "0"})
_INTEGER: Final = re.compile(r"^[-+]?\d+$")
_TYPE_ERRORS: Final = {
    "integer": "A valid integer is required.",
    "number": "A valid number is required.",
    "string": "Not a valid string.",
    "boolean": "Must be a valid boolean.",
}


def _first(errors: Iterable[ValidationError]) -> ValidationError | None:
    """The error that explains a failure best (jsonschema's ``best_match``)."""
    from jsonschema.exceptions import best_match

    found: ValidationError | None = best_match(errors)
    return found


class _UnreadableError(Exception):
    """A query or path value that cannot be read as its schema's type."""


class RequestCheck:
    """One operation's request rules, compiled once; ``check`` refuses a request breaking them.

    ``description`` is the operation's entry of ``REQUESTS`` (``described(operation)`` for a table
    built by hand); the query parameters a listing pages by are left to the paginator, which
    answers for them as DRF's does (404 for a page that does not exist).
    """

    def __init__(
        self, operation: Operation[Any], description: Mapping[str, Any], components: Mapping[str, Any]
    ) -> None:
        pagination = operation.pagination
        paging = (
            {pagination.page_param, pagination.offset_param, pagination.size_param} if pagination else set()
        )
        self.parameters = [
            _Parameter(parameter, components)
            for parameter in description.get("parameters", ())
            if parameter["name"] not in paging
        ]
        body = description.get("body")
        self.body = None if body is None else validator(body, components)

    def check(
        self, params: Mapping[str, str], query: MultiMapping[str], raw: bytes, content_type: str
    ) -> None:
        """Raise ``ApiError`` (404 for a path parameter, else 400 or 415) for a request the spec
        refuses; return for one it accepts."""
        for parameter in self.parameters:
            if parameter.location == "path" and parameter.refusal(params.get(parameter.name)) is not None:
                raise not_found()
        errors = {}
        for parameter in self.parameters:
            if parameter.location == "query":
                refusal = parameter.refusal(_query_value(parameter, query))
                if refusal is not None:
                    errors[parameter.name] = [refusal]
        if errors:
            raise ApiError(400, errors)
        if self.body is not None:
            _check_body(self.body, json_object(raw, content_type))


# ---------------------------------------------------------------------------------- parameters


class _Parameter:
    """A path or query parameter: how it is written in the URL, and its schema."""

    def __init__(self, parameter: Mapping[str, Any], components: Mapping[str, Any]) -> None:
        self.name: str = parameter["name"]
        self.location: str = parameter["in"]
        self.required = bool(parameter.get("required"))
        self.explode = bool(parameter.get("explode", True))
        self.separator = _SEPARATORS.get(parameter.get("style", "form"), ",")
        self.validator = validator(parameter.get("schema", {}), components)
        self.schema: Mapping[str, Any] = self.validator.schema

    def refusal(self, texts: Sequence[str] | str | None) -> str | None:
        """Why the parameter's text breaks its rule (None: it is fine)."""
        if texts is None or texts == "" or texts == []:
            return "This field is required." if self.required else None
        try:
            value = self._read(texts)
        except _UnreadableError as unreadable:
            return str(unreadable)
        if self.validator.is_valid(value):  # the common case, without building errors
            return None
        error = _first(self.validator.iter_errors(value))
        if error is None:
            return None
        return next(_explained(error))[1]

    def _read(self, texts: Sequence[str] | str) -> Any:
        if _kind(self.schema) != "array":
            return _scalar(texts if isinstance(texts, str) else texts[-1], self.schema)
        parts = [texts] if isinstance(texts, str) else list(texts)
        if not self.explode:
            parts = [item for part in parts for item in part.split(self.separator)]
        items = self.schema.get("items", {})
        return [_scalar(part, items) for part in parts if part != ""]


def _query_value(parameter: _Parameter, query: MultiMapping[str]) -> list[str] | None:
    """Every value the query gives the parameter (an empty one counts as none, as django-filter
    reads it)."""
    values = [value for value in query.getall(parameter.name, []) if value != ""]
    return values or None


def _scalar(text: str, schema: Mapping[str, Any]) -> Any:
    """A parameter's text as the JSON value its schema describes."""
    kind = _kind(schema)
    if kind == "integer":
        if not _INTEGER.match(text.strip()):
            raise _UnreadableError(_TYPE_ERRORS["integer"])
        return int(text)
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise _UnreadableError(_TYPE_ERRORS["number"]) from None
        if not math.isfinite(number):
            raise _UnreadableError(_TYPE_ERRORS["number"])
        return number
    if kind == "boolean":
        if text not in _TRUE | _FALSE:
            raise _UnreadableError(_TYPE_ERRORS["boolean"])
        return text in _TRUE
    return text


def _kind(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [name for name in kind if name != "null"]
        return kinds[0] if kinds else "null"
    return str(kind) if kind is not None else "string"


# ---------------------------------------------------------------------------------- bodies


def _check_body(validator: Any, body: dict[str, Any]) -> None:
    """Field rules first, then the ``x-sdk-*`` rules between fields (DRF's ``validate``)."""
    if not validator.is_valid(body):  # only a refusal needs its errors built
        errors = _by_field(found for error in validator.iter_errors(body) for found in _explained(error))
        if errors:
            raise ApiError(400, errors)
    errors = _by_field(_limits(validator.schema, body, []))
    if errors:
        raise ApiError(400, errors)


def _by_field(found: Iterator[tuple[list[Any], str]]) -> dict[str, list[str]]:
    """Errors keyed by top-level field, one message each (DRF stops at a field's first failure),
    with the place inside the field leading the message; rules between fields (``non_field_errors``)
    only when every field is valid, as DRF runs ``validate`` last."""
    errors: dict[str, list[str]] = {}
    for location, message in found:
        key = str(location[0]) if location else NON_FIELD
        inside = _place(location[1:])
        errors.setdefault(key, [f"{inside}: {message}" if inside else message])
    if len(errors) > 1:
        errors.pop(NON_FIELD, None)
    return errors


def _place(location: Sequence[Any]) -> str:
    return ", ".join(f"Item {part}" if isinstance(part, int) else str(part) for part in location)


def _explained(error: ValidationError) -> Iterator[tuple[list[Any], str]]:
    """Where an error lies (the path of fields and item indexes) and DRF's words for it."""
    location = list(error.absolute_path)
    rule = error.validator
    value: Any = error.validator_value
    instance: Any = error.instance
    if rule == "required":
        yield from (([*location, name], "This field is required.") for name in value if name not in instance)
    elif rule == "additionalProperties":
        known = error.schema.get("properties", {}) if isinstance(error.schema, Mapping) else {}
        yield from (
            ([*location, name], "This field is not allowed.") for name in instance if name not in known
        )
    elif rule in ("anyOf", "oneOf") and _only_required(value):
        yield location, f"Give one of {_listed(name for option in value for name in option['required'])}."
    elif rule in ("anyOf", "oneOf") and error.context:
        yield from _explained(_first(error.context) or error)
    elif rule == "not" and isinstance(value, Mapping) and set(value) == {"required"}:
        yield location, f"Give only one of {_listed(value['required'])}, never more."
    else:
        yield location, _message(str(rule), value, instance, error.message)


def _message(rule: str, value: Any, instance: Any, fallback: str) -> str:
    if rule == "type":
        if instance is None:
            return "This field may not be null."
        expected = value if isinstance(value, str) else next(kind for kind in value if kind != "null")
        return _TYPE_ERRORS.get(expected, f'Expected {expected} but got type "{type(instance).__name__}".')
    if rule in ("minimum", "exclusiveMinimum"):
        return f"Ensure this value is greater than or equal to {_number(value)}."
    if rule in ("maximum", "exclusiveMaximum"):
        return f"Ensure this value is less than or equal to {_number(value)}."
    if rule == "minLength":
        return (
            "This field may not be blank."
            if value == 1
            else f"Ensure this field has at least {value} characters."
        )
    if rule == "maxLength":
        return f"Ensure this field has no more than {value} characters."
    if rule == "minItems":
        return (
            "This list may not be empty."
            if value == 1
            else f"Ensure this field has at least {value} elements."
        )
    if rule == "maxItems":
        return f"Ensure this field has no more than {value} elements."
    if rule == "format":
        return {"uuid": "Must be a valid UUID.", "email": "Enter a valid email address."}.get(
            value, f"Enter a valid {value}."
        )
    if rule in ("enum", "const"):
        return f'"{instance}" is not a valid choice.'
    if rule == "pattern":
        return "This value does not match the required pattern."
    return fallback


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _listed(names: Iterator[str] | Sequence[str]) -> str:
    return ", ".join(names)


def _only_required(options: Any) -> bool:
    """Whether a union only says which fields are required (a rule, not a choice of shapes)."""
    return isinstance(options, list) and all(
        isinstance(option, Mapping) and set(option) == {"required"} for option in options
    )


# ---------------------------------------------------------------------------------- x-sdk rules


def _limits(schema: Any, value: Any, location: list[Any]) -> Iterator[tuple[list[Any], str]]:
    """The ``x-sdk-max-combined-items`` and ``x-sdk-max-product-items`` rules ``value`` breaks,
    on its object and on every object inside it."""
    if not isinstance(schema, Mapping):
        return
    if isinstance(value, dict):
        for refusal in (_combined(schema, value), _product(schema, value)):
            if refusal:
                yield location, refusal
        properties = schema.get("properties", {})
        for name, item in value.items():
            yield from _limits(properties.get(name), item, [*location, name])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _limits(schema.get("items"), item, [*location, index])


def _combined(schema: Mapping[str, Any], value: Mapping[str, Any]) -> str | None:
    rule = schema.get("x-sdk-max-combined-items")
    if not rule:
        return None
    fields = [name for name in rule["fields"] if isinstance(value.get(name), list)]
    total = sum(len(value[name]) for name in fields)
    if total <= rule["maximum"]:
        return None
    label = f" ({rule['description']})" if rule.get("description") else ""
    return (
        f"Ensure {' and '.join(rule['fields'])} hold no more than {rule['maximum']} items together{label}; "
        f"they hold {total}."
    )


def _product(schema: Mapping[str, Any], value: Mapping[str, Any]) -> str | None:
    rule = schema.get("x-sdk-max-product-items")
    if not rule:
        return None
    lengths = [(name, len(value[name])) for name in rule["fields"] if isinstance(value.get(name), list)]
    product = math.prod(length for _, length in lengths)
    if product <= rule["maximum"]:
        return None
    label = f" ({rule['description']})" if rule.get("description") else ""
    factors = " x ".join(f"{length} {name}" for name, length in lengths)
    return f"Ensure {factors} = {product} stays within {rule['maximum']}{label}."
