"""``max_concurrency="auto"``: the ``ConcurrencyLimit`` that adapts to congestion, and to nothing else.

``"auto"`` shrinks on congestion, and on nothing else:

- **Trouble halves it**: a 429, a 5xx, or an attempt that got no answer (a timeout, a reset). One
  congestion event halves it once: the answers to attempts sent before the last decrease (their
  ``Ticket.generation`` is older) neither halve it again nor make it grow.
- **Latency halves it only when it rises with the client's own concurrency.** A page deep in a
  listing may take ten times the first one with nothing wrong, and latency that changes while the
  limit stays put is the server's doing, not the client's. So latencies are never compared across
  time, only between attempts of the same moment sent at different concurrency: a *probe*. When
  the limit has grown to ``PROBE_GROWTH`` times the level last probed (in slow start: once it
  reached its upper bound), the gate lets the attempts on the wire fall to half the limit and sends
  ``PROBE_SENDS`` attempts from there (``Ticket.crowd``: the attempts on the wire when each left).
  Their latency is compared with the median of the same operation's attempts sent at the full limit
  just before, as TCP Vegas compares the expected rate with the actual one: had the requests in
  flight beyond the probe's answered as fast as the probe's, they would have brought so many more
  answers a second; if they brought less than ``QUEUED`` of that, they mostly waited in a queue.
  Two probes in a row must find it (one stall of a loaded machine looks like a queue), then the
  limit halves and the new level is probed next, so it steps down to where fewer in flight no
  longer answer faster. A probe that finds no queue marks its level probed, and the limit grows
  past twice that level only after the next probe. A probe costs about a quarter of a round trip's
  sending; with the default bounds, a client that meets no queue probes once, at 32.
- **Growth**: until the first decrease, each healthy answer to an attempt sent with the limit full
  (``FULL``) grows it by one, so a limit in use doubles each round trip (slow start, as TCP's: a
  server that is never troubled is used fully within a few round trips). Otherwise, once as many
  healthy answers have come as the limit allows in flight (about one round trip's worth), the
  limit grows by one; for the steps from the limit at which the last decrease came to
  ``NEAR_OVERLOAD`` past it, ``GENTLE_GROWTH`` times as many answers (it probes gently where
  trouble was). A shared limit has no slow start: its store takes one step a round trip.
- **Paced** once slow start is over: the attempts leave one every round trip / limit (the smoothed
  latency of healthy answers shared among the places in flight), not in bursts as places free
  together: a throttle counting arrivals in a moving window sees the rate the limit stands for,
  not its peaks. (Before any trouble there is no throttle to spare, and sending at exactly the
  mean rate would leave places idle whenever answers come in bunches.)
- **Bounded**: it never leaves ``bounds`` (``ClientOptions.concurrency_bounds``, 1 to 32 by default)
  and starts at the SDK's fixed default (8) brought within them.

The limit is a bound on concurrency, not on rate: ``Retry-After`` is still honoured by the retry
loop, and a rate budget (``rate_limit=``) still paces the requests. Where the client has a budget,
the limit is also kept where the budget is (``SharedLimit``: the ``RateLimiter``'s memory, or its
Redis for a fleet), so every client and every process drawing on that budget adapts one limit.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
from collections import deque

from attrs import define, field

from .._utils.constants import DEFAULT_MAX_CONCURRENCY
from .concurrency import ConcurrencyLimit, SharedLimit, Step, Ticket, is_overload

__all__ = ["AdaptiveConcurrency"]

logger = logging.getLogger("enterprise_async")

LATENCY_SMOOTHING = 0.1
"""Weight of the newest answer in the smoothed round trip that paces the attempts."""
GENTLE_GROWTH = 3
"""How many round trips of healthy answers the limit takes to grow by one near the last overload."""
NEAR_OVERLOAD = 2
"""How many steps past the limit of the last decrease growth stays gentle."""
PROBE_GROWTH = 2
"""How many times the level last probed the limit grows to before its latency is probed again."""
PROBE_SENDS = 2
"""Attempts a probe sends with half the limit on the wire."""
QUEUED = 0.5
"""A probe shows a queue when the requests in flight beyond its own yielded (on average) less than
this share of the answers per second they would at the probe's latency."""
FULL = 0.75
"""The share of the limit on the wire at which an attempt counts as sent with the limit full."""
FULL_SAMPLES = 32
"""Recent answers of each operation a probe compares with (those sent at the full limit)."""
MIN_FULL_SAMPLES = 4
"""Answers at the full limit an operation needs before a probe compares with them."""
PROBE_PATIENCE = 4
"""Round trips of answers a probe waits for its own answers before it is given up (inconclusive)."""
MAX_OPERATIONS = 256
"""Operations whose recent answers are kept; past it the oldest is forgotten."""


@define
class _Probe:
    """One probe under way: the level it tests and the full limit's latency it compares with."""

    level: int
    reference: dict[str, tuple[int, float]]
    """Per operation, the median crowd and latency of its recent answers sent at the full limit."""
    sends_left: int = PROBE_SENDS
    drained: bool = False
    """Whether the attempts on the wire have fallen to half the level (the probe's sends began)."""
    yields: list[float | None] = field(factory=list)
    """Each probe answer's yield (``_yield``; None: nothing to compare it with)."""
    waited: int = 0
    """Healthy answers heard since the probe began."""


def _yield(reference: tuple[int, float] | None, crowd: int, seconds: float) -> float | None:
    """What the requests in flight beyond a probe's ``crowd`` brought, as a share of what they
    would bring if each answered as fast as the probe (TCP Vegas's expected against actual rate):
    1 when latency does not rise with concurrency, 0 when the answers per second did not rise at
    all (the extra requests only queued). None when there is nothing to compare with."""
    if reference is None or seconds <= 0:
        return None
    full_crowd, full_seconds = reference
    more = full_crowd / crowd
    if more <= 1 or full_seconds <= 0:
        return None
    gain = more * seconds / full_seconds  # answers per second at the full crowd / at the probe's
    return (gain - 1) / (more - 1)


class AdaptiveConcurrency(ConcurrencyLimit):
    """``max_concurrency="auto"``: a limit that grows while answers are healthy and halves on
    trouble or on latency that rises with its own concurrency, within ``bounds`` (see the
    module's docstring for the rules)."""

    adaptive = True

    def __init__(self, bounds: tuple[int, int], *, shared: SharedLimit | None = None) -> None:
        minimum, maximum = bounds
        super().__init__(min(max(DEFAULT_MAX_CONCURRENCY, minimum), maximum))
        self.bounds = bounds
        self._shared = shared
        self._healthy = 0
        self._overloaded_at = 0  # the limit when the last decrease came (0: none yet)
        self._round_trip: float | None = None  # smoothed latency of healthy answers, for pacing
        self._next_send = 0.0
        self._on_wire = 0  # attempts that left (entered and paced) and have not come back
        self._recent: dict[str, deque[tuple[int, float]]] = {}  # per operation: (crowd, seconds)
        # The SDK's fixed default counts as probed, unless it is the top: then the top is probed.
        self._probed_at = self.limit if self.limit < maximum else maximum // 2
        self._suspected = 0  # the level the last probe found a queue at, to be confirmed
        self._probe: _Probe | None = None
        self.increases = 0
        """Times this client grew the limit."""
        self.decreases = 0
        """Times this client halved the limit."""
        self.probes = 0
        """Probes of the latency this client judged (each halved the limit or found no queue)."""

    def __repr__(self) -> str:
        return f"AdaptiveConcurrency(limit={self.limit}, bounds={self.bounds})"

    @property
    def generation(self) -> int:
        """Decreases of the limit so far (the shared count, with a shared limit)."""
        return self._generation

    def _leaving(self) -> Ticket:
        self._on_wire += 1
        return Ticket(self._generation, self._on_wire, self.limit, self._probe_send())

    def leave(self) -> None:
        self._on_wire -= 1
        self._gate.release()

    async def observe(self, ticket: Ticket, status: int | None, seconds: float, operation: str = "") -> None:
        if ticket.generation != self._generation:
            return  # sent under an older limit: that congestion was answered already
        if is_overload(status):
            await self._halve(f"status {status}" if status is not None else "no answer")
            return
        self._round_trip = seconds if self._round_trip is None else self._round_trip
        self._round_trip += LATENCY_SMOOTHING * (seconds - self._round_trip)
        if ticket.probe:
            if await self._judge(operation, ticket.crowd, seconds):
                return
        else:
            self._remember(operation, ticket.crowd, seconds)
        self._healthy += 1
        if self._may_grow() and self._healthy >= self._answers_to_grow(ticket):
            await self._grow()
        self._give_up_stale_probe()
        self._start_probe_if_due()

    async def _pace(self) -> None:
        """Leave one round trip / limit after the attempt before (at once until a round trip is
        known, and in slow start: nothing throttled yet, and pacing at the mean rate would cost the
        answers that come in bunches)."""
        if self._round_trip is None or self._slow_start():
            return
        now = asyncio.get_running_loop().time()  # the clock asyncio.sleep waits by
        leave = max(now, self._next_send)
        self._next_send = leave + self._round_trip / self.limit
        if leave > now:
            await asyncio.sleep(leave - now)

    def _answers_to_grow(self, ticket: Ticket) -> int:
        """Healthy answers that make the limit grow by one: in slow start, one sent with the limit
        full (a limit that is not used is not grown fast); else a round trip's, or a few near
        trouble."""
        if self._slow_start() and ticket.crowd >= ticket.limit * FULL:
            return 1
        if 0 <= self.limit + 1 - self._overloaded_at <= NEAR_OVERLOAD:
            return self.limit * GENTLE_GROWTH
        return self.limit

    # ------------------------------------------------------------------ probes

    def _remember(self, operation: str, crowd: int, seconds: float) -> None:
        """Keep an answer's latency and the attempts on the wire when it left, per operation."""
        recent = self._recent.get(operation)
        if recent is None:
            if len(self._recent) >= MAX_OPERATIONS:
                del self._recent[next(iter(self._recent))]
            recent = self._recent[operation] = deque(maxlen=FULL_SAMPLES)
        recent.append((crowd, seconds))

    def _probe_due(self) -> bool:
        """Whether the limit has grown far enough past the level last probed to be probed (in
        slow start, once it reached its upper bound)."""
        if self._slow_start() and self.limit < self.bounds[1]:
            return False
        return self.limit >= 2 and self.limit >= PROBE_GROWTH * self._probed_at

    def _may_grow(self) -> bool:
        """The limit grows past a level only once that level was probed (and not during a probe)."""
        return self._probe is None and not self._probe_due()

    def _slow_start(self) -> bool:
        """Whether growth doubles: until the first decrease, for a limit of this client's own (a
        shared limit's store takes one step at a time)."""
        return self._shared is None and self._generation == 0

    def _start_probe_if_due(self) -> None:
        """Begin a probe once it is due and answers of attempts sent at the full limit came
        back (a client that does not fill its limit is not judged by it, nor grows past it)."""
        level = self.limit
        if self._probe is not None or not self._probe_due():
            return
        reference = self._full_latencies(level)
        if reference:
            self._probe = _Probe(level, reference)
            self._gate.resize(level, hold=level // 2)

    def _full_latencies(self, level: int) -> dict[str, tuple[int, float]]:
        """Per operation, the median crowd and latency of its recent answers sent at the full ``level``."""
        medians: dict[str, tuple[int, float]] = {}
        for operation, recent in self._recent.items():
            full = [(crowd, seconds) for crowd, seconds in recent if crowd >= level * FULL]
            if len(full) >= MIN_FULL_SAMPLES:
                crowds, latencies = zip(*full, strict=True)
                medians[operation] = (statistics.median_low(crowds), statistics.median(latencies))
        return medians

    def _probe_send(self) -> bool:
        """Whether the attempt leaving now is one of a probe's: once the wire has drained to half
        the level, the next ``PROBE_SENDS`` are (the gate fills up again behind the first)."""
        probe = self._probe
        if probe is None or probe.sends_left == 0:
            return False
        if not probe.drained:
            if self._on_wire > probe.level // 2:
                return False  # let in before the drain, and leaving at the full limit
            probe.drained = True
            self._gate.resize(self.limit)
        probe.sends_left -= 1
        return True

    async def _judge(self, operation: str, crowd: int, seconds: float) -> bool:
        """Hear a probe's answer; once all are in, halve the limit if they show a queue (whether
        it was halved)."""
        probe = self._probe
        if probe is None:
            return False
        probe.yields.append(_yield(probe.reference.get(operation), crowd, seconds))
        if len(probe.yields) < PROBE_SENDS:
            return False
        self._probe = None
        self._recent.clear()  # the next probe compares with answers sent after this one
        yields = [found for found in probe.yields if found is not None]
        if not yields:
            return False  # other operations than the reference's: probe again
        self.probes += 1
        found = statistics.fmean(yields)
        if found >= QUEUED:
            self._probed_at, self._suspected = probe.level, 0
            return False
        if self._suspected != probe.level:  # a stall of the machine looks like a queue once
            self._suspected = probe.level
            return False
        await self._halve(
            f"latency rises with concurrency (the requests in flight beyond half of {probe.level} "
            f"yielded {max(found, 0.0):.0%} of their share of answers)"
        )
        self._probed_at = 0  # probe the new level next
        return True

    def _give_up_stale_probe(self) -> None:
        """A probe whose answers were never heard (a middleware's error) gives way to the next."""
        probe = self._probe
        if probe is None:
            return
        probe.waited += 1
        if probe.waited > PROBE_PATIENCE * probe.level:
            self._probe = None
            self._gate.resize(self.limit)

    # ------------------------------------------------------------------ steps

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
            self._healthy = 0
            self._recent.clear()
            self._probe = None
            self._ticket = Ticket(generation)
        if limit != self.limit or generation != self._generation:
            self._healthy = 0
            self._gate.resize(limit, hold=self._gate.hold if self._probe is not None else None)
        self._generation = generation
