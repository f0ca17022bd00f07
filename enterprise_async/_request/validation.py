"""Check a call's arguments against the rules of its operation, before anything is sent.

The rules are the spec's (``Rule`` and ``Check`` in ``_spec``); this module only knows how to
read them. Every failure is a ``ClientValidationError`` naming the argument as a path
(``learner_emails[2]``, ``filters[0].status_in``). A checked argument is then written as the
servers read it: a body as a JSON object (``as_wire_object``, a model written by the client's
``Conversion``), a path or query parameter as text
(``query_value``, ``query_pairs``: booleans as ``true``/``false``, an ``explode: false`` array as
one comma-separated value).
"""

from __future__ import annotations

import ipaddress
import math
import re
import typing
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .._decoding.enums import OpenEnum
from .._spec import (
    AtLeastOneOf,
    Check,
    MaxCombinedItems,
    MaxProductItems,
    NeverTogether,
    Operation,
    Param,
    Rule,
)
from ..errors import ClientValidationError

if TYPE_CHECKING:
    from .._decoding import Conversion

__all__ = ["as_wire_object", "query_pairs", "query_value", "validate_arguments"]

# The canonical text of a UUID: ASCII hex digits in the 8-4-4-4-12 groups, either case. Python's
# ``uuid.UUID`` also takes braces, ``urn:uuid:``, no dashes and non-ASCII digits; the services'
# routes and serializers do not all do so, so those forms are refused before sending.
_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")

# E-mail addresses as the services' serializers check them (Django's ``EmailValidator``): a
# dot-atom or quoted local part; a domain of dotted labels ending in a 2-63 character label, an
# internationalised domain that IDNA-encodes to one, an IP literal, or ``localhost``; at most 320
# characters in all.
_EMAIL_MAX_LENGTH = 320
_EMAIL_DOMAIN_ALLOWED = frozenset({"localhost"})
_EMAIL_LOCAL = re.compile(
    r"[-!#$%&'*+/=?^_`{}|~0-9A-Z]+(?:\.[-!#$%&'*+/=?^_`{}|~0-9A-Z]+)*"
    r'|"(?:[\001-\010\013\014\016-\037!#-\[\]-\177]|\\[\001-\011\013\014\016-\177])*"',
    re.IGNORECASE,
)
_EMAIL_DOMAIN = re.compile(r"(?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+[A-Z0-9-]{2,63}(?<!-)", re.IGNORECASE)
_EMAIL_LITERAL = re.compile(r"\[([A-F0-9:.]+)\]", re.IGNORECASE)


class _InvalidArgumentError(Exception):
    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message


def validate_arguments(
    operation: Operation[Any], arguments: Mapping[str, Any], conversion: Conversion
) -> dict[str, Any]:
    """Check every argument; return the body fields that were given, as wire data (None left out),
    a model among them written by ``conversion``."""
    try:
        for param in operation.params:
            value = arguments.get(param.name)
            if value is None:
                if param.required:
                    raise _InvalidArgumentError(param.name, "is required")
                continue
            _check(param.rule, value, param.name, conversion)
        _check_page_size_aliases(operation, arguments)
        if operation.body is None:
            return {}
        body = {
            name: arguments[name] for name in operation.body.properties if arguments.get(name) is not None
        }
        _check_object(operation.body, body, "", conversion)
        return typing.cast(dict[str, Any], _wire(body, conversion, operation.body))
    except _InvalidArgumentError as invalid:
        raise ClientValidationError(
            invalid.path or "body", invalid.message, operation=operation.name
        ) from None


def query_value(value: Any) -> str:
    """A scalar as the servers read it in a query or path."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, OpenEnum):
        return str(value.value)
    return str(value)


def query_pairs(param: Param, value: Any) -> list[tuple[str, str]]:
    """A query parameter's value as the pairs of the query string, in the spec's style."""
    if isinstance(value, (list, tuple)):
        if not param.explode:
            return [(param.wire_name, ",".join(query_value(item) for item in value))]
        return [(param.wire_name, query_value(item)) for item in value]
    return [(param.wire_name, query_value(value))]


def _check_page_size_aliases(operation: Operation[Any], arguments: Mapping[str, Any]) -> None:
    """The page size and its aliases (``limit`` for ``page_size``) travel as one parameter: one of them."""
    pagination = operation.pagination
    if pagination is None or pagination.size_param is None or not pagination.size_aliases:
        return
    names = (pagination.size_param, *pagination.size_aliases)
    given = [name for name in names if arguments.get(name) is not None]
    if len(given) > 1:
        raise _InvalidArgumentError(given[1], f"gives the page size again; give one of {', '.join(names)}")


def as_wire_object(value: Any, conversion: Conversion) -> dict[str, Any]:
    """A model or mapping given as an argument, as the JSON object to send.

    Fields left out are not sent: None, and in a model an empty list its field starts with
    (``BulkRevokeFilter(user_email="al")`` has ``status_in == []``: that filter is not given).
    """
    if not attrs.has(type(value)):
        return {key: item for key, item in dict(value).items() if item is not None}
    unset = _lists_left_empty(value)
    written = conversion.to_dict(value).items()
    return {key: item for key, item in written if item is not None and key not in unset}


def _lists_left_empty(model: Any) -> set[str]:
    """The list fields of a model still holding the empty list they start with."""
    return {
        field.name
        for field in attrs.fields(type(model))
        if isinstance(field.default, attrs.Factory)  # type: ignore[arg-type]
        and field.default.factory is list
        and getattr(model, field.name) == []
    }


def _wire(value: Any, conversion: Conversion, rule: Rule | None = None) -> Any:
    """A checked value as the service reads it, following the rule's wire forms (``NamedValue``)."""
    if isinstance(value, OpenEnum):
        return value.value
    if isinstance(value, uuid.UUID):
        return str(value)
    if attrs.has(type(value)) or isinstance(value, Mapping):
        return _wire_object(value, conversion, rule)
    if isinstance(value, (list, tuple)):
        items = rule.items if rule is not None else None
        return [_wire(item, conversion, items) for item in value]
    return value


def _wire_object(value: Any, conversion: Conversion, rule: Rule | None) -> dict[str, Any]:
    data = as_wire_object(value, conversion)
    if rule is None:
        return {key: _wire(item, conversion) for key, item in data.items()}
    public = _public_form(rule, data)
    wired = {key: _wire(item, conversion, rule.properties.get(key)) for key, item in public.items()}
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


def _check(rule: Rule, value: Any, path: str, conversion: Conversion) -> None:
    if value is None:
        if rule.nullable:
            return
        raise _InvalidArgumentError(path, "may not be None; leave it out instead")
    if rule.kind == "object":
        _check_object(rule, value, path, conversion)
    elif rule.kind == "array":
        _check_array(rule, value, path, conversion)
    elif (checker := _CHECKERS.get(rule.kind)) is not None:
        checker(rule, value, path)


def _check_string(rule: Rule, value: Any, path: str) -> None:
    if rule.format == "uuid" and isinstance(value, uuid.UUID):
        return  # sent in its canonical text
    if not isinstance(value, str):
        raise _InvalidArgumentError(path, f"expected a string, got {type(value).__name__}")
    if rule.min_length is not None and len(value.strip()) < rule.min_length:
        raise _InvalidArgumentError(
            path, "may not be blank" if rule.min_length == 1 else f"needs {rule.min_length}+ characters"
        )
    if rule.const is not None and value != rule.const:
        raise _InvalidArgumentError(path, f"must be {rule.const!r}")
    if rule.choices and value not in rule.choices:
        raise _InvalidArgumentError(path, f"must be one of {_listed(rule.choices)}; got {value!r}")
    if rule.pattern is not None and not re.search(rule.pattern, value):
        raise _InvalidArgumentError(path, f"{value!r} does not match {rule.pattern!r}")
    _check_format(rule.format, value, path)


def _listed(choices: tuple[str, ...], shown: int = 12) -> str:
    """The values a closed enum accepts, the first ``shown`` of a long list and how many in all."""
    if len(choices) <= shown:
        return ", ".join(choices)
    return f"{', '.join(choices[:shown])}, ... ({len(choices)} in all: see the argument's type)"


def _check_format(format_: str | None, value: str, path: str) -> None:
    if format_ == "uuid" and not _UUID.fullmatch(value):
        raise _InvalidArgumentError(
            path, f"{value!r} is not a UUID in its canonical form (8-4-4-4-12 hexadecimal digits)"
        )
    if format_ == "email" and not is_email_address(value):
        raise _InvalidArgumentError(path, f"{value!r} is not an e-mail address")


def is_email_address(value: str) -> bool:
    """Whether the services (Django's ``EmailValidator``) accept ``value`` as an e-mail address."""
    if "@" not in value or len(value) > _EMAIL_MAX_LENGTH:
        return False
    local, domain = value.rsplit("@", 1)
    if not _EMAIL_LOCAL.fullmatch(local):
        return False
    return domain in _EMAIL_DOMAIN_ALLOWED or _is_email_domain(domain) or _is_email_domain(_idna(domain))


def _is_email_domain(domain: str) -> bool:
    if _EMAIL_DOMAIN.fullmatch(domain):
        return True
    literal = _EMAIL_LITERAL.fullmatch(domain)
    if literal is None:
        return False
    try:
        ipaddress.ip_address(literal[1])
    except ValueError:
        return False
    return True


def _idna(domain: str) -> str:
    """The ASCII form of an internationalised domain ("" when it has none)."""
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:
        return ""


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


def _check_array(rule: Rule, value: Any, path: str, conversion: Conversion) -> None:
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
            _check(rule.items, item, _join(path, f"[{index}]"), conversion)


def _check_object(rule: Rule, value: Any, path: str, conversion: Conversion) -> None:
    if rule.model is not None and isinstance(value, rule.model):
        try:
            value = as_wire_object(value, conversion)
        except ValueError as broken:  # a model changed since it was built, no longer valid
            raise _InvalidArgumentError(path, str(broken)) from None
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
            _check(rule.properties[name], item, _join(path, name), conversion)
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
}
"""The checks of the scalar kinds; arrays and objects, which hold other values, are checked by
``_check`` itself."""
