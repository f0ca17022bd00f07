"""The bound on a client's requests in flight: fixed (``max_concurrency=8``) or adaptive (``"auto"``).

Both are one ``ConcurrencyLimit``: a gate every attempt passes (``enter``/``leave``) and that hears how the
attempt went (``observe``). The transport is the only caller; the client and its views hold the
limit by reference, so a view of an ``"auto"`` client adapts the same limit as its parent.

``"auto"`` is additive increase, multiplicative decrease (AIMD, as TCP's congestion control):

- every healthy answer counts; once as many have come as the limit allows in flight (about one
  round trip's worth), the limit grows by one; for the steps from the limit at which the last
  decrease came to ``NEAR_OVERLOAD`` past it, ``GENTLE_GROWTH`` times as many (it probes gently
  where trouble was, and quickly below and beyond);
- a 429, a 5xx, or an attempt that got no answer (a timeout, a reset) halves it, and so does a
  latency that climbs: healthy answers taking, smoothed, more than ``LATENCY_RISE`` times their
  rolling baseline, and at least ``LATENCY_SLACK`` seconds more (loopback jitter is no signal).
  The baseline is per operation (a page of 100 items is slower than a small GET without any
  congestion): the fastest of its last ``LATENCY_WINDOW`` answers. After a decrease the
  latency is judged afresh, from ``LATENCY_SAMPLES`` answers heard once a round trip at the new
  limit has passed (the answers before it waited behind the old queue, and would halve it again);
- the attempts leave paced, one every round trip / limit (the smoothed latency of healthy answers
  shared among the places in flight), not in bursts as slots free together: a throttle counting
  arrivals in a moving window sees the rate the limit stands for, not its peaks;
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
import time
from collections import deque
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
"""Healthy answers of an operation its latency baseline is the fastest of."""
LATENCY_RISE = 2.0
"""How many times its baseline an answer may take (smoothed) before the limit is halved."""
LATENCY_SLACK = 0.05
"""Seconds over the baseline an answer must also take (smoothed): loopback jitter is no signal."""
LATENCY_SMOOTHING = 0.1
"""Weight of the newest answer in the smoothed latency (an exponential moving average)."""
GENTLE_GROWTH = 3
"""How many round trips of healthy answers the limit takes to grow by one near the last overload."""
NEAR_OVERLOAD = 2
"""How many steps past the limit of the last decrease growth stays gentle."""
MAX_BASELINES = 256
"""Operations whose baselines are kept; past it the oldest is forgotten (and learnt again)."""
LATENCY_SAMPLES = 5
"""Healthy answers the smoothed latency is made of before a latency climb may halve the limit."""

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

    def take_at_once(self) -> bool:
        """Take a place if one is free and nobody waits for it; whether one was taken."""
        if self.in_flight < self.limit and not self._waiters:
            self._take()
            return True
        return False

    async def acquire(self) -> None:
        if self.take_at_once():
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
        self._ticket = Ticket(0)

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

    def enter_now(self) -> Ticket | None:
        """Take a place among the attempts in flight if one is free, nobody waits and nothing
        paces (a fixed bound): its ticket, else None (``enter`` waits for one). Every attempt
        passes here, so the common case costs no coroutine. ``leave`` gives the place back."""
        if self.adaptive or not self._gate.take_at_once():
            return None
        return self._ticket

    async def enter(self) -> Ticket:
        """Wait for a place among the attempts in flight, and for this attempt's turn to leave."""
        await self._gate.acquire()
        try:
            await self._pace()
        except BaseException:
            self._gate.release()
            raise
        return self._ticket  # the generation the attempt is sent under, after any wait

    def leave(self) -> None:
        """Give back the place ``enter_now`` or ``enter`` took."""
        self._gate.release()

    async def _pace(self) -> None:
        """Wait for this attempt's turn to leave (a fixed bound sends at once)."""

    async def observe(self, ticket: Ticket, status: int | None, seconds: float, operation: str = "") -> None:
        """Hear how an attempt went: its status (None: no answer), how long it took, and which
        operation it was (latencies are compared with the same operation's)."""


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
        self._baselines: dict[str, deque[float]] = {}
        self._smoothed: tuple[float, float] | None = None  # (ratio to the baseline, seconds over it)
        self._since_decrease = 0  # healthy answers sent under the current generation
        self._overloaded_at = 0  # the limit when the last decrease came (0: none yet)
        self._round_trip: float | None = None  # smoothed latency of healthy answers, for pacing
        self._next_send = 0.0
        self._smoothed_samples = 0
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

    async def observe(self, ticket: Ticket, status: int | None, seconds: float, operation: str = "") -> None:
        if ticket.generation != self._generation:
            return  # sent under an older limit: that congestion was answered already
        if is_overload(status):
            await self._halve(f"status {status}" if status is not None else "no answer")
            return
        self._round_trip = seconds if self._round_trip is None else self._round_trip
        self._round_trip += LATENCY_SMOOTHING * (seconds - self._round_trip)
        if self._latency_climbed(seconds, operation):
            ratio, over = self._smoothed or (0.0, 0.0)
            await self._halve(f"latency {ratio:.1f}x its baseline ({over:.3f} s over)")
            return
        self._healthy += 1
        if self._healthy >= self._answers_to_grow():
            await self._grow()

    async def _pace(self) -> None:
        """Leave one round trip / limit after the attempt before (at once until a round trip is known)."""
        if self._round_trip is None:
            return
        now = time.monotonic()
        leave = max(now, self._next_send)
        self._next_send = leave + self._round_trip / self.limit
        if leave > now:
            await asyncio.sleep(leave - now)

    def _answers_to_grow(self) -> int:
        """Healthy answers that make the limit grow by one: a round trip's, or a few near trouble."""
        if 0 <= self.limit + 1 - self._overloaded_at <= NEAR_OVERLOAD:
            return self.limit * GENTLE_GROWTH
        return self.limit

    def _latency_climbed(self, seconds: float, operation: str) -> bool:
        """Note a healthy answer's latency; whether answers, smoothed, climbed past their baseline."""
        baseline = self._baseline(operation, seconds)
        self._since_decrease += 1
        if self._since_decrease <= self.limit:
            return False  # the first round trip after a decrease still waited behind the old queue
        sample = (seconds / baseline if baseline > 0 else 1.0, seconds - baseline)
        smoothed = sample if self._smoothed is None else self._smoothed
        self._smoothed = (
            smoothed[0] + LATENCY_SMOOTHING * (sample[0] - smoothed[0]),
            smoothed[1] + LATENCY_SMOOTHING * (sample[1] - smoothed[1]),
        )
        self._smoothed_samples += 1
        if self._smoothed_samples < LATENCY_SAMPLES:
            return False
        return self._smoothed[0] > LATENCY_RISE and self._smoothed[1] > LATENCY_SLACK

    def _baseline(self, operation: str, seconds: float) -> float:
        """The fastest of the operation's recent answers, this one included."""
        recent = self._baselines.get(operation)
        if recent is None:
            if len(self._baselines) >= MAX_BASELINES:
                del self._baselines[next(iter(self._baselines))]
            recent = self._baselines[operation] = deque(maxlen=LATENCY_WINDOW)
        recent.append(seconds)
        return min(recent)

    async def _halve(self, why: str) -> None:
        generation = self._generation
        self._overloaded_at = self.limit
        self._set(max(self.bounds[0], self.limit // 2), generation + 1)
        self.decreases += 1
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
        if generation != self._generation:  # a decrease: judge the new limit by its own answers
            self._healthy = self._since_decrease = self._smoothed_samples = 0
            self._smoothed = None
            self._ticket = Ticket(generation)
        if limit != self.limit:
            self._healthy = 0
            self._gate.resize(limit)
        self._generation = generation
