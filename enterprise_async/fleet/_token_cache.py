"""``RedisTokenCache``: one access token for every process that points at the same Redis.

A token is stored under ``enterprise-async:token:<digest>`` (``<digest>``: a hash of the auth URL
and client id) as JSON (the token and its expiry times), and expires from Redis when the token does.
Only the token goes to Redis, never the client secret.

Single flight across processes: the process that finds no usable token takes the lock
``enterprise-async:token:<digest>:lock`` (``SET NX PX``, so a holder that dies frees it after
``lock_ttl`` seconds), fetches, and stores the token; the others poll until it is there. A refresh
after a 401 names the stale token, and the new one is stored by compare-and-swap on the value that
was seen before fetching, so a fleet that saw the same token refused fetches one new token.

Redis away (down, frozen, restarting): a call is retried for ``retry_window`` seconds, then the
cache does without Redis, logging a WARNING: this process fetches its own token directly (the
fleet then holds one token per process instead of one) and looks at Redis again every
``recheck`` seconds; once Redis answers, the token is shared again. A token already held is used
until it is due, so an outage costs nothing until then.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

import orjson

from .._transport.auth import CachedToken, TokenIssue
from .._utils.constants import TOKEN_LOCK_POLL, TOKEN_LOCK_TTL
from ..errors import ClientValidationError
from ._redis import (
    DEFAULT_FALLBACK_WINDOW,
    DEFAULT_RECHECK,
    DEFAULT_REDIS_CONNECT_TIMEOUT,
    DEFAULT_REDIS_READ_TIMEOUT,
    RedisFallback,
    RedisPolicy,
    check_redis_url,
    is_redis_failure,
    redis_client,
)

__all__ = ["RedisTokenCache"]

# Store ARGV[2] only if the key still holds what was read before fetching (ARGV[1]; "" = nothing).
_SWAP = """
local current = redis.call('GET', KEYS[1])
if (current == false and ARGV[1] == '') or current == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
"""

# Release the lock only if this process still holds it (it may have expired and passed on).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class RedisTokenCache:
    """A ``TokenCache`` on Redis, shared by a fleet; fetches are single-flight across processes.

    Args:
        url: ``redis://[:password@]host:port/db``, or ``rediss://`` for TLS.
        lock_ttl: Seconds one process may hold the fetch lock before another may take over.
        poll: Seconds between two looks at Redis while another process fetches.
        retry_window: Seconds a Redis call is retried before the cache does without Redis.
        recheck: Seconds, while doing without Redis, between two tries of Redis.
        redis_timeout: Seconds Redis may take to answer one call (to connect, too).
    """

    def __init__(
        self,
        url: str,
        *,
        lock_ttl: float = TOKEN_LOCK_TTL,
        poll: float = TOKEN_LOCK_POLL,
        retry_window: float = DEFAULT_FALLBACK_WINDOW,
        recheck: float = DEFAULT_RECHECK,
        redis_timeout: float = DEFAULT_REDIS_READ_TIMEOUT,
    ) -> None:
        check_redis_url(url, "url")
        if not _positive(lock_ttl) or not _positive(poll):
            raise ClientValidationError("lock_ttl", "lock_ttl and poll must be positive seconds")
        if not _positive(recheck):
            raise ClientValidationError("recheck", "must be a positive, finite number of seconds")
        self._redis: Any = redis_client(
            url, RedisPolicy(retry_window, min(redis_timeout, DEFAULT_REDIS_CONNECT_TIMEOUT), redis_timeout)
        )
        self._lock_ttl_ms = int(lock_ttl * 1000)
        self._poll = poll
        self.fallback = RedisFallback("token cache", url, recheck=recheck)
        self.fetches = 0
        """Tokens this process fetched for the fleet."""

    def __repr__(self) -> str:  # the URL may carry a password
        return "RedisTokenCache(<redis>)"

    async def get(self, key: str) -> CachedToken | None:
        """The token stored under ``key``, if any (none while Redis is away)."""
        if self.fallback.away:
            return None
        try:
            stored = await self._redis.get(key)
        except Exception as error:
            self._failed(error)
            return None
        self.fallback.answered()
        return _decode(stored)

    async def set(self, key: str, token: CachedToken) -> None:
        """Store ``token`` under ``key`` until it expires (not while Redis is away)."""
        ttl = _ttl_ms(token)
        if ttl <= 0 or self.fallback.away:
            return
        try:
            await self._redis.set(key, _encode(token), px=ttl)
        except Exception as error:
            self._failed(error)
            return
        self.fallback.answered()

    async def fetch_once(self, key: str, *, stale: str | None, fetch: TokenIssue) -> CachedToken:
        """A usable token other than ``stale``: the stored one, or one this process fetches while
        holding the fleet's lock; every other process waits for it. Without Redis, a token
        fetched directly."""
        if self.fallback.away:
            return await fetch()
        try:
            token = await self._shared(key, stale, fetch)
        except _FetchedError as fetched:
            self._failed(fetched.error)
            return fetched.token
        except Exception as error:
            self._failed(error)
            return await fetch()
        self.fallback.answered()
        return token

    def _failed(self, error: Exception) -> None:
        if not is_redis_failure(error):
            raise error
        self.fallback.failed(error, "each process fetches its own token")

    async def _shared(self, key: str, stale: str | None, fetch: TokenIssue) -> CachedToken:
        lock = f"{key}:lock"
        owner = secrets.token_hex(16)
        while True:
            seen = await self._redis.get(key)
            usable = _usable(seen, stale)
            if usable is not None:
                return usable
            if await self._redis.set(lock, owner, nx=True, px=self._lock_ttl_ms):
                try:
                    return await self._fetch_and_swap(key, stale, fetch)
                finally:
                    await self._release(lock, owner)
            await asyncio.sleep(self._poll)

    async def _release(self, lock: str, owner: str) -> None:
        try:
            await self._redis.eval(_RELEASE, 1, lock, owner)
        except Exception as error:  # the lock expires by itself
            if not is_redis_failure(error):
                raise

    async def _fetch_and_swap(self, key: str, stale: str | None, fetch: TokenIssue) -> CachedToken:
        seen = await self._redis.get(key)  # another holder may have stored one since we looked
        usable = _usable(seen, stale)
        if usable is not None:
            return usable
        token = await fetch()
        self.fetches += 1
        try:
            swapped = await self._redis.eval(
                _SWAP, 1, key, seen.decode() if seen else "", _encode(token), str(max(1, _ttl_ms(token)))
            )
            if swapped:
                return token
            return _usable(await self._redis.get(key), stale) or token
        except Exception as error:
            if not is_redis_failure(error):
                raise
            raise _FetchedError(token, error) from None

    async def __aenter__(self) -> RedisTokenCache:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections to Redis."""
        await self._redis.aclose()


class _FetchedError(Exception):
    """Redis went away after this process fetched a token: use it rather than fetch another."""

    def __init__(self, token: CachedToken, error: Exception) -> None:
        super().__init__(str(error))
        self.token = token
        self.error = error


def _positive(value: float) -> bool:
    return isinstance(value, (int, float)) and 0 < value < float("inf")


def _encode(token: CachedToken) -> bytes:
    return orjson.dumps(
        {"value": token.value, "expires_at": token.expires_at, "refresh_at": token.refresh_at}
    )


def _decode(stored: bytes | None) -> CachedToken | None:
    if not stored:
        return None
    try:
        data = orjson.loads(stored)
        return CachedToken(str(data["value"]), float(data["expires_at"]), float(data["refresh_at"]))
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None  # not ours, or damaged: fetch a new one


def _usable(stored: bytes | None, stale: str | None) -> CachedToken | None:
    token = _decode(stored)
    if token is None or token.value == stale or not token.fresh(time.time()):
        return None
    return token


def _ttl_ms(token: CachedToken) -> int:
    return int((token.expires_at - time.time()) * 1000)
