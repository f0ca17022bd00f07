"""``RateLimiter``: a rate budget kept in this process, or on a Redis shared by a fleet.

``RateLimiter()`` is the in-process ``RateStore`` of the runtime. ``RateLimiter("redis://...")``
keeps the budget on Redis, so that every process of a fleet with the same client id draws from one
budget and honours one pause; the counting is a moving window per limit, ``margin`` wider than the
service's (``_transport.rate_window``), checked and noted in one script on Redis's clock.

Redis keys (``<digest>`` is a hash of the client id, never a credential):
``enterprise-async:budget:<digest>`` (the moments of the latest draws, newest first),
``enterprise-async:pause:<digest>`` (a key that lives as long as the pause),
``enterprise-async:members:<digest>`` (the processes drawing on the budget lately, by last draw), and
``enterprise-async:concurrency:<digest>`` (the adaptive concurrency limit of ``max_concurrency="auto"``
and its generation, the count of its decreases; it lives ``CONCURRENCY_LIFETIME`` after its last change).

Redis away: a call is retried for ``retry_window`` seconds, then the limiter does without Redis,
logging a WARNING. Each process then counts its own share of the budget: every limit divided by
the number of processes last seen drawing on it (at least one request each), so the fleet stays
under the service's limit; pauses are this process's alone. It tries Redis again every
``recheck`` seconds and shares the budget again once Redis answers.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from attrs import evolve

from .._transport.rate_limit import InMemoryRateStore
from .._transport.rate_window import Draw, Limit, RateLimit
from .._utils.constants import RESERVE_AHEAD
from ._redis import (
    DEFAULT_FALLBACK_WINDOW,
    DEFAULT_RECHECK,
    DEFAULT_REDIS_CONNECT_TIMEOUT,
    DEFAULT_REDIS_READ_TIMEOUT,
    RedisFallback,
    RedisPolicy,
    check_redis_url,
    connection_options,
    is_redis_failure,
)

__all__ = ["RateLimiter"]

REDIS_DRAW = """
-- KEYS[1]: the moments (ms, Redis's clock, newest first) of the draws on a budget, a draw held
-- for a moment to come included. ARGV: the margin, the most a draw may be held ahead (ms), then
-- amount and window (ms) of each limit in turn. Returns {1, ms, moment}: a request granted, to be
-- sent in ms (noted at that moment); {0, ms}: none, ask again in ms.
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local spacing, ahead = tonumber(ARGV[1]), tonumber(ARGV[2])
local wait, keep, longest = 0, 0, 0
for i = 3, #ARGV, 2 do
  local amount, window = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  local counted = redis.call('LINDEX', KEYS[1], amount - 1)
  if counted then
    wait = math.max(wait, tonumber(counted) + window - now)
  end
  keep = math.max(keep, amount)
  longest = math.max(longest, window)
  spacing = math.min(spacing, window / amount)
end
local newest = redis.call('LINDEX', KEYS[1], 0)
if newest then
  wait = math.max(wait, tonumber(newest) + spacing - now)
end
if wait > ahead then
  return {0, string.format('%.3f', wait)}
end
local moment = string.format('%.3f', now + wait)
redis.call('LPUSH', KEYS[1], moment)
redis.call('LTRIM', KEYS[1], 0, keep - 1)
redis.call('PEXPIRE', KEYS[1], math.ceil(longest + wait))
return {1, string.format('%.3f', wait), moment}
"""
"""The moving windows on Redis, every limit checked and the draw noted at once, on Redis's clock
(the same for every process of a fleet): ``_transport.rate_window.MemoryWindows.draw`` in Lua."""

# Extend a pause, never shorten it: the longest Retry-After any process was given wins.
_EXTEND_PAUSE = """
local left = redis.call('PTTL', KEYS[1])
if left < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 1
"""

MEMBER_REFRESH = 5.0
"""Seconds between two notes, on Redis, that this process still draws on a budget."""
MEMBER_LIFETIME = 60.0
"""Seconds after its last note that a process no longer counts as drawing on a budget."""
CONCURRENCY_LIFETIME = 600.0
"""Seconds a shared adaptive concurrency limit is kept after its last change (then it starts over)."""

# Grow or halve the shared limit if it is still at the caller's generation; create it if absent
# (``InMemoryRateStore.concurrency_step`` in Lua).
# ARGV: step, generation, the caller's limit after the step, minimum, maximum, lifetime (ms).
_CONCURRENCY_STEP = """
local step, generation, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local minimum, maximum = tonumber(ARGV[4]), tonumber(ARGV[5])
local stored = redis.call('HMGET', KEYS[1], 'limit', 'generation')
local current, at = tonumber(stored[1]), tonumber(stored[2])
if current == nil or at == nil then
  current = limit
  at = generation
  if step == 'halve' then at = generation + 1 end
elseif at == generation then
  if step == 'halve' then
    current = math.max(minimum, math.floor(current / 2))
    at = at + 1
  else
    current = math.min(maximum, current + 1)
  end
end
redis.call('HSET', KEYS[1], 'limit', current, 'generation', at)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return {current, at}
"""


class RateLimiter(InMemoryRateStore):
    """Where rate budgets and pauses are kept: this process, or a Redis shared by a fleet.

    Args:
        redis_url: ``redis://[:password@]host:port/db`` or ``rediss://`` (TLS). None keeps the
            budget in this process. Needs the ``[redis]`` extra.
        retry_window: Seconds a Redis call is retried before the limiter does without Redis.
        recheck: Seconds, while doing without Redis, between two tries of Redis.
        redis_timeout: Seconds Redis may take to answer one call (to connect, too).
    """

    def __init__(
        self,
        redis_url: str | None = None,
        *,
        retry_window: float = DEFAULT_FALLBACK_WINDOW,
        recheck: float = DEFAULT_RECHECK,
        redis_timeout: float = DEFAULT_REDIS_READ_TIMEOUT,
    ) -> None:
        super().__init__()
        self._redis_url = redis_url
        self._redis: Any = None
        self._pool: Any = None
        self._member = secrets.token_hex(8)
        self._noted: dict[str, float] = {}
        self._peers: dict[str, int] = {}
        self.fallback: RedisFallback | None = None
        if redis_url is None:
            return
        check_redis_url(redis_url, "redis_url")
        # One pool for the windows and the pauses, closed by aclose().
        options = connection_options(
            RedisPolicy(retry_window, min(redis_timeout, DEFAULT_REDIS_CONNECT_TIMEOUT), redis_timeout)
        )
        import redis.asyncio  # the [redis] extra, checked by connection_options

        self._pool = redis.asyncio.ConnectionPool.from_url(redis_url, **options)
        self.fallback = RedisFallback("rate budget", redis_url, recheck=recheck)

    def __repr__(self) -> str:
        return "RateLimiter(redis)" if self._redis_url else "RateLimiter(memory)"

    @property
    def shared(self) -> bool:
        """Whether the budget is shared with other processes (on Redis)."""
        return self._redis_url is not None

    def _on_redis(self) -> bool:
        return self.fallback is not None and not self.fallback.away

    def _failed(self, error: Exception) -> None:
        if not is_redis_failure(error) or self.fallback is None:
            raise error
        self.fallback.failed(error, "each process keeps its share of the budget")

    def _answered(self) -> None:
        if self.fallback is not None:
            self.fallback.answered()

    async def draw(self, budget: RateLimit, key: str) -> Draw:
        """Take one request from every window of ``budget`` (see ``RateStore.draw``)."""
        if self._on_redis():
            try:
                await self._note_member(key)
                arguments = [_milliseconds(budget.margin), _milliseconds(RESERVE_AHEAD)]
                for window in budget.windows:
                    arguments += [str(window.amount), _milliseconds(window.seconds)]
                answer = await self._client().eval(REDIS_DRAW, 1, key, *arguments)
            except Exception as error:
                self._failed(error)
            else:
                self._answered()
                moment = answer[2].decode() if len(answer) > 2 else 0.0
                return Draw(bool(answer[0]), float(answer[1]) / 1000, moment)
        processes = self._peers.get(key, 1)
        return await super().draw(
            evolve(budget, limits=tuple(_share(limit, processes) for limit in budget.limits)), key
        )

    async def _note_member(self, key: str) -> None:
        """Note, now and then, that this process draws on ``key``; and how many processes do."""
        now = time.time()
        if now - self._noted.get(key, 0.0) < MEMBER_REFRESH:
            return
        members = _members_key(key)
        client = self._client()
        async with client.pipeline(transaction=True) as pipe:
            pipe.zadd(members, {self._member: now})
            pipe.zremrangebyscore(members, "-inf", now - MEMBER_LIFETIME)
            pipe.zcard(members)
            pipe.expire(members, int(MEMBER_LIFETIME * 2))
            _, _, count, _ = await pipe.execute()
        self._noted[key] = now
        self._peers[key] = max(1, int(count))

    async def release(self, key: str, moment: float | str) -> None:
        """Give back a moment drawn and not used (on Redis when it was drawn there)."""
        if not isinstance(moment, str):
            await super().release(key, moment)
            return
        if not self._on_redis():
            return
        try:
            await self._client().lrem(key, 1, moment)
        except Exception as error:
            self._failed(error)
            return
        self._answered()

    async def pause(self, key: str, seconds: float) -> None:
        """Hold every request drawing on ``key`` for ``seconds`` (a longer pause already set stays)."""
        if seconds <= 0:
            return
        await super().pause(key, seconds)
        if not self._on_redis():
            return
        try:
            await self._client().eval(_EXTEND_PAUSE, 1, _pause_key(key), str(int(seconds * 1000)))
        except Exception as error:
            self._failed(error)
            return
        self._answered()

    async def concurrency_step(
        self, key: str, step: str, generation: int, limit: int, bounds: tuple[int, int]
    ) -> tuple[int, int] | None:
        """Grow (``"grow"``) or halve (``"halve"``) the adaptive limit kept for ``key`` if it is
        still at ``generation``; the kept ``(limit, generation)`` after. ``limit`` (the caller's,
        after its step) starts a limit not kept yet. None while Redis is away (each process then
        adapts its own)."""
        if not self._on_redis():
            if self.shared:
                return None
            return await super().concurrency_step(key, step, generation, limit, bounds)
        arguments = (step, generation, limit, bounds[0], bounds[1], int(CONCURRENCY_LIFETIME * 1000))
        try:
            answer = await self._client().eval(
                _CONCURRENCY_STEP, 1, _concurrency_key(key), *map(str, arguments)
            )
        except Exception as error:
            self._failed(error)
            return None
        self._answered()
        return int(answer[0]), int(answer[1])

    async def paused_for(self, key: str) -> float:
        """Seconds left of the pause on ``key``; 0 when there is none."""
        local = await super().paused_for(key)
        if not self._on_redis():
            return local
        try:
            left = int(await self._client().pttl(_pause_key(key)))
        except Exception as error:
            self._failed(error)
            return local
        self._answered()
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


def _share(limit: Limit, processes: int) -> Limit:
    """One process's share of a limit among ``processes`` (at least one request)."""
    if processes <= 1:
        return limit
    return Limit(max(1, limit.amount // processes), limit.seconds)


def _milliseconds(seconds: float) -> str:
    return f"{seconds * 1000:.3f}"


def _members_key(key: str) -> str:
    return key.replace(":budget:", ":members:", 1)


def _pause_key(key: str) -> str:
    return key.replace(":budget:", ":pause:", 1)


def _concurrency_key(key: str) -> str:
    return key.replace(":budget:", ":concurrency:", 1)
