"""The last step of the send chain: one attempt on the wire, and the object that carries it.

``Attempt`` is everything an attempt needs (the request, its number, its token, its timeout, when
the call began); ``Wire.send`` puts it on the wire: the token attached (after any middleware, so
none sees it), the proxy chosen, ``session.request`` made and the body read within the response
limit. A failure with no answer is an ``APIConnectionError`` (``APITimeoutError``); a proxy's 407
to an https tunnel is a ``ProxyAuthenticationError``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable

import aiohttp
from attrs import define, field
from yarl import URL

from .._request.options import RequestTrace
from .._request.request import HTTPRequest
from .._response.responses import RawResponse
from .._utils.redaction import Redactor, shown_url
from ..errors import (
    APIConnectionError,
    APITimeoutError,
    ClientValidationError,
    ProxyAuthenticationError,
    ResponseTooLargeError,
)
from .middleware import OutgoingRequest

__all__ = ["Attempt", "RequestStats", "Wire", "proxy_refused", "read_bounded"]

logger = logging.getLogger("enterprise_async")

PROXY_REFUSAL = 407
"""The status with which a proxy refuses a request for want of its credentials (RFC 9110 15.5.8)."""

SessionGetter = Callable[[], aiohttp.ClientSession]
"""The client's session (``ClientStateError`` once the client is closed)."""


@define
class RequestStats:
    """What a client's transport has done: requests sent, retries made and why, faults seen."""

    requests: int = 0
    retries: int = 0
    token_refreshes: int = 0
    faults: Counter[str] = field(factory=Counter)

    def summary(self) -> str:
        seen = ", ".join(f"{name} x{count}" for name, count in sorted(self.faults.items())) or "none"
        return (
            f"{self.requests} requests, {self.retries} retries, "
            f"{self.token_refreshes} token refreshes after 401; faults: {seen}"
        )


@define(slots=True)
class Attempt:
    """The attempt of a request in hand: the retry loop moves it on (``advance``), authentication
    gives it its token. ``started`` is when the call's first attempt began."""

    request: HTTPRequest
    started: float
    timeout: aiohttp.ClientTimeout
    rate_wait: float | None = None
    """The longest the attempt waits for the rate budget before sending (``Timeout.rate_wait``)."""
    token: str | None = None
    number: int = 1
    """1 for the first attempt; a 401's refresh sends the same number again."""
    admitted: bool = False
    """Whether this attempt got its place and its draw from the budget (and so may have been sent)."""
    trace: RequestTrace = field(init=False)
    """What the attempt tells traces, logs and middleware: operation, page, attempt number."""

    def __attrs_post_init__(self) -> None:
        self.trace = self._trace()

    def advance(self) -> None:
        """Make this the next attempt (a retry)."""
        self.number += 1
        self.trace = self._trace()

    @property
    def retries(self) -> int:
        """Attempts made before this one (a 401's refresh not counted)."""
        return self.number - 1

    def timed(self, answer: RawResponse) -> RawResponse:
        """``answer`` (a middleware's own, or the wire's passed on) with the call's time and retries."""
        request = self.request
        return answer.timed(time.perf_counter() - self.started, self.retries, request.request_id, request.url)

    def outgoing(self) -> OutgoingRequest:
        """The request as the middleware sees it: without the token."""
        request = self.request
        return OutgoingRequest(request.method, request.url, request.headers, request.body, self.trace)

    def _trace(self) -> RequestTrace:
        request = self.request
        return RequestTrace(request.operation or request.path, request.page, self.number, request.request_id)


class Wire:
    """Sends attempts through the client's session, each on its own (no retry, no bound)."""

    def __init__(
        self,
        session: SessionGetter,
        *,
        stats: RequestStats,
        redactor: Redactor,
        max_response_bytes: int,
        request_ids: tuple[tuple[str, ...], frozenset[str]],
        proxy: str | None = None,
        proxy_from_environment: bool = False,
    ) -> None:
        self.session = session
        self.max_response_bytes = max_response_bytes
        self.stats = stats
        self._redactor = redactor
        self._request_ids = request_ids
        self._proxy = proxy
        self._proxy_from_environment = proxy_from_environment and proxy is None
        self._environment_proxies: dict[tuple[str, str], str | None] = {}

    async def send(self, attempt: Attempt, sent: OutgoingRequest | HTTPRequest) -> RawResponse:
        """Send ``sent`` (the request as a middleware passed it on, or as it was built) once.

        The answer carries the seconds since the call began and the retries before it.
        """
        request = attempt.request
        if sent.url is not request.url and sent.url.origin() != request.url.origin():
            raise ClientValidationError(
                "middleware", f"may not send {request.where} to another host: the token goes to base_url only"
            )
        headers = dict(sent.headers)
        if attempt.token is not None:
            headers["Authorization"] = f"JWT {attempt.token}"
        self.stats.requests += 1
        try:
            async with self.session().request(
                sent.method,
                sent.url,
                data=sent.body,
                headers=headers,
                timeout=attempt.timeout,
                proxy=self._proxy_for(sent.url),
                allow_redirects=False,  # a redirect must not carry the token to another host
                trace_request_ctx=attempt.trace,
            ) as response:
                body = await read_bounded(
                    response, limit=self.max_response_bytes, method=request.method, url=request.url
                )
                return self._answer(attempt, response, body)
        except (asyncio.TimeoutError, aiohttp.ServerTimeoutError) as error:
            raise self._failure(request, error, APITimeoutError) from error
        except aiohttp.ClientHttpProxyError as error:
            if error.status == PROXY_REFUSAL:
                raise proxy_refused(request, error) from None
            raise self._failure(request, error, APIConnectionError) from error
        except aiohttp.ClientError as error:
            raise self._failure(request, error, APIConnectionError) from error

    def _answer(self, attempt: Attempt, response: aiohttp.ClientResponse, body: bytes) -> RawResponse:
        request = attempt.request
        return RawResponse(
            status=response.status,
            reason=response.reason or "",
            headers=response.headers,
            body=body,
            method=request.method,
            path=request.path,
            elapsed=time.perf_counter() - attempt.started,
            retries=attempt.retries,
            request_id_headers=self._request_ids[0],
            request_id_placeholders=self._request_ids[1],
            redactor=self._redactor,
            sent_request_id=request.request_id,
            url=request.url,
        )

    def _proxy_for(self, url: URL) -> str | None:
        """The proxy of a request: the client's ``proxy=``, else (``trust_env``) the one
        ``HTTP_PROXY``/``HTTPS_PROXY`` name for its scheme unless ``NO_PROXY`` exempts its host;
        read once per scheme and host."""
        if not self._proxy_from_environment:
            return self._proxy
        key = (url.scheme, url.host or "")
        if key not in self._environment_proxies:
            exempt = bool(url.host) and urllib.request.proxy_bypass(url.host or "")
            self._environment_proxies[key] = None if exempt else urllib.request.getproxies().get(url.scheme)
        return self._environment_proxies[key]

    def _failure(
        self, request: HTTPRequest, error: BaseException, error_class: type[APIConnectionError]
    ) -> APIConnectionError:
        if error_class is APITimeoutError:
            reason = f"timed out ({_timeout_kind(error)})"
        else:
            reason = self._redactor.text(f"failed: {_unanswered_reason(request.url, error)}")
        logger.debug(
            "%s %s %s", request.method, request.path, reason, extra={"request_id": request.request_id}
        )
        return error_class(
            f"{request.label}: {request.where} {reason}",
            method=request.method,
            path=request.path,
            request_id=request.request_id,
        )


def proxy_refused(request: HTTPRequest, error: aiohttp.ClientHttpProxyError) -> ProxyAuthenticationError:
    """The proxy's 407 to the tunnel of an https request: the request never reached the API."""
    reason = f"{error.status} {error.message}" if error.message else str(error.status)
    return ProxyAuthenticationError(
        f"{request.where}: the proxy refused to carry it ({reason}); give the proxy "
        "its credentials in the proxy URL (http://user:password@host:port)",
        status=error.status,
        headers=dict(error.headers or {}),
        method=request.method,
        path=request.path,
        request_id=request.request_id,
    )


def _unanswered_reason(url: URL, error: BaseException) -> str:
    """Why no answer came, in words built from the request's URL: aiohttp's own text names its
    connection key, which says ``ssl:default`` even of a plain http connection."""
    where = f"{url.host}:{url.port}"
    if isinstance(error, aiohttp.ClientConnectorError):
        return f"cannot connect to {where} ({_os_reason(error.os_error)})"
    if isinstance(error, aiohttp.ServerDisconnectedError):
        return f"{where} closed the connection without answering"
    return f"{type(error).__name__}: {error}"


def _os_reason(error: OSError) -> str:
    """The system's words for an OS error (``Connection refused``): asyncio's own text for a
    refused connection repeats the address instead."""
    if error.errno is not None and error.errno > 0:
        return os.strerror(error.errno)
    return error.strerror or str(error) or type(error).__name__


def _timeout_kind(error: BaseException) -> str:
    """Which limit ran out: ``connect``, ``read`` or ``total`` (``Timeout``'s names)."""
    if isinstance(error, aiohttp.ConnectionTimeoutError):
        return "connect"
    if isinstance(error, aiohttp.SocketTimeoutError):
        return "read"
    return "total"


def read_bounded(response: aiohttp.ClientResponse, *, limit: int, method: str, url: URL) -> Awaitable[bytes]:
    """The body of ``response`` as it inflates (gzip, deflate...), at most ``limit`` bytes.

    A body announced longer, or that grows longer while it is read (a gzip bomb, an endless
    stream), raises ``ResponseTooLargeError`` naming the method and URL (``shown_url``); what was
    read of it is dropped at once.
    """
    announced = response.content_length
    if announced is None or response.headers.get("Content-Encoding"):
        return _read_growing(response, limit, method, url)
    if announced > limit:
        raise _too_large(response, limit, method, url, f"announces Content-Length {announced}")
    return response.read()  # a plain body of a known length: it cannot grow past it


async def _read_growing(response: aiohttp.ClientResponse, limit: int, method: str, url: URL) -> bytes:
    """A body of unknown or encoded length, read chunk by chunk and dropped once past ``limit``."""
    chunks: list[bytes] = []
    size = 0
    while chunk := await response.content.readany():
        size += len(chunk)
        if size > limit:
            chunks.clear()
            raise _too_large(response, limit, method, url, "has a body")
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(
    response: aiohttp.ClientResponse, limit: int, method: str, url: URL, what: str
) -> ResponseTooLargeError:
    return ResponseTooLargeError(
        f"{method} {shown_url(url)} returned {response.status} and {what} larger than {limit} bytes "
        "(max_response_bytes); nothing of it was kept",
        status=response.status,
        limit=limit,
    )
