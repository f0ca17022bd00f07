"""Query parameters and body fields a call adds of its own (``extra_query=``, ``extra_body=``), and
the same encoding for ``client.request(params=, json=)``.

They are the way to send what the spec does not know yet (a new filter, a new body field): they
are merged over the method's own values (a name given both ways is sent as the extra says) and
validated before anything is sent. A query value is written as the servers read the method's own
(``true``/``false``, a list as one comma-separated value); ``None`` removes the parameter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from .._decoding.enums import OpenEnum
from ..errors import ClientValidationError
from .request import Query, query_value

__all__ = ["check_extra_body", "check_extra_query", "encode_json", "with_extra_body", "with_extra_query"]

ExtraQuery = Mapping[str, "str | None"]

_SCALARS = (str, int, float, bool, OpenEnum)


def check_extra_query(value: object, name: str = "extra_query") -> dict[str, str | None] | None:
    """Query parameters as the wire writes them; a typed error names a name or value it cannot send."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ClientValidationError(name, f"must be a mapping of parameter names to values, got {value!r}")
    encoded: dict[str, str | None] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not key:
            raise ClientValidationError(name, f"parameter names must be non-empty strings, got {key!r}")
        encoded[key] = _query_text(name, key, item)
    return encoded


def _query_text(name: str, key: str, item: object) -> str | None:
    if item is None:
        return None
    if isinstance(item, (list, tuple)) and all(isinstance(part, _SCALARS) for part in item):
        return ",".join(query_value(part) for part in item)
    if isinstance(item, _SCALARS):
        return query_value(item)
    raise ClientValidationError(name, f"{key}: a value must be a string, number, boolean or a list of them")


def check_extra_body(value: object, name: str = "extra_body") -> dict[str, Any] | None:
    """Body fields that can be written as JSON; a typed error names a value that cannot."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise ClientValidationError(name, f"must be a mapping of field names to JSON values, got {value!r}")
    encode_json(name, dict(value))
    return dict(value)


def encode_json(name: str, value: object) -> bytes:
    """``value`` as JSON bytes, or a typed error naming the argument whose value is not JSON."""
    try:
        return orjson.dumps(value)
    except TypeError as error:
        raise ClientValidationError(name, f"cannot be written as JSON: {error}") from None


def with_extra_query(query: Query, extra: Mapping[str, str | None] | None) -> Query:
    """``query`` with the extra parameters replacing (or removing) those of the same name, others appended."""
    if not extra:
        return query
    kept = [(key, value) for key, value in query if key not in extra]
    added = [(key, value) for key, value in extra.items() if value is not None]
    return (*kept, *added)


def with_extra_body(method: str, body: bytes | None, extra: Mapping[str, Any] | None) -> bytes | None:
    """The JSON body with the extra fields set over the method's own."""
    if not extra:
        return body
    if body is None and method == "GET":
        raise ClientValidationError("extra_body", "a GET request carries no body; use extra_query")
    fields = orjson.loads(body) if body is not None else {}
    if not isinstance(fields, dict):
        raise ClientValidationError(
            "extra_body", "this request's body is not a JSON object, so it takes no fields"
        )
    return orjson.dumps({**fields, **extra})
