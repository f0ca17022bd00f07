"""Send requests: authentication, the client-wide concurrency bound, timeouts, retries, logging.

The concurrency bound (``Transport.concurrency``: fixed, or ``"auto"``) is held here and nowhere else:
every attempt passes its gate while on the wire, and tells it how the attempt went.

Retry policy (the contract's *Reliability*):

- a GET is retried on connection errors, timeouts and the ``RetryPolicy``'s statuses (429 and 5xx
  by default);
- any request is retried on the statuses its operation marks "nothing was done, try later"
  (``HTTPRequest.retry_statuses``, from the spec: 429 everywhere, 423 on license assignment) and
  when the connection was refused before anything was sent; a POST is never retried otherwise, so
  a bulk job never enrolls or revokes twice;
- ``Retry-After`` (seconds or an HTTP date) is honoured up to the policy's ``max_retry_after``;
  otherwise the delay doubles from its ``initial_delay`` up to its ``max_delay``, with its jitter;
  the policy is the call's (``retry=``), else the client's or view's;
- a 401 makes one token refresh (shared with every call that saw the same token) and one retry,
  which does not count against ``max_retries``; when the token that the refresh fetched from the
  issuer is refused at once, the credentials are at fault and the 401 is final;
- with a rate budget (``Transport.budget``), every attempt draws from it, and a client-wide "try
  later" (``means_pause``) pauses every attempt that shares the budget;
- every attempt of an API request passes through the client's middleware (``_middleware``) before
  the token is attached; a ``proxy`` given to the client carries every request.
"""

from __future__ import annotations

import asyncio
import copy
import email.utils
import functools
import logging
import time
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence

import aiohttp
from attrs import define, field
from yarl import URL

from ._auth import ClientCredentials, TokenCache, TokenProvider
from ._concurrency import AdaptiveConcurrency, ConcurrencyLimit, FixedConcurrency
from ._constants import DEFAULT_PAUSE, MAX_RETRY_AFTER
from ._middleware import Middleware, OutgoingRequest, chain
from ._options import ClientOptions, RequestTrace, reset_current_trace, set_current_trace
from ._rate_limit import RateBudget
from ._redaction import Redactor
from ._request import HTTPRequest
from ._responses import RawResponse, read_bounded
from ._retry import RetryPolicy
from ._spec import ApiSpec
from .errors import APIConnectionError, APITimeoutError, ClientValidationError, ProxyAuthenticationError

__all__ = ["HTTPRequest", "RequestStats", "Transport", "means_pause", "parse_retry_after"]

logger = logging.getLogger("enterprise_async")

PROXY_REFUSAL = 407
"""The status with which a proxy refuses a request for want of its credentials (RFC 9110 15.5.8)."""


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


class _NoResponseError(Exception):
    """A request that got no response; ``sent`` tells whether it may have reached the server."""

    def __init__(self, error: APIConnectionError, *, sent: bool, kind: str) -> None:
        self.error = error
        self.sent = sent
        self.kind = kind


SessionGetter = Callable[[], aiohttp.ClientSession]
"""The client's session (``ClientStateError`` once the client is closed)."""


class Transport:
    """Sends ``HTTPRequest``s for one client and returns the final ``RawResponse`` of each."""

    def __init__(
        self,
        session: SessionGetter,
        *,
        options: ClientOptions,
        spec: ApiSpec,
        credentials: ClientCredentials,
        token_cache: TokenCache,
        budget: RateBudget | None = None,
        redactor: Redactor | None = None,
        proxy: str | None = None,
        proxy_from_environment: bool = False,
        middleware: Sequence[Middleware] = (),
    ) -> None:
        self._session = session
        self._redactor = redactor if redactor is not None else Redactor()
        self._max_response_bytes = options.max_response_bytes
        self._timeout = options.timeout.to_aiohttp()
        self._max_retries = options.max_retries
        self._retry = options.retry
        self._proxy = proxy
        self._proxy_from_environment = proxy_from_environment and proxy is None
        self._environment_proxies: dict[tuple[str, str], str | None] = {}
        self._middleware = tuple(middleware)
        self._concurrency_options = _concurrency_options(options)
        self.concurrency = concurrency_limit(options, budget)
        """The bound on this client's requests in flight, fixed or adaptive."""
        self._pause_statuses = spec.retry_statuses
        self._request_ids = (spec.request_id_headers, spec.request_id_placeholders)
        self.tokens = TokenProvider(
            functools.partial(credentials.fetch, self.send),
            cache=token_cache,
            key=credentials.cache_key,
            redactor=self._redactor,
        )
        self.stats = RequestStats()
        self.budget = budget
        """The rate budget every attempt draws from, and which a "try later" answer pauses."""

    def derive(
        self,
        options: ClientOptions,
        session: SessionGetter | None = None,
        middleware: Sequence[Middleware] | None = None,
    ) -> Transport:
        """A transport sending with ``options`` (and ``middleware``, None keeping this one's): the
        same session, tokens, statistics, budget and proxy.

        Everything but the options is shared by reference, not copied, so a client view adds no
        pool, no token and no budget of its own. A view with the same ``max_concurrency`` (and
        ``concurrency_bounds``) shares this transport's bound, an ``"auto"`` limit included; one
        with another has its own. ``session`` is how the view gets the pool (so that a closed view
        refuses to send); the parent's way by default.
        """
        view = copy.copy(self)
        if session is not None:
            view._session = session
        view._max_response_bytes = options.max_response_bytes
        view._timeout = options.timeout.to_aiohttp()
        view._max_retries = options.max_retries
        view._retry = options.retry
        if middleware is not None:
            view._middleware = tuple(middleware)
        if _concurrency_options(options) != self._concurrency_options:
            view._concurrency_options = _concurrency_options(options)
            view.concurrency = concurrency_limit(options, self.budget)
        return view

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

    def send(self, request: HTTPRequest) -> Awaitable[RawResponse]:
        """Send with the retry policy; ``APIConnectionError`` or ``APITimeoutError`` when no response came.

        The answer carries the seconds it took from the first attempt and the retries made.
        """
        return self._send(request, time.perf_counter())

    async def _send(self, request: HTTPRequest, started: float) -> RawResponse:
        policy = request.retry or self._retry
        attempt = 0
        fresh_from_issuer: str | None = None  # a token this request's last refresh fetched
        while True:
            token = self._token_in_hand(request) or await self._token(request)
            try:
                response = await self._attempt(request, token, attempt, started)
            except _NoResponseError as failure:
                fresh_from_issuer = None
                self.stats.faults[failure.kind] += 1
                if attempt >= self._max_retries or (failure.sent and not request.idempotent):
                    raise failure.error from failure.error.__cause__
                await self._backoff(request, policy, attempt, None, failure.kind)
                attempt += 1
                continue
            if response.status == 401 and token is not None:
                # A token fresh from the issuer refused at once: the credentials are at fault, not
                # the token's age. Any other 401 (an expired or revoked token) earns a refresh.
                if token == fresh_from_issuer:
                    return response
                self.stats.faults["401"] += 1
                self.stats.token_refreshes += 1
                refreshed = await self.tokens.refresh(stale=token)
                fresh_from_issuer = refreshed.value if refreshed.fetched else None
                continue
            fresh_from_issuer = None
            retryable = policy.retries_status(
                response.status, idempotent=request.idempotent, try_later=request.retry_statuses
            )
            if not retryable or attempt >= self._max_retries:
                return response
            self.stats.faults[str(response.status)] += 1
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
            await self._backoff(request, policy, attempt, retry_after, str(response.status))
            attempt += 1

    def _attempt(
        self, request: HTTPRequest, token: str | None, attempt: int, started: float
    ) -> Awaitable[RawResponse]:
        """One exchange, drawn from the rate budget (the token issuer is not the API's budget)."""
        if self.budget is None or not request.authenticated:
            return self._exchange(request, token, attempt, started)
        return self._budgeted(self.budget, request, token, attempt, started)

    async def _budgeted(
        self, budget: RateBudget, request: HTTPRequest, token: str | None, attempt: int, started: float
    ) -> RawResponse:
        """One exchange drawn from the rate budget; a "try later" answer pauses the whole budget."""
        async with budget.attempt():
            response = await self._exchange(request, token, attempt, started)
            if means_pause(request, response, self._pause_statuses):
                wait = parse_retry_after(response.headers.get("Retry-After"))
                await budget.pause(min(wait if wait is not None else DEFAULT_PAUSE, MAX_RETRY_AFTER))
            return response

    def _token_in_hand(self, request: HTTPRequest) -> str | None:
        """The fresh token an API request carries, without a coroutine; None when there is none yet
        (or the request is not the API's)."""
        return self.tokens.fresh() if request.authenticated else None

    async def _token(self, request: HTTPRequest) -> str | None:
        if not request.authenticated:
            return None
        return await self.tokens.token()

    async def _backoff(
        self, request: HTTPRequest, policy: RetryPolicy, attempt: int, retry_after: float | None, why: str
    ) -> None:
        self.stats.retries += 1
        delay = policy.delay(attempt, retry_after)
        logger.info(
            "%s %s: retry %d of %d in %.2f s after %s",
            request.method,
            request.path,
            attempt + 1,
            self._max_retries,
            delay,
            why,
            extra={"method": request.method, "path": request.path, "attempt": attempt + 1, "delay": delay},
        )
        await pause(delay)

    async def _exchange(
        self, request: HTTPRequest, token: str | None, attempt: int, started: float
    ) -> RawResponse:
        """One attempt, within the concurrency bound; ``started`` is when the first attempt began."""
        session = self._session()
        trace = RequestTrace(request.operation or request.path, request.page, attempt + 1)
        timeout = self._timeout if request.timeout is None else request.timeout.to_aiohttp()
        concurrency = self.concurrency
        unanswered: APIConnectionError | None = None
        ticket = concurrency.enter_now() or await concurrency.enter()
        try:
            if self.budget is not None and request.authenticated:
                await _draw(self.budget, request, timeout)  # right before sending: no burst of draws
            sent_at = time.perf_counter()
            current = set_current_trace(trace)
            try:
                if request.authenticated and self._middleware:  # the API's requests pass the middleware
                    raw = await self._through_middleware(session, request, trace, token, timeout, started)
                else:
                    raw = await self._wire(session, request, request, trace, token, timeout, started)
            except APIConnectionError as error:
                unanswered = error
            finally:
                reset_current_trace(current)
        finally:
            concurrency.leave()
        elapsed = time.perf_counter() - sent_at
        # The API's answers steer an adaptive bound; the token issuer's do not, and a fixed one hears nothing.
        if concurrency.adaptive and request.authenticated:
            status = None if unanswered else raw.status
            await concurrency.observe(ticket, status, elapsed, request.operation or "undocumented")
        if unanswered is not None:
            raise _unanswered(unanswered) from unanswered.__cause__
        _log_answer(request, raw, trace, elapsed * 1000)
        return raw

    async def _through_middleware(
        self,
        session: aiohttp.ClientSession,
        request: HTTPRequest,
        trace: RequestTrace,
        token: str | None,
        timeout: aiohttp.ClientTimeout,
        started: float,
    ) -> RawResponse:
        """The middleware chain, ending on the wire. Its answer (a middleware's own, or the
        wire's passed on) is timed when the chain gives it back."""

        def wire(sent: OutgoingRequest) -> Awaitable[RawResponse]:
            return self._wire(session, request, sent, sent.trace, token, timeout, started)

        outgoing = OutgoingRequest(request.method, request.url, request.headers, request.body, trace)
        answer = await chain(self._middleware, wire)(outgoing)
        return answer.timed(time.perf_counter() - started, trace.attempt - 1)

    async def _wire(
        self,
        session: aiohttp.ClientSession,
        request: HTTPRequest,
        sent: OutgoingRequest | HTTPRequest,
        trace: RequestTrace,
        token: str | None,
        timeout: aiohttp.ClientTimeout,
        started: float,
    ) -> RawResponse:
        """One exchange on the wire of ``sent`` (the request as the middleware passed it on, or as
        it was built); no answer raises ``APIConnectionError`` (or ``APITimeoutError``).

        The answer carries the seconds since ``started`` (the first attempt) and the retries before it.
        """
        if sent.url is not request.url and sent.url.origin() != request.url.origin():
            raise ClientValidationError(
                "middleware", f"may not send {request.path} to another host: the token goes to base_url only"
            )
        headers = dict(sent.headers)
        if token is not None:
            headers["Authorization"] = f"JWT {token}"
        self.stats.requests += 1
        try:
            async with session.request(
                sent.method,
                sent.url,
                data=sent.body,
                headers=headers,
                timeout=timeout,
                proxy=self._proxy_for(sent.url),
                allow_redirects=False,  # a redirect must not carry the token to another host
                trace_request_ctx=trace,
            ) as response:
                body = await read_bounded(
                    response, limit=self._max_response_bytes, method=request.method, path=request.path
                )
                return RawResponse(
                    status=response.status,
                    reason=response.reason or "",
                    headers=response.headers,
                    body=body,
                    method=request.method,
                    path=request.path,
                    elapsed=time.perf_counter() - started,
                    retries=trace.attempt - 1,
                    request_id_headers=self._request_ids[0],
                    request_id_placeholders=self._request_ids[1],
                    redactor=self._redactor,
                )
        except (asyncio.TimeoutError, aiohttp.ServerTimeoutError) as error:
            raise self._failure(request, error, APITimeoutError) from error
        except aiohttp.ClientHttpProxyError as error:
            if error.status == PROXY_REFUSAL:
                raise proxy_refused(request, error) from None
            raise self._failure(request, error, APIConnectionError) from error
        except aiohttp.ClientError as error:
            raise self._failure(request, error, APIConnectionError) from error

    def _failure(
        self, request: HTTPRequest, error: BaseException, error_class: type[APIConnectionError]
    ) -> APIConnectionError:
        if error_class is APITimeoutError:
            reason = f"timed out ({_timeout_kind(error)})"
        else:
            reason = self._redactor.text(f"failed: {type(error).__name__}: {error}")
        logger.debug("%s %s %s", request.method, request.path, reason)
        return error_class(
            f"{request.method} {request.path} {reason}", method=request.method, path=request.path
        )


def proxy_refused(request: HTTPRequest, error: aiohttp.ClientHttpProxyError) -> ProxyAuthenticationError:
    """The proxy's 407 to the tunnel of an https request: the request never reached the API."""
    reason = f"{error.status} {error.message}" if error.message else str(error.status)
    return ProxyAuthenticationError(
        f"{request.method} {request.path}: the proxy refused to carry it ({reason}); give the proxy "
        "its credentials in the proxy URL (http://user:password@host:port)",
        status=error.status,
        headers=dict(error.headers or {}),
        method=request.method,
        path=request.path,
    )


def concurrency_limit(options: ClientOptions, budget: RateBudget | None) -> ConcurrencyLimit:
    """The bound of ``options``: ``max_concurrency`` as a fixed gate, or ``"auto"`` adapting within
    ``concurrency_bounds``, kept with the rate budget (and so shared with it) when there is one."""
    if options.max_concurrency == "auto":
        return AdaptiveConcurrency(options.concurrency_bounds, shared=budget)
    return FixedConcurrency(options.max_concurrency)


def _concurrency_options(options: ClientOptions) -> tuple[object, ...]:
    """What decides a transport's bound: views that agree on it share one."""
    if options.max_concurrency == "auto":
        return ("auto", options.concurrency_bounds)
    return (options.max_concurrency,)


def _timeout_kind(error: BaseException) -> str:
    """Which limit ran out: ``connect``, ``read`` or ``total`` (``Timeout``'s names)."""
    if isinstance(error, aiohttp.ConnectionTimeoutError):
        return "connect"
    if isinstance(error, aiohttp.SocketTimeoutError):
        return "read"
    return "total"


def _unanswered(error: APIConnectionError) -> _NoResponseError:
    """What the retry loop needs to know of a request that got no answer, read from its cause:
    nothing was sent when no connection was made (refused, or the connect limit ran out), so a
    retry is safe whatever the method; anything else (a middleware's own error too) may have
    reached the server."""
    cause = error.__cause__
    if isinstance(cause, aiohttp.ConnectionTimeoutError):
        return _NoResponseError(error, sent=False, kind="timeout")
    if isinstance(error, APITimeoutError):
        return _NoResponseError(error, sent=True, kind="timeout")
    if isinstance(cause, aiohttp.ClientConnectorError):
        return _NoResponseError(error, sent=False, kind="refused")
    return _NoResponseError(error, sent=True, kind="connection")


async def _draw(budget: RateBudget, request: HTTPRequest, timeout: aiohttp.ClientTimeout) -> None:
    """Draw from the rate budget, waiting no longer than the request's timeout.

    A budget of "1/hour" would otherwise hold the second call for an hour, whatever its
    timeout; the wait is not retried (another wait would end the same way).
    """
    try:
        await asyncio.wait_for(budget.draw(), timeout.total)
    except asyncio.TimeoutError:
        raise APITimeoutError(
            f"{request.method} {request.path} waited longer than its timeout ({timeout.total:g} s) for "
            "the rate budget (rate_limit); nothing was sent",
            method=request.method,
            path=request.path,
        ) from None


def _log_answer(request: HTTPRequest, raw: RawResponse, trace: RequestTrace, elapsed_ms: float) -> None:
    """One DEBUG record per answer; it carries the gateway's request id when the answer had one."""
    if not logger.isEnabledFor(logging.DEBUG):
        return
    request_id = raw.request_id
    logger.debug(
        "%s %s -> %d in %.1f ms (%s)%s",
        request.method,
        request.path,
        raw.status,
        elapsed_ms,
        trace,
        f" request id {request_id}" if request_id else "",
        extra={
            "method": request.method,
            "path": request.path,
            "status": raw.status,
            "attempt": trace.attempt,
            "operation": trace.operation,
            "page": trace.page,
            "request_id": request_id,
        },
    )


def means_pause(request: HTTPRequest, response: RawResponse, pause_statuses: frozenset[int]) -> bool:
    """Whether an answer says "try later" to every request of the client, not just this one.

    Those are the spec's client-wide retry statuses (``x-sdk-retry-statuses``: 429, the throttle
    counts per user). A status only one operation retries (``x-sdk-retry``: license assignment's
    423, a lock on one subscription plan) is retried by that request alone: pausing the client
    would stall calls the lock does not concern.
    """
    return response.status in pause_statuses and request.authenticated


async def pause(seconds: float) -> None:
    """Wait between attempts (looked up at call time, so tests can record backoffs instead)."""
    await asyncio.sleep(seconds)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())
