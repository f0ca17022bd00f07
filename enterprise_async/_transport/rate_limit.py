"""The rate budget: every attempt draws from it, and a "try later" answer pauses all of them.

``RateStore`` is what the client needs of the place where budgets are counted: draw a request from
some limits, pause them, say how long a pause has left, and keep the adaptive concurrency limit of
``max_concurrency="auto"``. ``InMemoryRateStore`` counts in this process (the default); the fleet's
``RateLimiter("redis://...")`` (``enterprise_async.fleet``) counts on Redis, so that every process
of a fleet with the same client id draws from one budget and honours one pause. The counting itself
is the ``limits`` library's moving window.

``RateBudget`` is one client's view: its limits (``"18/second; 360/minute"``) and key on a store.
It is owned by the client, so views of the client share it. After a pause, one attempt per process
goes first (a probe) and the others wait for its answer, so a storm of 429s costs one 429 per
process per ``Retry-After`` instead of one per request.

The adaptive limit is kept next to the budget (``RateBudget.concurrency_step``): every client
drawing on a budget adapts one limit, each process of a fleet using it as its own bound. A halving
applies once per generation, so a 429 seen by four processes at once halves the limit once.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Protocol, runtime_checkable

from .._utils.constants import LATE_SHARE, MIN_BUDGET_WAIT, PAUSE_JITTER, REDIS_KEY_PREFIX, RESERVE_AHEAD
from .rate_window import MemoryWindows, RateLimit, parse_rate_limit

__all__ = [
    "InMemoryRateStore",
    "RateBudget",
    "RateLimit",
    "RateStore",
    "budget_key",
    "parse_rate_limit",
]


def budget_key(client_id: str) -> str:
    """The name of a client's budget: every process with the same client id shares it."""
    digest = hashlib.sha256(client_id.encode()).hexdigest()[:32]
    return f"{REDIS_KEY_PREFIX}:budget:{digest}"


@runtime_checkable
class RateStore(Protocol):
    """Where rate budgets, their pauses and their adaptive concurrency limits are kept: this
    process (``InMemoryRateStore``) or a Redis shared by a fleet (``RateLimiter(url)``).

    Budgets are told apart by ``key`` (``budget_key``): clients with the same key on one store
    draw from one budget."""

    @property
    def shared(self) -> bool:
        """Whether the budget is shared with other processes."""
        ...

    async def draw(self, budget: RateLimit, key: str) -> tuple[bool, float]:
        """Take one request from every window of ``budget`` (``RateLimit.windows``, the margin
        included). ``(True, seconds)``: the request is granted, to be sent in ``seconds`` (0: now;
        the budget holds that moment for it, at most ``RESERVE_AHEAD`` ahead); ``(False,
        seconds)``: none for now, draw again in ``seconds``."""
        ...

    async def pause(self, key: str, seconds: float) -> None:
        """Hold every request drawing on ``key`` for ``seconds`` (a longer pause already set stays)."""
        ...

    async def paused_for(self, key: str) -> float:
        """Seconds left of the pause on ``key``; 0 when there is none."""
        ...

    async def concurrency_step(
        self, key: str, step: str, generation: int, limit: int, bounds: tuple[int, int]
    ) -> tuple[int, int] | None:
        """Grow (``"grow"``) or halve (``"halve"``) the adaptive limit kept for ``key`` if it is
        still at ``generation``; the kept ``(limit, generation)`` after, or None when the store
        cannot be reached (each process then adapts its own). ``limit`` (the caller's, after its
        step) starts a limit not kept yet."""
        ...


class InMemoryRateStore:
    """A ``RateStore`` of this process: the budgets of the clients that share it, and their pauses."""

    def __init__(self) -> None:
        self._windows = MemoryWindows()
        self._pauses: dict[str, float] = {}
        self._limits: dict[str, tuple[int, int]] = {}

    def __repr__(self) -> str:
        return "InMemoryRateStore()"

    @property
    def shared(self) -> bool:
        return False

    async def draw(self, budget: RateLimit, key: str) -> tuple[bool, float]:
        return self._windows.draw(budget.windows, key, budget.margin)

    async def pause(self, key: str, seconds: float) -> None:
        if seconds > 0:
            self._pauses[key] = max(self._pauses.get(key, 0.0), time.monotonic() + seconds)

    async def paused_for(self, key: str) -> float:
        return max(0.0, self._pauses.get(key, 0.0) - time.monotonic())

    async def concurrency_step(
        self, key: str, step: str, generation: int, limit: int, bounds: tuple[int, int]
    ) -> tuple[int, int] | None:
        kept = self._limits.get(key)
        if kept is None:
            kept = (limit, generation + 1 if step == "halve" else generation)
        elif kept[1] == generation and step == "halve":
            kept = (max(bounds[0], kept[0] // 2), generation + 1)
        elif kept[1] == generation:
            kept = (min(bounds[1], kept[0] + 1), generation)
        self._limits[key] = kept
        return kept


class RateBudget:
    """One client's budget on a store: wait your turn, draw, and pause together."""

    def __init__(self, store: RateStore, budget: RateLimit | None, *, key: str) -> None:
        self.store = store
        self.budget = budget
        self.key = key
        self._drawing = asyncio.Lock()
        self._probe: asyncio.Event | None = None
        # A client starts as after a pause: its first attempt goes alone, so a client that starts
        # into a storm (or a fleet's pause) meets one 429, not one per request in flight.
        self._after_pause = True
        self._paused_until = 0.0
        self.pauses = 0
        """Pauses this client started (for tests and benchmarks)."""
        self.late = 0
        """Requests that came to their moment too late and drew again (for tests and benchmarks)."""

    def __repr__(self) -> str:
        limits = str(self.budget) if self.budget is not None else "no limit"
        return f"RateBudget({limits}, {self.store!r})"

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
        await self.store.pause(self.key, seconds)

    async def _turn(self) -> asyncio.Event | None:
        """Wait out a pause; then the first attempt goes alone (it is returned as the probe)."""
        while True:
            shared = await self.store.paused_for(self.key)
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

    async def concurrency_step(
        self, step: str, generation: int, limit: int, bounds: tuple[int, int]
    ) -> tuple[int, int] | None:
        """Grow or halve the adaptive concurrency limit kept with this budget (``SharedLimit``)."""
        return await self.store.concurrency_step(self.key, step, generation, limit, bounds)

    async def draw(self) -> None:
        """Wait for one request's share of every limit, and take it.

        A request that comes to its moment late (this process's loop was busy, or the machine) by
        more than half the margin draws again, leaving its moment unused: sent that late, it could
        arrive among the requests drawn after it."""
        if self.budget is None:
            return
        while True:
            async with self._drawing:
                asked = time.monotonic()
                granted, wait = await self.store.draw(self.budget, self.key)
                while not granted:
                    await asyncio.sleep(max(wait - RESERVE_AHEAD, MIN_BUDGET_WAIT))
                    asked = time.monotonic()
                    granted, wait = await self.store.draw(self.budget, self.key)
            # ``asked + wait`` is the earliest the moment held can be, in this process's clock
            left = asked + wait - time.monotonic()
            if left > 0:
                await asyncio.sleep(left)
            if time.monotonic() - (asked + wait) <= self.budget.margin * LATE_SHARE:
                return
            self.late += 1
