"""Access tokens: fetched once, shared by every concurrent call, refreshed before they expire.

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
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

from attrs import frozen

from ._constants import MAX_TOKEN_REFRESH_MARGIN, TOKEN_REFRESH_RATIO
from ._redaction import Redactor

__all__ = [
    "CachedToken",
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

    async def token(self) -> str:
        """A token valid for a while yet; fetched at most once however many callers wait for it."""
        current = self._current
        if current is not None and current.fresh(self._clock()):
            return current.value
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
