"""Send requests: authenticate, retry; each attempt admitted (``admission``), then on the wire (``wire``).

The send chain, from a resource method to ``session.request``, is five steps, one frame each:
``BaseClient.call`` prepares the request, ``Transport.send`` authenticates it (and refreshes the
token once after a 401), ``Transport._retrying`` makes its attempts, ``admitted`` holds each one's
place in the budget and the bound while it passes the middleware, and ``Wire.send`` puts one on
the wire. One ``Attempt`` carries an attempt through them.

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
- every attempt of an API request passes through the client's middleware (``_transport.middleware``) before
  the token is attached; a ``proxy`` given to the client carries every request.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Sequence
from typing import Any

import aiohttp
import attrs
from yarl import URL

from .._request.options import ClientOptions
from .._request.request import ACCEPT, HTTPRequest
from .._request.retry import RetryPolicy
from .._response.responses import RawResponse
from .._spec import ApiSpec, Operation
from .._utils.redaction import Redactor
from ..errors import APIConnectionError, APITimeoutError
from .adaptive import AdaptiveConcurrency
from .admission import Exchange, admitted, means_pause
from .auth import ClientCredentials, InMemoryTokenCache, Secret, TokenCache, TokenProvider
from .concurrency import ConcurrencyLimit, FixedConcurrency
from .middleware import Middleware, chain
from .rate_limit import RateBudget
from .telemetry import Telemetry
from .wire import Attempt, RequestStats, SessionGetter, Wire

__all__ = ["HTTPRequest", "Link", "RequestStats", "Transport", "means_pause"]

logger = logging.getLogger("enterprise_async")


class Link:
    """What a client and every ``with_options`` view of it send through together: the statistics,
    the telemetry, the token (with the request that fetches it), the rate budget, the wire's
    settings, and the bound on requests in flight of the client's concurrency options.

    Made once, by the client; each view's ``Transport`` is built over it, so a view adds no pool,
    no token and no budget of its own.
    """

    def __init__(
        self,
        session: SessionGetter,
        *,
        options: ClientOptions,
        spec: ApiSpec,
        client_id: str,
        secret: Secret,
        auth_url: URL,
        token_cache: TokenCache | None = None,
        budget: RateBudget | None = None,
        redactor: Redactor | None = None,
        proxy: str | None = None,
        proxy_from_environment: bool = False,
    ) -> None:
        self.redactor = redactor if redactor is not None else Redactor()
        self.stats = RequestStats()
        self.telemetry = Telemetry(self.redactor)
        self.budget = budget
        self.credentials = ClientCredentials(
            client_id,
            secret,
            auth_url,
            retry_statuses=spec.retry_statuses,
            request_id_header=spec.request_id_header,
        )
        self.pause_statuses = spec.retry_statuses
        self.request_ids = (spec.request_id_headers, spec.request_id_placeholders)
        self.proxy = proxy
        self.proxy_from_environment = proxy_from_environment
        self._bound = (_concurrency_options(options), concurrency_limit(options, budget))
        self.tokens = TokenProvider(
            self._fetch_token,
            cache=token_cache if token_cache is not None else InMemoryTokenCache(),
            key=self.credentials.cache_key,
            redactor=self.redactor,
        )
        self._issuer = Transport(session, options=options, link=self)

    def _fetch_token(self) -> Awaitable[tuple[str, float]]:
        """A new token from the issuer, asked with the client's options (its timeout, retries)."""
        return self.credentials.fetch(self._issuer.send)

    def bound(self, options: ClientOptions) -> ConcurrencyLimit:
        """The bound on requests in flight of ``options``: the client's own (an ``"auto"`` limit
        included) where they agree with the client's, else one of their own."""
        same, limit = self._bound
        return limit if _concurrency_options(options) == same else concurrency_limit(options, self.budget)


class Transport:
    """Sends ``HTTPRequest``s for one client (or view) and returns the final ``RawResponse`` of each."""

    def __init__(
        self,
        session: SessionGetter,
        *,
        options: ClientOptions,
        link: Link,
        middleware: Sequence[Middleware] = (),
    ) -> None:
        self.stats = link.stats
        self.telemetry = link.telemetry
        """The spans and metrics of this client's calls (OpenTelemetry, when configured)."""
        self._wire = Wire(
            session,
            stats=link.stats,
            redactor=link.redactor,
            max_response_bytes=options.max_response_bytes,
            request_ids=link.request_ids,
            proxy=link.proxy,
            proxy_from_environment=link.proxy_from_environment,
        )
        self._timeout = options.timeout.to_aiohttp()
        self._rate_wait = options.timeout.rate_wait
        self._max_retries = options.max_retries
        self._retry = options.retry
        self._middleware = tuple(middleware)
        self.concurrency = link.bound(options)
        """The bound on this client's requests in flight, fixed or adaptive."""
        self._pause_statuses = link.pause_statuses
        self.tokens = link.tokens
        """The token that the client and every view of it send with."""
        self.budget = link.budget
        """The rate budget every attempt draws from, and which a "try later" answer pauses."""

    async def send(self, request: HTTPRequest) -> RawResponse:
        """Send with the token and the retry policy; ``APIConnectionError`` or ``APITimeoutError``
        when no response came. The answer carries the seconds since the first attempt began and
        the retries made.

        A 401 earns one token refresh, shared with every call that saw the same token, and one
        more attempt that counts against no retry; a token fresh from the issuer refused at once
        (no other fault between) means the credentials are at fault, and that 401 is final.
        """
        if request.timeout is None:
            attempt = Attempt(request, time.perf_counter(), self._timeout, self._rate_wait)
        else:
            limits = request.timeout
            attempt = Attempt(request, time.perf_counter(), limits.to_aiohttp(), limits.rate_wait)
        if not request.authenticated:
            return await self._retrying(attempt)
        attempt.token = self.tokens.held() or await self.tokens.token()
        response = await self._retrying(attempt)
        issued_for = 0  # the attempt a token fresh from the issuer went with
        while response.status == 401 and attempt.number != issued_for:
            self.stats.faults["401"] += 1
            self.stats.token_refreshes += 1
            refreshed = await self.tokens.refresh(stale=attempt.token)
            attempt.token = refreshed.value
            issued_for = attempt.number if refreshed.fetched else 0
            response = await self._retrying(attempt)
        return response

    async def send_asking_json_again(self, operation: Operation[Any], request: HTTPRequest) -> RawResponse:
        """The answer to a request asking for XML, for an operation that names fallback statuses
        (``json_fallback_statuses``: 406 from a view that renders JSON only); on one of them the
        same request (its request id too) is sent once more, asking for JSON, which decodes to
        the same models."""
        response = await self.send(request)
        if response.status not in operation.json_fallback_statuses:
            return response
        logger.debug(
            "%s: %s %s answered %d in XML; asking once more in JSON",
            operation.name,
            request.method,
            request.path,
            response.status,
            extra={"sdk_operation": operation.name, "sdk_status": response.status, "sdk_format": "json"},
        )
        return await self.send(attrs.evolve(request, headers={**request.headers, "Accept": ACCEPT["json"]}))

    async def _retrying(self, attempt: Attempt) -> RawResponse:
        """Attempts until an answer not worth another, or the retries are spent; each attempt holds
        its place in the budget and the bound while it passes the middleware to the wire."""
        request = attempt.request
        policy = request.retry or self._retry
        exchange: Exchange = (
            self._through_middleware if request.authenticated and self._middleware else self._to_the_wire
        )
        while True:
            try:
                response = await admitted(
                    attempt, exchange, self.concurrency, self.budget, self._pause_statuses, self.telemetry
                )
            except APIConnectionError as error:
                if not attempt.admitted:
                    raise  # the rate budget's wait ran out: another wait would end the same way
                sent, kind = _unanswered(error)
                self.stats.faults[kind] += 1
                if attempt.retries >= self._max_retries or (sent and not request.idempotent):
                    raise
                await self._backoff(attempt, policy, None, kind)
                continue
            retryable = policy.retries_status(
                response.status, idempotent=request.idempotent, try_later=request.retry_statuses
            )
            if not retryable or attempt.retries >= self._max_retries:
                return response
            self.stats.faults[str(response.status)] += 1
            retry_after = response.retry_after
            await self._backoff(attempt, policy, retry_after, str(response.status))

    def _to_the_wire(self, attempt: Attempt) -> Awaitable[RawResponse]:
        """The attempt straight to the wire: the token issuer's request (its body holds the
        secret), and every request of a client without middleware."""
        return self._wire.send(attempt, attempt.request)

    async def _through_middleware(self, attempt: Attempt) -> RawResponse:
        """The attempt through the client's middleware to the wire; the answer (a middleware's
        own, too) timed from the call's start."""
        wire = functools.partial(self._wire.send, attempt)
        return attempt.timed(await chain(self._middleware, wire)(attempt.outgoing()))

    async def _backoff(
        self, attempt: Attempt, policy: RetryPolicy, retry_after: float | None, why: str
    ) -> None:
        """Wait before the next attempt (the policy's delay, or the server's ``Retry-After``), then
        move the attempt on."""
        request = attempt.request
        self.stats.retries += 1
        self.telemetry.retried(request, why)
        delay = policy.delay(attempt.retries, retry_after)
        logger.info(
            "%s %s: retry %d of %d in %.2f s after %s",
            request.method,
            request.path,
            attempt.number,
            self._max_retries,
            delay,
            why,
            extra={"method": request.method, "path": request.path, "attempt": attempt.number, "delay": delay},
        )
        await asyncio.sleep(delay)
        attempt.advance()


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


def _unanswered(error: APIConnectionError) -> tuple[bool, str]:
    """Whether an attempt that got no answer may have reached the server, and what went wrong,
    read from its cause: nothing was sent when no connection was made (refused, or the connect
    limit ran out), so a retry is safe whatever the method; anything else (a middleware's own
    error too) may have reached the server."""
    cause = error.__cause__
    if isinstance(cause, aiohttp.ConnectionTimeoutError):
        return False, "timeout"
    if isinstance(error, APITimeoutError):
        return True, "timeout"
    if isinstance(cause, aiohttp.ClientConnectorError):
        return False, "refused"
    return True, "connection"
