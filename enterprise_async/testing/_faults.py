"""Faults on demand: what the sandbox does instead of (or on top of) answering a request.

Rules match a request by method and path pattern (``fnmatch``: ``/enterprise/v2/*``), fire a set
number of times (after skipping a number of matching requests), then retire. A random mode adds a
fault to a share of the matching requests, drawn from its own seeded generator, for soak tests::

    sandbox.faults.inject("/enterprise/v2/*", Fault.server_error(503), times=2)
    sandbox.faults.inject("*/allocate/", Fault.drop())
    sandbox.faults.random(rate=0.05, seed=7)
"""

from __future__ import annotations

import fnmatch
import random
from collections import Counter
from collections.abc import Sequence
from typing import Final, Literal

from attrs import define, field, frozen

__all__ = ["DEFAULT_RANDOM_FAULTS", "Fault", "FaultInjector", "FaultKind", "FaultRule"]

FaultKind = Literal["latency", "status", "drop", "malformed", "truncated", "slow"]


@frozen
class Fault:
    """One misbehaviour. Build it with the class methods, which say what each kind does."""

    kind: FaultKind
    status: int = 0
    seconds: float = 0.0
    retry_after: str | None = None

    @classmethod
    def latency(cls, seconds: float) -> Fault:
        """Wait ``seconds`` before handling the request, then answer normally."""
        return cls("latency", seconds=seconds)

    @classmethod
    def rate_limited(cls, retry_after: float | str = 1) -> Fault:
        """Answer 429 with ``Retry-After`` (seconds, or an HTTP date given as text)."""
        text = retry_after if isinstance(retry_after, str) else f"{retry_after:g}"
        return cls("status", status=429, retry_after=text)

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        """Answer a 5xx: 500 with a JSON or XML body, 502/503/504 with a gateway's HTML page."""
        if not 500 <= status <= 599:
            raise ValueError(f"a server error is a 5xx status, not {status}")
        return cls("status", status=status)

    @classmethod
    def drop(cls) -> Fault:
        """Close the connection without answering.

        aiohttp resends an idempotent request (GET) once when its connection closes unanswered,
        so a GET sees the failure only when the fault fires twice (``times=2``).
        """
        return cls("drop")

    @classmethod
    def malformed(cls) -> Fault:
        """Answer the normal status and headers with a body cut in half (it does not parse)."""
        return cls("malformed")

    @classmethod
    def truncated(cls) -> Fault:
        """Announce the full ``Content-Length``, send half the body, then close the connection."""
        return cls("truncated")

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        """Send the status and headers at once and the body only after ``seconds``."""
        return cls("slow", seconds=seconds)

    @property
    def name(self) -> str:
        """A short name for logs and counters (``"503"``, ``"drop"``...)."""
        return str(self.status) if self.kind == "status" else self.kind


DEFAULT_RANDOM_FAULTS: Final = (
    Fault.rate_limited(0),
    Fault.server_error(500),
    Fault.server_error(502),
    Fault.server_error(503),
    Fault.drop(),
    Fault.latency(0.05),
)
"""What random mode draws from unless told otherwise: faults a client is expected to ride out."""


@define
class FaultRule:
    """Fires ``fault`` on requests matching ``pattern`` (and ``method``), ``times`` times (None: always)."""

    pattern: str
    fault: Fault
    times: int | None = 1
    method: str | None = None
    skip: int = 0
    fired: int = 0

    def matches(self, method: str, path: str) -> bool:
        if self.method is not None and self.method.upper() != method:
            return False
        return fnmatch.fnmatchcase(path, self.pattern)

    @property
    def spent(self) -> bool:
        return self.times is not None and self.fired >= self.times


@define
class _RandomMode:
    rate: float
    faults: tuple[Fault, ...]
    pattern: str
    rng: random.Random


@define
class FaultInjector:
    """The faults of one sandbox: rules in the order they were added, and an optional random mode."""

    rules: list[FaultRule] = field(factory=list)
    fired: Counter[str] = field(factory=Counter)
    """How many times each kind of fault fired (``fired["503"]``, ``fired["drop"]``...)."""
    _random: _RandomMode | None = field(default=None, init=False)

    def inject(
        self,
        pattern: str,
        fault: Fault,
        *,
        times: int | None = 1,
        method: str | None = None,
        skip: int = 0,
    ) -> FaultRule:
        """Fire ``fault`` on the next ``times`` requests whose path matches ``pattern``,
        after letting ``skip`` of them through."""
        if times is not None and times < 1:
            raise ValueError("times must be at least 1, or None for every matching request")
        rule = FaultRule(pattern=pattern, fault=fault, times=times, method=method, skip=skip)
        self.rules.append(rule)
        return rule

    def random(
        self,
        rate: float,
        *,
        seed: int = 0,
        faults: Sequence[Fault] = DEFAULT_RANDOM_FAULTS,
        pattern: str = "/enterprise/*",
    ) -> None:
        """Add a fault, drawn from ``faults``, to a share ``rate`` of the requests matching ``pattern``."""
        if not 0.0 <= rate <= 1.0:
            raise ValueError("rate is a share between 0 and 1")
        if not faults:
            raise ValueError("random mode needs at least one fault to draw from")
        self._random = _RandomMode(rate, tuple(faults), pattern, random.Random(f"faults:{seed}"))

    def clear(self) -> None:
        """Remove every rule and stop random mode (the ``fired`` counters are kept)."""
        self.rules.clear()
        self._random = None

    def pick(self, method: str, path: str) -> Fault | None:
        """The fault for this request, if any; counts it as fired."""
        fault = self._from_rules(method, path) or self._from_random(path)
        if fault is not None:
            self.fired[fault.name] += 1
        return fault

    def _from_rules(self, method: str, path: str) -> Fault | None:
        if not self.rules:
            return None
        for rule in self.rules:
            if rule.spent or not rule.matches(method, path):
                continue
            if rule.skip > 0:
                rule.skip -= 1
                continue
            rule.fired += 1
            if rule.times is not None and rule.fired >= rule.times:
                self.rules.remove(rule)
            return rule.fault
        return None

    def _from_random(self, path: str) -> Fault | None:
        mode = self._random
        if mode is None or not fnmatch.fnmatchcase(path, mode.pattern):
            return None
        if mode.rng.random() >= mode.rate:
            return None
        return mode.faults[mode.rng.randrange(len(mode.faults))]
