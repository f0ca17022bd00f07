"""Middleware: functions that every attempt of an API request passes through, and that may change it.

::

    async def add_tenant(request: OutgoingRequest, send: Send) -> RawResponse:
        return await send(request.with_headers({"X-Tenant": "acme"}))

    EnterpriseClient(..., middleware=[add_tenant])

The first middleware given is the outermost: it sees the request first and the answer last. Each
attempt (a retry is a new attempt, ``request.trace.attempt``) runs the whole chain, so a header a
middleware adds is on every retry too. The token is attached after the chain, so no middleware
ever sees it, and a request can only be sent to the host it was meant for. The token request to
``auth_url`` does not pass through middleware: its body holds the client secret.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import attrs
from attrs import frozen
from yarl import URL

from .._request.options import RequestTrace, check_headers
from .._response.responses import RawResponse
from ..errors import ClientValidationError

__all__ = ["Middleware", "OutgoingRequest", "Send", "check_middleware", "chain"]


@frozen
class OutgoingRequest:
    """One attempt of a request as a middleware sees it (without the ``Authorization`` header).

    ``url`` is absolute, query included; ``body`` the bytes to send (JSON), None for a GET;
    ``trace`` tells the operation, the page and the attempt (1 for the first).
    """

    method: str
    url: URL
    headers: Mapping[str, str]
    body: bytes | None
    trace: RequestTrace

    def with_headers(self, headers: Mapping[str, str]) -> OutgoingRequest:
        """This request with ``headers`` added (replacing those of the same name, case-insensitively)."""
        added = check_headers(headers, "middleware headers") or {}
        lowered = {name.lower() for name in added}
        kept = {name: value for name, value in self.headers.items() if name.lower() not in lowered}
        return attrs.evolve(self, headers={**kept, **added})

    def replace(self, **changes: Any) -> OutgoingRequest:
        """This request with other ``url``, ``headers`` or ``body``; the method and trace stay."""
        unknown = sorted(set(changes) - {"url", "headers", "body"})
        if unknown:
            raise ClientValidationError(
                "middleware", f"a middleware may change url, headers or body, not {unknown[0]}"
            )
        if "headers" in changes:
            changes["headers"] = check_headers(changes["headers"], "middleware headers") or {}
        if "url" in changes:
            changes["url"] = URL(str(changes["url"]))
        if "body" in changes and not isinstance(changes["body"], (bytes, type(None))):
            raise ClientValidationError("middleware", "a request body must be bytes or None")
        return attrs.evolve(self, **changes)


Send = Callable[[OutgoingRequest], Awaitable[RawResponse]]
"""What a middleware calls to pass the request on: the next middleware, or the wire."""

Middleware = Callable[[OutgoingRequest, Send], Awaitable[RawResponse]]
"""``async def middleware(request, send) -> RawResponse``: return ``await send(request)``, with the
request changed or not, or an answer of its own; what it raises reaches the caller unretried."""


class _Layer:
    """One middleware bound to what comes after it."""

    __slots__ = ("_inner", "_middleware")

    def __init__(self, middleware: Middleware, inner: Send) -> None:
        self._middleware = middleware
        self._inner = inner

    async def __call__(self, request: OutgoingRequest) -> RawResponse:
        answer: object = await self._middleware(request, self._inner)  # an untyped one may return anything
        if not isinstance(answer, RawResponse):
            name = getattr(self._middleware, "__name__", repr(self._middleware))
            raise ClientValidationError(
                "middleware", f"{name} returned {type(answer).__name__}, not the answer"
            )
        return answer


def chain(middleware: Sequence[Middleware], send: Send) -> Send:
    """``send`` behind every middleware, the first given outermost."""
    for layer in reversed(middleware):
        send = _Layer(layer, send)
    return send


def check_middleware(value: object) -> tuple[Middleware, ...] | None:
    """A sequence of callables, or None; a typed error names anything else before anything is sent."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ClientValidationError("middleware", f"must be a list of async functions, got {value!r}")
    for item in value:
        if not callable(item):
            raise ClientValidationError("middleware", f"must hold async functions, got {item!r}")
    return tuple(value)
