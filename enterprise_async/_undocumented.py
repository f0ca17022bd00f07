"""``client.request(method, path, ...)``: a call to an endpoint the spec does not describe.

It is built into the same kind of request a generated method makes, so it goes through the same
send chain: the client's token, retries and their policy, middleware, rate budget, error mapping,
request ids, tracing and redaction. Only a GET is retried on a 5xx or a dropped connection (like
every other call, a POST, PUT, PATCH or DELETE is retried only where nothing was done).
"""

from __future__ import annotations

from typing import Any, get_origin
from urllib.parse import quote

import attrs

from ._constants import UNDOCUMENTED_OPERATION
from ._extras import check_extra_query, encode_json
from ._request import PreparedRequest
from ._spec import Operation, Outcome
from .errors import ClientValidationError

__all__ = ["prepare_undocumented"]

_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
# Kept as given: unreserved, sub-delims, ":", "@", "/" and existing percent-escapes.
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"


def prepare_undocumented(
    method: object,
    path: object,
    *,
    params: object,
    json: object,
    cast_to: object,
    retry_statuses: frozenset[int],
) -> PreparedRequest:
    """The request of ``client.request``; a typed error names a bad argument before anything is sent."""
    verb = _method(method)
    if json is not None and verb == "GET":
        raise ClientValidationError("json", "a GET request carries no body; use params")
    outcomes = {200: Outcome(200, model=_cast_to(cast_to))} if cast_to is not None else {}
    operation: Operation[Any] = Operation(
        name=UNDOCUMENTED_OPERATION,
        method=verb,
        path=_path(path),
        outcomes=outcomes,
        retry_statuses=retry_statuses,
    )
    query = tuple(
        (name, value) for name, value in (check_extra_query(params, "params") or {}).items() if value
    )
    body = encode_json("json", json) if json is not None else None
    return PreparedRequest(operation, operation.path, query, body)


def _method(value: object) -> Any:
    verb = value.upper() if isinstance(value, str) else value
    if verb not in _METHODS:
        raise ClientValidationError("method", f"must be one of {', '.join(_METHODS)}, got {value!r}")
    return verb


def _path(value: object) -> str:
    """A path under ``base_url``: never another host (the token goes to ``base_url``'s only)."""
    if not isinstance(value, str) or not value.startswith("/") or value.startswith("//"):
        raise ClientValidationError(
            "path",
            f"must be a path under base_url starting with '/', such as '/enterprise/v1/...', got {value!r}",
        )
    if "?" in value or "#" in value:
        raise ClientValidationError(
            "path", "may not carry a query or fragment; give query parameters as params="
        )
    return quote(value, safe=_PATH_SAFE)


def _cast_to(value: object) -> object:
    """A model class, or a type the decoder reads (``list[Course]``, ``dict``...)."""
    if isinstance(value, type) or get_origin(value) is not None or attrs.has(type(value)):
        return value
    raise ClientValidationError(
        "cast_to", f"must be a model class or a type such as list[Course], got {value!r}"
    )
