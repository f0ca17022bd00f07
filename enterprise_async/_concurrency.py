"""The bound on a client's requests in flight: fixed (``max_concurrency=8``) or adaptive (``"auto"``).

Both are one ``ConcurrencyLimit``: a gate every attempt passes (``slot()``) and that hears how the
attempt went (``observe``). The transport is the only caller; the client and its views hold the
limit by reference, so a view of an ``"auto"`` client adapts the same limit as its parent.

``"auto"`` is additive increase, multiplicative decrease (AIMD, as TCP's congestion control):

- every healthy answer counts; once as many have come as the limit allows in flight (about one
  round trip's worth), the limit grows by one;
- a 429, a 5xx, or an attempt that got no answer (a timeout, a reset) halves it, and so does a
  latency that climbs: the smoothed latency of healthy answers past ``LATENCY_RISE`` times the
  rolling baseline (the fastest answer among the last ``LATENCY_WINDOW``), and at least
  ``LATENCY_SLACK`` seconds above it, so that loopback jitter is no signal;
- one congestion event halves it once: the answers to attempts sent before the last decrease
  (their ``Ticket.generation`` is older) neither halve it again nor make it grow;
- it never leaves ``bounds`` (``ClientOptions.concurrency_bounds``, 1 to 32 by default) and starts
  at the SDK's fixed default (8) brought within them.

The limit is a bound on concurrency, not on rate: ``Retry-After`` is still honoured by the retry
loop, and a rate budget (``rate_limit=``) still paces the requests. Where the client has a budget,
the limit is also kept where the budget is (``SharedLimit``: the ``RateLimiter``'s memory, or its
Redis for a fleet), so every client and every process drawing on that budget adapts one limit.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Literal, Protocol

from attrs import frozen

from ._constants import DEFAULT_MAX_CONCURRENCY

__all__ = [
    "AdaptiveConcurrency",
    "ConcurrencyLimit",
    "FixedConcurrency",
    "SharedLimit",
    "Ticket",
    "is_overload",
]

logger = logging.getLogger("enterprise_async")

LATENCY_WINDOW = 100
"""Healthy answers the latency baseline is the fastest of."""
LATENCY_RISE = 2.0
"""How many times the baseline the smoothed latency may reach before the limit is halved."""
LATENCY_SLACK = 0.05
"""Seconds the smoothed latency must also exceed the baseline by (loopback jitter is no signal)."""
LATENCY_SMOOTHING = 0.1
"""Weight of the newest answer in the smoothed latency (an exponential moving average)."""
LATENCY_SAMPLES = 10
"""Healthy answers heard before a latency climb may halve the limit."""

Step = Literal["grow", "halve"]


def is_overload(status: int | None) -> bool:
    """Whether an answer says "too much": a 429, a 5xx, or no answer at all (None)."""
    return status is None or status == 429 or status >= 500


@frozen
class Ticket:
    """One attempt's pass through the gate: the generation of the limit it was sent under."""

    generation: int


class SharedLimit(Protocol):
    """Where an adaptive limit is kept beyond this client (a ``RateBudget``: memory or Redis)."""

    async def concurrency_step(
        self, step: Step, generation: int, limit: int, bounds: tuple[int, int]
    ) -> tuple[int, int] | None:
        """Apply ``step`` to the shared limit if it is still at ``generation`` (else leave it);
        the shared ``(limit, generation)`` after, or None when the store cannot be reached."""
        ...


class _Gate:
    """A semaphore whose size may change while tasks wait on it (first come, first served)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_flight = 0
        self.most_in_flight = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    async def acquire(self) -> None:
        if self.in_flight < self.limit and not self._waiters:
            self._take()
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # granted just as it was cancelled: hand the slot on
            else:
                self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def resize(self, limit: int) -> None:
        self.limit = limit
        self._wake()

    def _take(self) -> None:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)

    def _wake(self) -> None:
        while self._waiters and self.in_flight < self.limit:
            waiter = self._waiters.popleft()
            if waiter.done():
                continue
            self._take()
            waiter.set_result(None)


class ConcurrencyLimit:
    """The bound every attempt of a client passes; ``FixedConcurrency`` or ``AdaptiveConcurrency``."""

    adaptive = False

    def __init__(self, limit: int) -> None:
        self._gate = _Gate(limit)
        self._generation = 0

    @property
    def limit(self) -> int:
        """Attempts allowed in flight now."""
        return self._gate.limit

    @property
    def in_flight(self) -> int:
        """Attempts in flight now."""
        return self._gate.in_flight

    @property
    def most_in_flight(self) -> int:
        """The most attempts that were ever in flight at once (tests and benchmarks read it)."""
        return self._gate.most_in_flight

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Ticket]:
        """Hold one place among the attempts in flight while the attempt is on the wire."""
        await self._gate.acquire()
        try:
            yield Ticket(self._generation)
        finally:
            self._gate.release()

    async def observe(self, ticket: Ticket, status: int | None, seconds: float) -> None:
        """Hear how an attempt went: its status (None: no answer) and how long it took."""


class FixedConcurrency(ConcurrencyLimit):
    """``max_concurrency=N``: N attempts in flight at most, whatever the answers."""

    def __repr__(self) -> str:
        return f"FixedConcurrency({self.limit})"


class AdaptiveConcurrency(ConcurrencyLimit):
    """``max_concurrency="auto"``: a limit that grows while answers are healthy and halves on
    trouble, within ``bounds`` (see the module's docstring for the rules)."""

    adaptive = True

    def __init__(self, bounds: tuple[int, int], *, shared: SharedLimit | None = None) -> None:
        minimum, maximum = bounds
        super().__init__(min(max(DEFAULT_MAX_CONCURRENCY, minimum), maximum))
        self.bounds = bounds
        self._shared = shared
        self._healthy = 0
        self._fastest: deque[float] = deque(maxlen=LATENCY_WINDOW)
        self._smoothed: float | None = None
        self.increases = 0
        """Times this client grew the limit."""
        self.decreases = 0
        """Times this client halved the limit."""

    def __repr__(self) -> str:
        return f"AdaptiveConcurrency(limit={self.limit}, bounds={self.bounds})"

    @property
    def generation(self) -> int:
        """Decreases of the limit so far (the shared count, with a shared limit)."""
        return self._generation

    async def observe(self, ticket: Ticket, status: int | None, seconds: float) -> None:
        if ticket.generation != self._generation:
            return  # sent under an older limit: that congestion was answered already
        if is_overload(status):
            await self._halve(f"status {status}" if status is not None else "no answer")
            return
        if self._latency_climbed(seconds):
            await self._halve(
                f"latency {self._smoothed or 0.0:.3f} s over a baseline of {min(self._fastest):.3f} s"
            )
            return
        self._healthy += 1
        if self._healthy >= self.limit:
            await self._grow()

    def _latency_climbed(self, seconds: float) -> bool:
        """Note a healthy answer's latency; whether the smoothed latency climbed past the baseline."""
        self._fastest.append(seconds)
        smoothed = seconds if self._smoothed is None else self._smoothed
        self._smoothed = smoothed + LATENCY_SMOOTHING * (seconds - smoothed)
        if len(self._fastest) < LATENCY_SAMPLES:
            return False
        baseline = min(self._fastest)
        return self._smoothed > max(baseline * LATENCY_RISE, baseline + LATENCY_SLACK)

    async def _halve(self, why: str) -> None:
        generation = self._generation
        self._set(max(self.bounds[0], self.limit // 2), generation + 1)
        self.decreases += 1
        self._smoothed = None  # judge the new limit by its own answers
        logger.info("max_concurrency auto: %s, limit halved to %d", why, self.limit)
        await self._publish("halve", generation)

    async def _grow(self) -> None:
        self._set(min(self.bounds[1], self.limit + 1), self._generation)
        self.increases += 1
        await self._publish("grow", self._generation)

    async def _publish(self, step: Step, generation: int) -> None:
        """Tell the shared limit (if any) and take what it holds: another client or process may
        have halved it meanwhile."""
        if self._shared is None:
            return
        answer = await self._shared.concurrency_step(step, generation, self.limit, self.bounds)
        if answer is not None:
            limit, shared_generation = answer
            self._set(min(max(limit, self.bounds[0]), self.bounds[1]), shared_generation)

    def _set(self, limit: int, generation: int) -> None:
        if generation != self._generation:
            self._healthy = 0
        if limit != self.limit:
            self._healthy = 0
            self._gate.resize(limit)
        self._generation = generation
