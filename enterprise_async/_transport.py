"""Send requests: authentication, the client-wide concurrency bound, timeouts, retries, logging.

Retry policy (the contract's *Reliability*):

- a GET is retried on connection errors, timeouts, 429 and 5xx;
- any request is retried on 429 and when the connection was refused before anything was sent;
  a POST is never retried otherwise, so a bulk job never enrolls or revokes twice;
- ``Retry-After`` (seconds or an HTTP date) is honoured up to ``MAX_RETRY_AFTER``; otherwise the
  delay doubles from ``INITIAL_RETRY_DELAY`` up to ``MAX_RETRY_DELAY``, with jitter;
- a 401 makes one token refresh (shared with every call that saw the same token) and one retry,
  which does not count against ``max_retries``; when the token that the refresh fetched from the
  issuer is refused at once, the credentials are at fault and the 401 is final.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping

import aiohttp
from attrs import define, field, frozen
from yarl import URL

from ._auth import TokenProvider
from ._constants import DEFAULT_PAUSE, INITIAL_RETRY_DELAY, MAX_RETRY_AFTER, MAX_RETRY_DELAY
from ._rate_limit import RateBudget
from ._responses import RawResponse
from .errors import APIConnectionError, APITimeoutError

__all__ = ["HTTPRequest", "RequestStats", "Transport", "parse_retry_after"]

logger = logging.getLogger("enterprise_async")


@frozen
class HTTPRequest:
    """One request as it goes on the wire. ``path`` (without host or query) is what logs and errors show."""

    method: str
    url: URL
    path: str
    headers: Mapping[str, str]
    body: bytes | None = None
    idempotent: bool = False
    authenticated: bool = True


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


SessionGetter = Callable[[], Awaitable[aiohttp.ClientSession]]


class Transport:
    """Sends ``HTTPRequest``s for one client and returns the final ``RawResponse`` of each."""

    def __init__(
        self,
        session: SessionGetter,
        *,
        tokens: TokenProvider | None,
        timeout: float,
        max_retries: int,
        max_concurrency: int,
    ) -> None:
        self._session = session
        self._tokens = tokens
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._max_retries = max_retries
        self._slots = asyncio.Semaphore(max_concurrency)
        self.stats = RequestStats()
        self.budget: RateBudget | None = None
        """The rate budget every attempt draws from, and which a "try later" answer pauses."""

    def bind_tokens(self, tokens: TokenProvider) -> None:
        self._tokens = tokens

    async def send(self, request: HTTPRequest) -> RawResponse:
        """Send with the retry policy; ``APIConnectionError`` or ``APITimeoutError`` when no response came."""
        attempt = 0
        fresh_from_issuer: str | None = None  # a token this request's last refresh fetched
        while True:
            token = await self._token(request)
            try:
                response = await self._attempt(request, token, attempt)
            except _NoResponseError as failure:
                fresh_from_issuer = None
                self.stats.faults[failure.kind] += 1
                if attempt >= self._max_retries or (failure.sent and not request.idempotent):
                    raise failure.error from failure.error.__cause__
                await self._backoff(attempt, None)
                attempt += 1
                continue
            if response.status == 401 and token is not None and self._tokens is not None:
                # A token fresh from the issuer refused at once: the credentials are at fault, not
                # the token's age. Any other 401 (an expired or revoked token) earns a refresh.
                if token == fresh_from_issuer:
                    return response
                self.stats.faults["401"] += 1
                self.stats.token_refreshes += 1
                refreshed = await self._tokens.refresh(stale=token)
                fresh_from_issuer = refreshed.value if refreshed.fetched else None
                continue
            fresh_from_issuer = None
            if not self._retryable(request, response) or attempt >= self._max_retries:
                return response
            self.stats.faults[str(response.status)] += 1
            await self._backoff(attempt, parse_retry_after(response.headers.get("Retry-After")))
            attempt += 1

    async def _attempt(self, request: HTTPRequest, token: str | None, attempt: int) -> RawResponse:
        """One exchange, drawn from the rate budget; a "try later" answer pauses the whole budget."""
        budget = self.budget
        if budget is None or not request.authenticated:  # the token issuer is not the API's budget
            return await self._exchange(request, token, attempt)
        async with budget.attempt():
            response = await self._exchange(request, token, attempt)
            if means_pause(request, response):
                wait = parse_retry_after(response.headers.get("Retry-After"))
                await budget.pause(min(wait if wait is not None else DEFAULT_PAUSE, MAX_RETRY_AFTER))
            return response

    async def _token(self, request: HTTPRequest) -> str | None:
        if not request.authenticated or self._tokens is None:
            return None
        return await self._tokens.token()

    @staticmethod
    def _retryable(request: HTTPRequest, response: RawResponse) -> bool:
        if response.status == 429:
            return True
        return request.idempotent and response.status >= 500

    async def _backoff(self, attempt: int, retry_after: float | None) -> None:
        self.stats.retries += 1
        if retry_after is not None:
            delay = min(retry_after, MAX_RETRY_AFTER)
        else:
            ceiling = min(MAX_RETRY_DELAY, INITIAL_RETRY_DELAY * 2**attempt)
            delay = ceiling / 2 + random.uniform(0, ceiling / 2)
        await pause(delay)

    async def _exchange(self, request: HTTPRequest, token: str | None, attempt: int) -> RawResponse:
        headers = dict(request.headers)
        if token is not None:
            headers["Authorization"] = f"JWT {token}"
        session = await self._session()
        async with self._slots:
            if self.budget is not None and request.authenticated:
                await self.budget.draw()  # drawn right before sending: no burst of drawn requests
            started = time.perf_counter()
            self.stats.requests += 1
            try:
                async with session.request(
                    request.method,
                    request.url,
                    data=request.body,
                    headers=headers,
                    timeout=self._timeout,
                    allow_redirects=False,  # a redirect must not carry the token to another host
                ) as response:
                    body = await response.read()
                    raw = RawResponse(
                        status=response.status,
                        reason=response.reason or "",
                        headers=response.headers,
                        body=body,
                        method=request.method,
                        path=request.path,
                    )
            except (asyncio.TimeoutError, aiohttp.ServerTimeoutError) as error:
                raise self._failure(request, error, APITimeoutError, sent=True, kind="timeout") from error
            except aiohttp.ClientConnectorError as error:
                # No connection was made, so nothing was sent: safe to retry whatever the method.
                raise self._failure(request, error, APIConnectionError, sent=False, kind="refused") from error
            except aiohttp.ClientError as error:
                raise self._failure(
                    request, error, APIConnectionError, sent=True, kind="connection"
                ) from error
        elapsed = (time.perf_counter() - started) * 1000
        logger.debug(
            "%s %s -> %d in %.1f ms (attempt %d)",
            request.method,
            request.path,
            raw.status,
            elapsed,
            attempt + 1,
            extra={
                "method": request.method,
                "path": request.path,
                "status": raw.status,
                "attempt": attempt + 1,
            },
        )
        return raw

    @staticmethod
    def _failure(
        request: HTTPRequest,
        error: BaseException,
        error_class: type[APIConnectionError],
        *,
        sent: bool,
        kind: str,
    ) -> _NoResponseError:
        reason = "timed out" if error_class is APITimeoutError else f"failed: {type(error).__name__}: {error}"
        logger.debug("%s %s %s", request.method, request.path, reason)
        wrapped = error_class(
            f"{request.method} {request.path} {reason}", method=request.method, path=request.path
        )
        wrapped.__cause__ = error
        return _NoResponseError(wrapped, sent=sent, kind=kind)


def means_pause(request: HTTPRequest, response: RawResponse) -> bool:
    """Whether an answer says "nothing was done, try later" for every request of the client."""
    return response.status == 429


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
