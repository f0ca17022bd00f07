"""``client.request(method, path, ...)``: a call to an endpoint the spec does not describe.

``UndocumentedCalls`` gives the client its ``request`` method and ``BaseClientWithRawResponse``
gives ``client.with_raw_response`` its own; ``prepare_undocumented`` checks the arguments. The call
is built into the same kind of request a generated method makes, so it goes through the same
send chain: the client's token, retries and their policy, middleware, rate budget, error mapping,
request ids, tracing and redaction. Only a GET is retried on a 5xx or a dropped connection (like
every other call, a POST, PUT, PATCH or DELETE is retried only where nothing was done).
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any, ClassVar, TypeVar, get_origin, overload
from urllib.parse import quote

import attrs

from .._request.options import RequestOptions, check_extra_query, encode_json
from .._request.request import PreparedRequest
from .._request.retry import RetryPolicy
from .._request.timeouts import Timeout
from .._spec import ApiSpec, Operation, Outcome
from .._utils.constants import UNDOCUMENTED_OPERATION
from .._utils.json_types import JSONInput, JSONValue, QueryValue
from ..errors import ClientValidationError
from .raw_response import APIResponse

__all__ = ["BaseClientWithRawResponse", "UndocumentedCalls", "prepare_undocumented"]

ResultT = TypeVar("ResultT")

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


class UndocumentedCalls:
    """``client.request``: the client's call to an endpoint the spec does not describe, prepared
    here and sent by the client (``BaseClient._call_prepared``)."""

    spec: ClassVar[ApiSpec]

    @overload
    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, QueryValue] | None = None,
        json: JSONInput = None,
        cast_to: type[ResultT],
        timeout: float | Timeout | None = None,
        retry: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> ResultT: ...

    @overload
    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, QueryValue] | None = None,
        json: JSONInput = None,
        cast_to: None = None,
        timeout: float | Timeout | None = None,
        retry: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> JSONValue: ...

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, QueryValue] | None = None,
        json: JSONInput = None,
        cast_to: object = None,
        timeout: float | Timeout | None = None,
        retry: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> object:
        """Call an endpoint the spec does not describe, with everything a generated method has: the
        token, retries, middleware, error mapping, request ids, tracing and redaction.

        Args:
            method: ``GET``, ``POST``, ``PUT``, ``PATCH`` or ``DELETE``.
            path: The path under ``base_url`` (``/enterprise/v1/...``); never another host.
            params: Query parameters (a list is sent as one comma-separated value; None is left out).
            json: The JSON body (not for a GET).
            cast_to: The model (or type, such as ``list[Course]``) to decode a 2xx body into, and
                the type the call returns; by default the body is returned as decoded JSON (or XML)
                data, a ``JSONValue`` (``dict``, ``list``, ``str``, numbers, ``bool``), None when empty.
            timeout: Seconds, or a ``Timeout``, for this call's requests.
            retry: A ``RetryPolicy`` for this call.
            extra_headers: Headers added to this call's requests.

        An error status raises its typed error (``NotFoundError``...), with the request id.
        ``client.with_raw_response.request(...)`` returns the ``APIResponse`` instead.
        """
        answer = await self._request_raw(method, path, params, json, cast_to, timeout, retry, extra_headers)
        return answer.parse()

    def _request_raw(
        self,
        method: object,
        path: object,
        params: object,
        json: object,
        cast_to: object,
        timeout: object,
        retry: object,
        extra_headers: object,
    ) -> Awaitable[APIResponse[Any]]:
        """The answer of ``client.request``; its arguments are checked now, before anything is sent."""
        prepared = prepare_undocumented(
            method, path, params=params, json=json, cast_to=cast_to, retry_statuses=self.spec.retry_statuses
        )
        options = RequestOptions.of(timeout=timeout, extra_headers=extra_headers, retry=retry)
        return self._call_prepared(prepared, options)

    async def _call_prepared(
        self,
        prepared: PreparedRequest,
        options: RequestOptions | None,
        arguments: Mapping[str, Any] | None = None,
    ) -> APIResponse[Any]:
        """Send a prepared call and answer it: ``BaseClient`` does, as it sends every call."""
        raise NotImplementedError


class BaseClientWithRawResponse:
    """``client.with_raw_response``: what the client calls, answering with HTTP details
    (``APIResponse``) instead of the model; the generated subclass adds every resource."""

    def __init__(self, client: UndocumentedCalls) -> None:
        self._client = client

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, QueryValue] | None = None,
        json: JSONInput = None,
        cast_to: object = None,
        timeout: float | Timeout | None = None,
        retry: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> APIResponse[object]:
        """``client.request``'s answer with its status, headers, request id, time and retries;
        ``parse()`` decodes it as ``client.request`` would. An error status still raises."""
        return await self._client._request_raw(
            method, path, params, json, cast_to, timeout, retry, extra_headers
        )


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
