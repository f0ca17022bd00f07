"""Access tokens: fetched once, shared by every concurrent call, refreshed before they expire.

``ClientCredentials`` is how a token is asked for: the client-credentials grant, posted as a form
to the issuer, and how its answer (or refusal) is read.
``TokenCache`` is the seam for sharing one token among many workers; ``InMemoryTokenCache`` is the
default, and ``RedisTokenCache`` (a ``SharedTokenCache``) shares the token, and makes its fetch
single-flight, across the processes of a fleet. ``TokenProvider`` keeps
the client's current token, makes sure one request serves any number of waiting callers, and
handles the refresh after a 401 once for every call that saw the same stale token.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable
from urllib.parse import urlencode

from attrs import frozen
from yarl import URL

from .._request.request import HTTPRequest
from .._response.error_detail import error_detail
from .._response.responses import RawResponse
from .._utils.constants import (
    DEFAULT_TOKEN_LIFETIME,
    MAX_TOKEN_REFRESH_MARGIN,
    TOKEN_OPERATION,
    TOKEN_PATH,
    TOKEN_REFRESH_RATIO,
    USER_AGENT,
)
from .._utils.redaction import Redactor
from ..errors import APIStatusError, AuthenticationError, ResponseDecodeError, ServerError, status_error_class

__all__ = [
    "CachedToken",
    "ClientCredentials",
    "Secret",
    "InMemoryTokenCache",
    "Refreshed",
    "SharedTokenCache",
    "TokenCache",
    "TokenIssue",
    "TokenProvider",
    "token_cache_key",
]


@frozen(repr=False)
class CachedToken:
    """A token and the wall-clock times (``time.time()``) at which it expires and should be replaced."""

    value: str
    expires_at: float
    refresh_at: float

    @classmethod
    def issued(cls, value: str, lifetime: float, *, now: float) -> CachedToken:
        """A token issued at ``now`` for ``lifetime`` seconds.

        The safety margin scales with the lifetime (10%, at most a minute), so a 2-second token is
        still reused for 1.8 seconds and an hour-long one until a minute before it expires.
        """
        margin = min(MAX_TOKEN_REFRESH_MARGIN, max(lifetime, 0.0) * TOKEN_REFRESH_RATIO)
        return cls(value=value, expires_at=now + lifetime, refresh_at=now + lifetime - margin)

    def fresh(self, now: float) -> bool:
        return now < self.refresh_at

    def __repr__(self) -> str:  # the token itself never appears in a repr
        times = f"expires_at={self.expires_at:.3f}, refresh_at={self.refresh_at:.3f}"
        return f"CachedToken(value='<redacted>', {times})"


@runtime_checkable
class TokenCache(Protocol):
    """Where tokens are kept between requests; share one among workers to share their token."""

    async def get(self, key: str) -> CachedToken | None:
        """The token stored under ``key``, if any (expired ones may be returned; the caller checks)."""
        ...

    async def set(self, key: str, token: CachedToken) -> None:
        """Store ``token`` under ``key``."""
        ...


TokenIssue = Callable[[], Awaitable[CachedToken]]
"""Fetches a new token from the issuer (for a shared cache to call while it holds its lock)."""


@runtime_checkable
class SharedTokenCache(TokenCache, Protocol):
    """A ``TokenCache`` shared by processes, which makes a fetch single-flight among all of them."""

    async def fetch_once(self, key: str, *, stale: str | None, fetch: TokenIssue) -> CachedToken:
        """A usable token other than ``stale``: stored, or fetched by one process for all."""
        ...


class InMemoryTokenCache:
    """A process-local ``TokenCache``: a dictionary."""

    def __init__(self) -> None:
        self._tokens: dict[str, CachedToken] = {}

    async def get(self, key: str) -> CachedToken | None:
        return self._tokens.get(key)

    async def set(self, key: str, token: CachedToken) -> None:
        self._tokens[key] = token

    def __repr__(self) -> str:
        return f"InMemoryTokenCache({len(self._tokens)} tokens)"


def token_cache_key(auth_url: str, client_id: str) -> str:
    """The cache key of a client's token: its issuer and client id, hashed (never the secret)."""
    digest = hashlib.sha256(f"{auth_url}\0{client_id}".encode()).hexdigest()[:32]
    return f"enterprise-async:token:{digest}"


@frozen(repr=False)
class Refreshed:
    """The outcome of a refresh: the token to use, and whether this refresh fetched it from the issuer."""

    value: str
    fetched: bool


TokenFetcher = Callable[[], Awaitable[tuple[str, float]]]
"""Requests a new token from the issuer; returns the token and its lifetime in seconds."""


class TokenProvider:
    """The client's view of its token: cached, single-flight, refreshed once per stale token."""

    def __init__(
        self,
        fetch: TokenFetcher,
        *,
        cache: TokenCache,
        key: str,
        clock: Callable[[], float] = time.time,
        redactor: Redactor | None = None,
    ) -> None:
        self._fetch = fetch
        self._cache = cache
        self._key = key
        self._clock = clock
        self._redactor = redactor if redactor is not None else Redactor()
        """Learns every token this provider holds, so that no echo of one shows it."""
        self._current: CachedToken | None = None
        self._lock = asyncio.Lock()
        self.requests = 0
        """Tokens requested from the issuer by this provider (for tests and benchmarks)."""

    def held(self) -> str | None:
        """The token in hand while it is valid for a while yet, else None (``token`` gets one)."""
        current = self._current
        return current.value if current is not None and current.fresh(self._clock()) else None

    async def token(self) -> str:
        """A token valid for a while yet; fetched at most once however many callers wait for it."""
        held = self.held()
        if held is not None:
            return held
        async with self._lock:
            return (await self._usable(stale=None)).value

    async def refresh(self, stale: str) -> Refreshed:
        """A token other than ``stale`` (which the server refused with 401).

        Every call that saw the same stale token shares one new token: the first one to get here
        fetches it (``fetched`` is true for it), the others find it already replaced.
        """
        async with self._lock:
            before = self.requests
            token = await self._usable(stale=stale)
            return Refreshed(token.value, fetched=self.requests > before)

    async def _usable(self, *, stale: str | None) -> CachedToken:
        now = self._clock()
        for candidate in (self._current, await self._cache.get(self._key)):
            if candidate is not None:
                self._redactor.add_token(candidate.value)  # a stale one may still be echoed
            if candidate is not None and candidate.value != stale and candidate.fresh(now):
                self._current = candidate
                return candidate
        if isinstance(self._cache, SharedTokenCache):
            token = await self._cache.fetch_once(self._key, stale=stale, fetch=self._issue)
        else:
            token = await self._issue()
            await self._cache.set(self._key, token)
        self._redactor.add_token(token.value)
        self._current = token
        return token

    async def _issue(self) -> CachedToken:
        value, lifetime = await self._fetch()
        self._redactor.add_token(value)
        self.requests += 1
        return CachedToken.issued(value, lifetime, now=self._clock())

    def __repr__(self) -> str:
        return f"TokenProvider(requests={self.requests})"


class Secret:
    """Holds the client secret so that no repr, vars() dump or traceback local shows it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "<redacted>"


_REFUSALS = frozenset({400, 401})
"""Statuses with which the issuer refuses the credentials (OAuth2: ``invalid_client``...)."""

Send = Callable[[HTTPRequest], Awaitable[RawResponse]]
"""Sends a request with the transport's retries (for the token request)."""


class ClientCredentials:
    """The client-credentials grant: who asks for a token, where, and how its answer is read.

    The secret only ever goes to ``auth_url``'s token path, and never into a message.
    """

    def __init__(
        self,
        client_id: str,
        secret: Secret,
        auth_url: URL,
        *,
        retry_statuses: frozenset[int],
        request_id_header: str | None = None,
    ) -> None:
        self.client_id = client_id
        self.secret = secret
        self.auth_url = auth_url
        self._retry_statuses = retry_statuses
        self._request_id_header = request_id_header

    @property
    def cache_key(self) -> str:
        """The key of this client's token in a ``TokenCache``."""
        return token_cache_key(str(self.auth_url), self.client_id)

    async def fetch(self, send: Send) -> tuple[str, float]:
        """A new token and its lifetime in seconds, asked of the issuer through ``send``."""
        response = await send(self._request())
        if response.status != 200:
            raise self._failure(response)
        return self._token_from(response)

    def _request(self) -> HTTPRequest:
        form = {
            "grant_type": "client_credentials",
            "client_id": self.client_id,
            "client_secret": self.secret.reveal(),
            "token_type": "jwt",
        }
        headers = {
            "Accept": "application/json",
            "Content-Type": "application/x-www-form-urlencoded",
            "User-Agent": USER_AGENT,
        }
        request_id = str(uuid.uuid4())
        if self._request_id_header is not None:
            headers[self._request_id_header] = request_id
        return HTTPRequest(
            method="POST",
            url=URL(str(self.auth_url).rstrip("/") + TOKEN_PATH, encoded=True),
            path=TOKEN_PATH,
            headers=headers,
            body=urlencode(form).encode(),
            idempotent=True,  # issuing a token has no side effect worth protecting
            authenticated=False,
            retry_statuses=self._retry_statuses,
            operation=TOKEN_OPERATION,
            request_id=request_id if self._request_id_header is not None else None,
        )

    def _token_from(self, response: RawResponse) -> tuple[str, float]:
        if response.content_type == "text/html":
            raise self._outage(response)  # a gateway's or a proxy's page, not the issuer's answer
        try:
            body = response.data()
        except ResponseDecodeError as error:
            raise ResponseDecodeError(
                f"the token response cannot be read: {error}",
                status=response.status,
                body=error.body,
            ) from None
        fields = body if isinstance(body, dict) else {}
        token = fields.get("access_token")
        if not isinstance(token, str) or not token:
            raise ResponseDecodeError(
                f"the token response of {response.where} has no access_token", status=response.status
            )
        return token, token_lifetime(fields.get("expires_in"))

    def _failure(self, response: RawResponse) -> APIStatusError:
        """A refusal (400, 401: the credentials) is an ``AuthenticationError``; anything else is
        classed by its status, a 5xx as a ``ServerError`` (an outage, retried before it gets here)."""
        if response.status in _REFUSALS:
            return self._status_error(response, AuthenticationError, "was refused with")
        return self._outage(response)

    def _outage(self, response: RawResponse) -> APIStatusError:
        error_class = status_error_class(response.status)
        if error_class is APIStatusError or response.status < 300:
            error_class = ServerError  # an HTML page on a success or an odd status: not the issuer
        return self._status_error(response, error_class, "failed with")

    def _status_error(
        self, response: RawResponse, error_class: type[APIStatusError], verb: str
    ) -> APIStatusError:
        body = response.shown_body()
        detail = response.redactor.text(error_detail(body))
        kind = f" ({response.content_type})" if response.content_type else ""
        message = f"the token request ({response.where}) {verb} {response.status} {response.reason}{kind}"
        return error_class(
            f"{message}: {detail}" if detail else message,
            status=response.status,
            body=body,
            headers=response.shown_headers(),
            method="POST",
            path=TOKEN_PATH,
            request_id=response.request_id,
            response_request_id=response.response_request_id,
        )


def token_lifetime(expires_in: object) -> float:
    """Seconds a token lives: ``expires_in`` as sent (an integer, or a string such as "3600" or
    "2.5"); the default when it is missing or unreadable."""
    if isinstance(expires_in, bool) or not isinstance(expires_in, (int, float, str)):
        return DEFAULT_TOKEN_LIFETIME
    try:
        lifetime = float(expires_in)
    except ValueError:
        return DEFAULT_TOKEN_LIFETIME
    return lifetime if 0 < lifetime < float("inf") else DEFAULT_TOKEN_LIFETIME
