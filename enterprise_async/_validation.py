"""Check a call's arguments against the rules of its operation, before anything is sent.

The rules are the spec's (``Rule`` and ``Check`` in ``_spec``); this module only knows how to
read them. Every failure is a ``ClientValidationError`` naming the argument as a path
(``learner_emails[2]``, ``filters[0].status_in``).
"""

from __future__ import annotations

import math
import re
import typing
import uuid
from collections.abc import Mapping
from typing import Any

import attrs

from ._decoding import to_dict
from ._enum import OpenEnum
from ._spec import (
    AtLeastOneOf,
    Check,
    MaxCombinedItems,
    MaxProductItems,
    NeverTogether,
    Operation,
    Rule,
)
from .errors import ClientValidationError

__all__ = ["validate_arguments", "as_wire_object"]

# Deliberately simple: one @, a dot in the domain, no blanks. The server has the last word.
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")


class _InvalidArgumentError(Exception):
    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message


def validate_arguments(operation: Operation[Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Check every argument; return the body fields that were given, as wire data (None left out)."""
    try:
        for param in operation.params:
            value = arguments.get(param.name)
            if value is None:
                if param.required:
                    raise _InvalidArgumentError(param.name, "is required")
                continue
            _check(param.rule, value, param.name)
        _check_page_size_aliases(operation, arguments)
        if operation.body is None:
            return {}
        body = {
            name: arguments[name] for name in operation.body.properties if arguments.get(name) is not None
        }
        _check_object(operation.body, body, "")
        return typing.cast(dict[str, Any], _wire(body, operation.body))
    except _InvalidArgumentError as invalid:
        raise ClientValidationError(
            invalid.path or "body", invalid.message, operation=operation.name
        ) from None


def _check_page_size_aliases(operation: Operation[Any], arguments: Mapping[str, Any]) -> None:
    """The page size and its aliases (``limit`` for ``page_size``) travel as one parameter: one of them."""
    pagination = operation.pagination
    if pagination is None or pagination.size_param is None:
        return
    names = (pagination.size_param, *pagination.size_aliases)
    given = [name for name in names if arguments.get(name) is not None]
    if len(given) > 1:
        raise _InvalidArgumentError(given[1], f"gives the page size again; give one of {', '.join(names)}")


def as_wire_object(value: Any) -> dict[str, Any]:
    """A model or mapping given as an argument, as the JSON object to send (None fields left out)."""
    data = to_dict(value) if attrs.has(type(value)) else dict(value)
    return {key: item for key, item in data.items() if item is not None}


def _wire(value: Any, rule: Rule | None = None) -> Any:
    """A checked value as the service reads it, following the rule's wire forms (``NamedValue``)."""
    if isinstance(value, OpenEnum):
        return value.value
    if attrs.has(type(value)) or isinstance(value, Mapping):
        return _wire_object(value, rule)
    if isinstance(value, (list, tuple)):
        items = rule.items if rule is not None else None
        return [_wire(item, items) for item in value]
    return value


def _wire_object(value: Any, rule: Rule | None) -> dict[str, Any]:
    data = as_wire_object(value)
    if rule is None:
        return {key: _wire(item) for key, item in data.items()}
    public = _public_form(rule, data)
    wired = {key: _wire(item, rule.properties.get(key)) for key, item in public.items()}
    if rule.wire is None:
        return wired
    (name, item), *_ = wired.items()  # one field: NeverTogether and AtLeastOneOf were checked
    return {rule.wire.name_field: name, rule.wire.value_field: item}


def _public_form(rule: Rule, value: Mapping[str, Any]) -> Mapping[str, Any]:
    """An object given in its wire form (``{"name": "user_email", "filter_value": "al"}``) read
    back to the public form the rules describe (``{"user_email": "al"}``)."""
    wire = rule.wire
    if wire is None or set(value) != {wire.name_field, wire.value_field}:
        return value
    name = value[wire.name_field]
    if not isinstance(name, str) or name not in rule.properties:
        known = ", ".join(repr(known) for known in rule.properties)
        raise _InvalidArgumentError(wire.name_field, f"{name!r} is not a filter here (known: {known})")
    return {name: value[wire.value_field]}


def _join(path: str, step: str) -> str:
    if step.startswith("["):
        return f"{path}{step}"
    return f"{path}.{step}" if path else step


def _check(rule: Rule, value: Any, path: str) -> None:
    if value is None:
        if rule.nullable:
            return
        raise _InvalidArgumentError(path, "may not be None; leave it out instead")
    checker = _CHECKERS.get(rule.kind)
    if checker is not None:
        checker(rule, value, path)


def _check_string(rule: Rule, value: Any, path: str) -> None:
    if not isinstance(value, str):
        raise _InvalidArgumentError(path, f"expected a string, got {type(value).__name__}")
    if rule.min_length is not None and len(value.strip()) < rule.min_length:
        raise _InvalidArgumentError(
            path, "may not be blank" if rule.min_length == 1 else f"needs {rule.min_length}+ characters"
        )
    if rule.const is not None and value != rule.const:
        raise _InvalidArgumentError(path, f"must be {rule.const!r}")
    if rule.pattern is not None and not re.search(rule.pattern, value):
        raise _InvalidArgumentError(path, f"{value!r} does not match {rule.pattern!r}")
    _check_format(rule.format, value, path)


def _check_format(format_: str | None, value: str, path: str) -> None:
    if format_ == "uuid":
        try:
            uuid.UUID(value)
        except ValueError:
            raise _InvalidArgumentError(path, f"{value!r} is not a UUID") from None
    elif format_ == "email" and not _EMAIL.match(value):
        raise _InvalidArgumentError(path, f"{value!r} is not an e-mail address")


def _check_integer(rule: Rule, value: Any, path: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _InvalidArgumentError(path, f"expected an integer, got {type(value).__name__}")
    _check_minimum(rule, value, path)


def _check_number(rule: Rule, value: Any, path: str) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise _InvalidArgumentError(path, f"expected a number, got {type(value).__name__}")
    _check_minimum(rule, value, path)


def _check_minimum(rule: Rule, value: float, path: str) -> None:
    if rule.minimum is not None and value < rule.minimum:
        raise _InvalidArgumentError(path, f"must be >= {rule.minimum:g}, got {value}")
    if rule.maximum is not None and value > rule.maximum:
        raise _InvalidArgumentError(path, f"must be <= {int(rule.maximum)}, got {value}")


def _check_boolean(rule: Rule, value: Any, path: str) -> None:
    if not isinstance(value, bool):
        raise _InvalidArgumentError(path, f"expected True or False, got {type(value).__name__}")


def _check_array(rule: Rule, value: Any, path: str) -> None:
    if not isinstance(value, (list, tuple)):
        raise _InvalidArgumentError(path, f"expected a list, got {type(value).__name__}")
    if rule.min_items is not None and len(value) < rule.min_items:
        raise _InvalidArgumentError(
            path, f"needs at least {rule.min_items} item{'s' * (rule.min_items != 1)}"
        )
    if rule.max_items is not None and len(value) > rule.max_items:
        raise _InvalidArgumentError(path, f"takes at most {rule.max_items} items, got {len(value)}")
    if rule.items is not None:
        for index, item in enumerate(value):
            _check(rule.items, item, _join(path, f"[{index}]"))


def _check_object(rule: Rule, value: Any, path: str) -> None:
    if rule.model is not None and isinstance(value, rule.model):
        value = as_wire_object(value)
    if not isinstance(value, Mapping):
        expected = rule.model.__name__ if rule.model else "a mapping"
        raise _InvalidArgumentError(path, f"expected {expected}, got {type(value).__name__}")
    try:
        value = _public_form(rule, value)
    except _InvalidArgumentError as invalid:
        raise _InvalidArgumentError(_join(path, invalid.path), invalid.message) from None
    if rule.closed and (unknown := sorted(set(value) - set(rule.properties))):
        raise _InvalidArgumentError(
            _join(path, str(unknown[0])), f"is not a field here (known: {', '.join(rule.properties)})"
        )
    for name in sorted(rule.required):
        if value.get(name) is None:
            raise _InvalidArgumentError(_join(path, name), "is required")
    for name, item in value.items():
        if name in rule.properties:
            _check(rule.properties[name], item, _join(path, name))
    for check in rule.checks:
        _apply(check, value, path)


def _apply(check: Check, value: Mapping[str, Any], path: str) -> None:
    given = [name for name in check.fields if value.get(name) is not None]
    if isinstance(check, NeverTogether) and len(given) > 1:
        raise _InvalidArgumentError(_join(path, given[1]), f"give {' or '.join(check.fields)}, never both")
    if isinstance(check, AtLeastOneOf) and not given:
        raise _InvalidArgumentError(path or check.fields[0], f"give one of {', '.join(check.fields)}")
    if isinstance(check, MaxCombinedItems):
        total = sum(len(value[name]) for name in given)
        if total > check.maximum:
            label = check.label or " + ".join(check.fields)
            raise _InvalidArgumentError(
                _join(path, given[0]),
                f"{label}: {total} exceeds the limit of {check.maximum} ({' + '.join(check.fields)})",
            )
    if isinstance(check, MaxProductItems):
        _apply_product(check, [(name, len(value[name])) for name in given], path)


def _apply_product(check: MaxProductItems, lengths: list[tuple[str, int]], path: str) -> None:
    product = math.prod(length for _, length in lengths)
    if product <= check.maximum:
        return
    label = check.label or " x ".join(check.fields)
    factors = " x ".join(f"{length} {name}" for name, length in lengths)
    raise _InvalidArgumentError(
        _join(path, lengths[0][0]), f"{label}: {factors} = {product} exceeds the limit of {check.maximum}"
    )


_CHECKERS = {
    "string": _check_string,
    "integer": _check_integer,
    "number": _check_number,
    "boolean": _check_boolean,
    "array": _check_array,
    "object": _check_object,
}
