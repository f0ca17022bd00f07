"""The rate budget: every attempt draws from it, and a "try later" answer pauses all of them.

``RateLimiter`` is where the budget is counted: in this process (the default), or on Redis
(``RateLimiter("redis://...")``) so that every process of a fleet with the same client id draws from
one budget and honours one pause. The counting itself is the ``limits`` library's moving window.

``RateBudget`` is one client's view: its limits (``"18/second; 360/minute"``) and key on a limiter.
It is owned by the client, so views of the client share it. After a pause, one attempt per process
goes first (a probe) and the others wait for its answer, so a storm of 429s costs one 429 per
process per ``Retry-After`` instead of one per request.

Redis keys (``<digest>`` is a hash of the client id, never a credential):
``LIMITS:LIMITER/enterprise-async:budget:<digest>/...`` (the ``limits`` library's windows) and
``enterprise-async:pause:<digest>`` (a key that lives as long as the pause).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from ._constants import BUDGET_GUARD, MIN_BUDGET_WAIT, PAUSE_JITTER, REDIS_KEY_PREFIX
from .errors import ClientValidationError

__all__ = ["RateBudget", "RateLimiter", "budget_key", "parse_rate_limit"]

# Extend a pause, never shorten it: the longest Retry-After any process was given wins.
_EXTEND_PAUSE = """
local left = redis.call('PTTL', KEYS[1])
if left < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 1
"""


def parse_rate_limit(text: str) -> tuple[RateLimitItem, ...]:
    """The limits of ``"18/second; 360/minute"``; a clear error for anything else."""
    if not isinstance(text, str) or not text.strip():
        raise ClientValidationError("rate_limit", "must be a text such as '18/second; 360/minute'")
    try:
        items = parse_many(text)
    except ValueError as error:
        raise ClientValidationError(
            "rate_limit", f"cannot read {text!r} ({error}); write it as '18/second; 360/minute'"
        ) from None
    if not items:
        raise ClientValidationError("rate_limit", f"names no limit: {text!r}")
    if empty := [str(item) for item in items if item.amount < 1]:
        raise ClientValidationError(
            "rate_limit", f"{text!r} allows no request ({', '.join(empty)}): every call would wait forever"
        )
    return tuple(items)


def budget_key(client_id: str) -> str:
    """The name of a client's budget: every process with the same client id shares it."""
    digest = hashlib.sha256(client_id.encode()).hexdigest()[:32]
    return f"{REDIS_KEY_PREFIX}:budget:{digest}"


class RateLimiter:
    """Where rate budgets and pauses are kept: this process, or a Redis shared by a fleet.

    Args:
        redis_url: ``redis://[:password@]host:port/db`` or ``rediss://`` (TLS). None keeps the
            budget in this process. Needs the ``[redis]`` extra.
    """

    def __init__(self, redis_url: str | None = None) -> None:
        self._redis_url = redis_url
        self._redis: Any = None
        self._pool: Any = None
        storage: Storage
        if redis_url is None:
            storage = MemoryStorage()
        else:
            if not redis_url.startswith(("redis://", "rediss://")):
                raise ClientValidationError("redis_url", "must be a redis:// or rediss:// URL")
            import redis.asyncio  # the [redis] extra

            # One pool for the limits library's windows and our pauses, closed by aclose().
            self._pool = redis.asyncio.ConnectionPool.from_url(redis_url)
            storage = RedisStorage(f"async+{redis_url}", implementation="redispy", connection_pool=self._pool)
        self._storage = storage
        self._window = MovingWindowRateLimiter(storage)
        self._pauses: dict[str, float] = {}

    def __repr__(self) -> str:
        return "RateLimiter(redis)" if self._redis_url else "RateLimiter(memory)"

    @property
    def shared(self) -> bool:
        """Whether the budget is shared with other processes (on Redis)."""
        return self._redis_url is not None

    async def draw(self, items: Sequence[RateLimitItem], key: str) -> float:
        """Take one request from every limit: 0 when granted, else seconds until one may be."""
        for item in items:
            if not await self._window.test(item, key):
                return await self._wait_for(item, key)
        for item in items:
            if not await self._window.hit(item, key):
                return await self._wait_for(item, key)
        return 0.0

    async def _wait_for(self, item: RateLimitItem, key: str) -> float:
        stats = await self._window.get_window_stats(item, key)
        return max(MIN_BUDGET_WAIT, stats.reset_time - time.time()) + BUDGET_GUARD

    async def pause(self, key: str, seconds: float) -> None:
        """Hold every request drawing on ``key`` for ``seconds`` (a longer pause already set stays)."""
        if seconds <= 0:
            return
        if self._redis_url is None:
            self._pauses[key] = max(self._pauses.get(key, 0.0), time.monotonic() + seconds)
            return
        client = self._client()
        await client.eval(_EXTEND_PAUSE, 1, _pause_key(key), str(int(seconds * 1000)))

    async def paused_for(self, key: str) -> float:
        """Seconds left of the pause on ``key``; 0 when there is none."""
        if self._redis_url is None:
            return max(0.0, self._pauses.get(key, 0.0) - time.monotonic())
        left = int(await self._client().pttl(_pause_key(key)))
        return left / 1000 if left > 0 else 0.0

    def _client(self) -> Any:
        if self._redis is None:
            import redis.asyncio  # the [redis] extra

            self._redis = redis.asyncio.Redis(connection_pool=self._pool)
        return self._redis

    async def __aenter__(self) -> RateLimiter:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections to Redis, if any."""
        if self._pool is not None:
            await self._pool.disconnect()


def _pause_key(key: str) -> str:
    return key.replace(":budget:", ":pause:", 1)


class RateBudget:
    """One client's budget on a limiter: wait your turn, draw, and pause together."""

    def __init__(self, limiter: RateLimiter, items: Sequence[RateLimitItem], *, key: str) -> None:
        self.limiter = limiter
        self.items = tuple(items)
        self.key = key
        self._drawing = asyncio.Lock()
        self._probe: asyncio.Event | None = None
        # A client starts as after a pause: its first attempt goes alone, so a client that starts
        # into a storm (or a fleet's pause) meets one 429, not one per request in flight.
        self._after_pause = True
        self._paused_until = 0.0
        self.pauses = 0
        """Pauses this client started (for tests and benchmarks)."""

    def __repr__(self) -> str:
        limits = "; ".join(str(item) for item in self.items) or "no limit"
        return f"RateBudget({limits}, {self.limiter!r})"

    @asynccontextmanager
    async def attempt(self) -> AsyncIterator[None]:
        """Hold one attempt until its turn (after a pause, a probe goes first); release a probe after it.

        The attempt draws its share of the budget (``draw``) only once it holds a connection slot,
        right before it is sent, so that requests drawn do not queue and then leave in a burst.
        """
        probe = await self._turn()
        try:
            yield
        finally:
            if probe is not None:
                self._probe = None
                probe.set()

    async def pause(self, seconds: float) -> None:
        """Pause every request of the client (of the fleet, on Redis) for ``seconds``."""
        self.pauses += 1
        self._after_pause = True
        # Known here at once, before Redis is told: an attempt whose look at Redis was on its way
        # before this pause must not take the pause for over.
        self._paused_until = max(self._paused_until, time.monotonic() + seconds)
        await self.limiter.pause(self.key, seconds)

    async def _turn(self) -> asyncio.Event | None:
        """Wait out a pause; then the first attempt goes alone (it is returned as the probe)."""
        while True:
            shared = await self.limiter.paused_for(self.key)
            left = max(shared, self._paused_until - time.monotonic())
            if left > 0:
                self._after_pause = True
                await asyncio.sleep(left * (1 + random.uniform(0, PAUSE_JITTER)) + MIN_BUDGET_WAIT)
                continue
            if self._probe is not None:
                await self._probe.wait()
                continue
            if not self._after_pause:
                return None
            self._after_pause = False
            self._probe = asyncio.Event()
            return self._probe

    async def draw(self) -> None:
        """Wait for one request's share of every limit, and take it."""
        if not self.items:
            return
        async with self._drawing:
            wait = await self.limiter.draw(self.items, self.key)
            while wait > 0:
                await asyncio.sleep(wait)
                wait = await self.limiter.draw(self.items, self.key)
