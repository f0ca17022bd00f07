"""The request a call sends: a prepared call (``_request.request``) with what the client adds to it.

``prepare_request`` makes the operation's own path, query and body from a call's arguments; here
the client completes it into the ``HTTPRequest`` its transport sends: the URL under ``base_url``,
the headers every request carries (the format asked for, the user agent, the client's and the
call's own), the call's extra query and body, its request id, and its timeout and retry policy.
Where an operation names statuses that mean "not in this format", the same request is asked once
more in JSON (``with_json_fallback``).
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote, urlencode

import attrs
from yarl import URL

from .._decoding.spec import Operation
from .._request.extras import with_extra_body, with_extra_query
from .._request.options import ClientOptions, RequestOptions
from .._request.request import HTTPRequest, PreparedRequest, Query
from .._response.responses import RawResponse
from .._utils.constants import USER_AGENT

__all__ = ["build_request", "with_json_fallback"]

logger = logging.getLogger("enterprise_async")

_ACCEPT = {"json": "application/json", "xml": "application/xml"}
URLS_KEPT = 256
"""Request URLs kept for reuse (``_url``)."""
_NO_OPTIONS = RequestOptions()


def build_request(
    prepared: PreparedRequest,
    options: RequestOptions | None,
    *,
    settings: ClientOptions,
    base: str,
    request_id_header: str | None,
    page: int | None = None,
    parent_span: Any = None,
) -> HTTPRequest:
    """The request of a prepared call, with the client's headers (``settings``) and the call's
    ``options``; it goes with a fresh request id unless the caller gave one of its own."""
    headers = {
        "Accept": _ACCEPT[settings.response_format],
        "User-Agent": USER_AGENT,
        **settings.headers,
    }
    options = options or _NO_OPTIONS
    if options.extra_headers:
        headers.update(options.extra_headers)
    body = with_extra_body(prepared.method, prepared.body, options.extra_body)
    if body is not None:
        headers["Content-Type"] = "application/json"
    request_id = _with_request_id(headers, request_id_header)
    return HTTPRequest(
        method=prepared.method,
        url=_url(base, prepared.path, with_extra_query(prepared.query, options.extra_query)),
        path=prepared.path,
        headers=headers,
        body=body,
        idempotent=prepared.operation.idempotent,
        retry_statuses=prepared.operation.retry_statuses,
        timeout=options.timeout,
        retry=options.retry,
        operation=prepared.operation.name,
        page=page,
        request_id=request_id,
        parent_span=parent_span,
    )


async def with_json_fallback(
    send: Callable[[HTTPRequest], Awaitable[RawResponse]],
    operation: Operation[Any],
    request: HTTPRequest,
    response_format: str,
) -> RawResponse:
    """The answer to a request in ``response_format``, not JSON, for an operation that names fallback
    statuses (``json_fallback_statuses``: 406 from a view that renders JSON only); on one of them
    the same request (its request id too) is sent once more, asking for JSON."""
    response = await send(request)
    if response.status not in operation.json_fallback_statuses:
        return response
    logger.debug(
        "%s: %s %s answered %d in %s; asking once more in JSON",
        operation.name,
        request.method,
        request.path,
        response.status,
        response_format.upper(),
        extra={"sdk_operation": operation.name, "sdk_status": response.status, "sdk_format": "json"},
    )
    return await send(attrs.evolve(request, headers={**request.headers, "Accept": _ACCEPT["json"]}))


def _with_request_id(headers: dict[str, str], name: str | None) -> str | None:
    """The id a request goes with, set in ``headers`` under ``name`` (the spec's header): the
    caller's own value there (``extra_headers``, a view's ``headers``; any case) wins, else a
    fresh UUID. None when the spec names no header."""
    if name is None:
        return None
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return value
    headers[name] = str(uuid.uuid4())
    return headers[name]


@functools.lru_cache(maxsize=URLS_KEPT)
def _url(base: str, path: str, query: Query) -> URL:
    """The URL of a request. The latest are kept: a URL is immutable, and one used again (the same
    call made again, a retry) keeps what yarl and aiohttp worked out of it (its host, port...)."""
    text = base + path
    if query:
        text += "?" + urlencode(query, quote_via=quote, safe=",")
    return URL(text, encoded=True)
