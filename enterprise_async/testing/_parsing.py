"""Reading requests the way the API's servers do: JSON bodies checked field by field, query
parameters with their types, and Django REST framework's error bodies (``{"field": ["message"]}``)
for anything that does not fit.

Bodies are checked as strictly as the spec declares them (no unknown fields, no strings for
integers), so that the sandbox answers 400 wherever the spec says a request is invalid.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from multidict import MultiMapping

from ._replies import ApiError

__all__ = [
    "Body",
    "distinct",
    "is_email",
    "json_body",
    "json_object",
    "query_bool",
    "query_csv",
    "query_int",
    "query_uuid",
    "valid_uuid",
]

BAD_EMAIL = "Enter a valid email address."
"""Django's EmailValidator message."""
MAX_INTEGER = 2**63 - 1
"""Largest integer a body may carry: the database's 64-bit columns (and orjson) stop there."""
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
_TRUE = frozenset({"true", "True", "1"})
_FALSE = frozenset({"false", "False", "0"})


def _invalid(name: str, message: str) -> ApiError:
    return ApiError(400, {name: [message]})


def json_body(raw: bytes, content_type: str, *, allowed: frozenset[str]) -> Body:
    """The request's JSON object; 415 for another media type, 400 for bad JSON or unknown fields."""
    data = json_object(raw, content_type)
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ApiError(400, {name: ["This field is not allowed."] for name in unknown})
    return Body(data)


def json_object(raw: bytes, content_type: str) -> dict[str, Any]:
    """The request's JSON object; 415 for another media type, 400 for bad JSON or another value."""
    media = content_type.split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise ApiError(415, {"detail": f'Unsupported media type "{media}" in request.'})
    try:
        data = orjson.loads(raw or b"null")
    except orjson.JSONDecodeError as error:
        raise ApiError(400, {"detail": f"JSON parse error - {error}"}) from None
    if not isinstance(data, dict):
        raise ApiError(400, {"non_field_errors": ["Invalid data. Expected a dictionary."]})
    return data


class Body:
    """A JSON request body, read one field at a time with the serializers' rules."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def has(self, name: str) -> bool:
        """Whether the field is present (null counts as present)."""
        return name in self.data

    def emails(self, name: str) -> list[str]:
        """A required, non-empty list of e-mail addresses; the bad ones answered by position, as
        DRF's ``ListField(child=EmailField())`` does (``{"user_emails": {"0": ["Enter a valid
        email address."]}}``)."""
        values = self.strings(name)
        wrong = {str(index): [BAD_EMAIL] for index, value in enumerate(values) if not is_email(value)}
        if wrong:
            raise ApiError(400, {name: wrong})
        return values

    def strings(self, name: str) -> list[str]:
        """A required, non-empty list of non-blank strings."""
        values = self.optional_strings(name, required=True)
        if not values:
            raise _invalid(name, "This list may not be empty.")
        return values

    def optional_strings(self, name: str, *, required: bool = False, blank: bool = False) -> list[str] | None:
        """A list of strings (non-blank unless ``blank``), possibly empty, if present."""
        value = self._value(name, required)
        if value is None:
            return None
        if not isinstance(value, list):
            raise _invalid(name, f'Expected a list of items but got type "{type(value).__name__}".')
        if not all(isinstance(item, str) and (blank or item.strip()) for item in value):
            raise _invalid(name, "Every item must be a non-blank string.")
        return value

    def text(self, name: str) -> str:
        """A required, non-blank string."""
        value = self.optional_text(name, required=True)
        if value is None or not value.strip():
            raise _invalid(name, "This field may not be blank.")
        return value

    def optional_text(self, name: str, *, required: bool = False) -> str | None:
        """A string, if present."""
        value = self._value(name, required)
        if value is None:
            return None
        if not isinstance(value, str):
            raise _invalid(name, "Not a valid string.")
        return value

    def integer(self, name: str, *, minimum: int | None = None) -> int:
        """A required integer (not a string, a float or a boolean), at least ``minimum``."""
        value = self._value(name, required=True)
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # JSON has one number type: 237.0 is the integer 237
        if isinstance(value, bool) or not isinstance(value, int):
            raise _invalid(name, "A valid integer is required.")
        if minimum is not None and value < minimum:
            raise _invalid(name, f"Ensure this value is greater than or equal to {minimum}.")
        if abs(value) > MAX_INTEGER:
            raise _invalid(name, f"Ensure this value is less than or equal to {MAX_INTEGER}.")
        return value

    def boolean(self, name: str) -> bool | None:
        """A boolean, if present."""
        value = self._value(name, required=False)
        if value is None:
            return None
        if not isinstance(value, bool):
            raise _invalid(name, "Must be a valid boolean.")
        return value

    def objects(self, name: str) -> list[dict[str, Any]] | None:
        """A non-empty list of objects, if present."""
        value = self._value(name, required=False)
        if value is None:
            return None
        if not isinstance(value, list) or not value:
            raise _invalid(name, "Expected a non-empty list of objects.")
        if not all(isinstance(item, dict) for item in value):
            raise _invalid(name, "Every item must be an object.")
        return value

    def _value(self, name: str, required: bool) -> Any:
        if name not in self.data:
            if required:
                raise _invalid(name, "This field is required.")
            return None
        value = self.data[name]
        if value is None:
            raise _invalid(name, "This field may not be null.")
        return value


def is_email(text: str) -> bool:
    """Whether ``text`` looks like an e-mail address (one @, a dot in the domain, no blanks)."""
    return _EMAIL.match(text) is not None


def valid_uuid(text: str) -> bool:
    """Whether ``text`` is a uuid in its usual hyphenated form."""
    if len(text) != 36:
        return False
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def query_uuid(query: Mapping[str, str], name: str, *, required: bool) -> str | None:
    """A uuid query parameter; 400 when blank, malformed, or missing while required."""
    value = query.get(name)
    if value is None:
        if required:
            raise _invalid(name, "This field is required.")
        return None
    if not value.strip():
        raise _invalid(name, "This field may not be blank.")
    if not valid_uuid(value):
        raise _invalid(name, "Must be a valid UUID.")
    return value.lower()


def query_bool(query: Mapping[str, str], name: str) -> bool | None:
    """A boolean query parameter (``true``/``false``, ``True``/``False``, ``1``/``0``)."""
    value = query.get(name)
    if value is None or value == "":
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise _invalid(name, "Must be a valid boolean.")


def query_int(query: Mapping[str, str], name: str) -> int | None:
    """An integer query parameter."""
    value = query.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise _invalid(name, "Enter a whole number.") from None


def query_csv(query: MultiMapping[str], name: str) -> list[str] | None:
    """An ``__in`` filter: one comma-separated value (repeated parameters are joined too)."""
    items = [item.strip() for value in query.getall(name, []) for item in value.split(",") if item.strip()]
    return items or None  # an empty value filters nothing, as django-filter's ``__in`` filters do


def distinct(values: Iterable[str]) -> list[str]:
    """Values in order, without case-insensitive repeats: the e-mails or uuids a request lists, as
    the services read them (one learner or assignment however it is spelled)."""
    seen: set[str] = set()
    kept = []
    for value in values:
        if value.lower() not in seen:
            seen.add(value.lower())
            kept.append(value)
    return kept
