"""What a rate budget counts: its limits (``"18/second; 360/minute"``), widened by a margin for the
way from the client to the service, and the moving windows that count the requests drawn.

The services count *arrivals* (DRF's ``SimpleRateThrottle`` keeps the times of the requests within
its duration and refuses the next one once they reach the rate). A request drawn at ``t`` arrives
at ``t + d``, with ``d`` anywhere between the fastest and the slowest way there; so requests drawn
within ``seconds + margin`` of one another, where ``margin`` covers the spread of ``d``, can never
arrive more than ``amount`` within ``seconds``. Each limit is therefore counted over a window
``margin`` wider than the service's, and draws are spaced (``spacing``): a clump drawn at once
would leave one by one, its last requests late by the time the others take to send.

``DEFAULT_RATE_MARGIN`` (0.1 s) covers the spread of the way from a draw to the service's clock:
the client's own lateness (bounded here: a request later than ``LATE_SHARE`` of the margin to its
moment draws again), the network's jitter, and the service's wait before its throttle reads the
time. It may not pass 1/9 s: a burst goes at most ``amount`` per ``seconds + margin``, and 18 per
1.111 s is the 90% of the budget a client must keep. A service that waits for a CPU itself adds a
spread no margin a client can afford covers; a client in that place sets its margin
(``"...; margin=0.25s"``). The spread as measured: ``tests/bench/README.md`` (the rate margin).
"""

from __future__ import annotations

import contextlib
import math
import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import NamedTuple

from attrs import define, field

from .._utils.constants import DEFAULT_RATE_MARGIN, RESERVE_AHEAD
from ..errors import ClientValidationError

__all__ = ["Draw", "Limit", "MemoryWindows", "RateLimit", "parse_rate_limit", "spacing"]

_MARGIN = re.compile(r"^margin\s*[=:]?\s*(?P<number>[0-9]*\.?[0-9]+)\s*(?P<unit>ms|s)?$", re.IGNORECASE)
_EXAMPLE = "'18/second; 360/minute' (with a margin: '18/second; 360/minute; margin=0.1s')"


@define(frozen=True)
class Limit:
    """At most ``amount`` requests within any ``seconds``."""

    amount: int
    seconds: float

    def __str__(self) -> str:
        return f"{self.amount} per {self.seconds:g} second"


@define(frozen=True)
class RateLimit:
    """A rate budget: ``limits`` as the service counts them, and the ``margin`` (seconds) every
    window is widened by for the delay between sending a request and its arrival.

    ``RateLimit.parse("18/second; 360/minute")`` (the default margin) or with the margin written
    in: ``"18/second; 360/minute; margin=0.1s"`` (``ms`` or ``s``; ``margin=0`` counts sends
    exactly as the service counts arrivals). ``rate_limit=`` and ``--rate-limit`` take either form.
    """

    limits: tuple[Limit, ...]
    margin: float = field(default=DEFAULT_RATE_MARGIN)

    @classmethod
    def parse(cls, text: str) -> RateLimit:
        """The budget of ``"18/second; 360/minute"`` (a ``margin=`` part optional); a clear error else."""
        return parse_rate_limit(text)

    @property
    def windows(self) -> tuple[Limit, ...]:
        """The limits as the client counts its draws: each window ``margin`` seconds wider."""
        return tuple(Limit(limit.amount, limit.seconds + self.margin) for limit in self.limits)

    def __str__(self) -> str:
        limits = "; ".join(str(limit) for limit in self.limits)
        return f"{limits}; margin={self.margin:g}s"


def parse_rate_limit(text: str | RateLimit) -> RateLimit:
    """The budget of ``"18/second; 360/minute"`` or ``"...; margin=0.1s"`` (a ``RateLimit`` is
    checked and returned); a clear error for anything else."""
    if isinstance(text, RateLimit):
        return _checked(text, str(text))
    if not isinstance(text, str) or not text.strip():
        raise ClientValidationError("rate_limit", f"must be a text such as {_EXAMPLE}")
    from limits import parse_many

    parts = [part.strip() for part in re.split(r"[;,|]", text) if part.strip()]
    margins = [match for part in parts if (match := _MARGIN.match(part))]
    if len(margins) > 1:
        raise ClientValidationError("rate_limit", f"names more than one margin: {text!r}")
    rest = [part for part in parts if not _MARGIN.match(part)]
    if any(part.lower().startswith("margin") for part in rest):
        raise ClientValidationError(
            "rate_limit", f"cannot read the margin of {text!r}; write it as 'margin=0.1s' or 'margin=100ms'"
        )
    try:
        items = parse_many("; ".join(rest)) if rest else []
    except ValueError as error:
        message = f"cannot read {text!r} ({error}); write it as {_EXAMPLE}"
        raise ClientValidationError("rate_limit", message) from None
    margin = DEFAULT_RATE_MARGIN
    if margins:
        number, unit = float(margins[0]["number"]), (margins[0]["unit"] or "s").lower()
        margin = number / 1000 if unit == "ms" else number
    limits = tuple(Limit(item.amount, float(item.get_expiry())) for item in items)
    return _checked(RateLimit(limits, margin), text)


def _checked(budget: RateLimit, text: str) -> RateLimit:
    if not budget.limits:
        raise ClientValidationError("rate_limit", f"names no limit: {text!r}")
    if empty := [str(limit) for limit in budget.limits if limit.amount < 1 or not limit.seconds > 0]:
        raise ClientValidationError(
            "rate_limit", f"{text!r} allows no request ({', '.join(empty)}): every call would wait forever"
        )
    if not (math.isfinite(budget.margin) and budget.margin >= 0):
        raise ClientValidationError("rate_limit", f"the margin of {text!r} must be zero or more seconds")
    return budget


def spacing(windows: Sequence[Limit], margin: float) -> float:
    """The least time between two draws: the shortest window's share of one request, never more
    than ``margin``. A clump drawn at once would leave one by one, its last requests late by the
    time the others take to send, eating into the margin; spaced, each leaves as it is drawn. Never
    more than the margin, so that a slow limit ("10/minute") still lets a few requests go at once
    rather than one every six seconds."""
    return min(margin, *(window.seconds / window.amount for window in windows))


class Draw(NamedTuple):
    """What a draw gives: ``granted`` and, if so, the request is to be sent in ``wait`` seconds
    (``moment`` is held for it, as the store noted it); else draw again in ``wait`` seconds."""

    granted: bool
    wait: float
    moment: float | str = 0.0


class MemoryWindows:
    """Moving windows counted in this process: the moments of the draws on each key."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._moments: dict[str, deque[float]] = {}
        self._clock = clock

    def draw(self, windows: Sequence[Limit], key: str, margin: float) -> Draw:
        """Take one request from every window (see ``RateStore.draw``)."""
        now = self._clock()
        moments = self._moments.setdefault(key, deque())
        wait = moments[-1] + spacing(windows, margin) - now if moments else 0.0
        for window in windows:
            if len(moments) >= window.amount:
                wait = max(wait, moments[-window.amount] + window.seconds - now)
        if wait > RESERVE_AHEAD:
            return Draw(False, wait)
        moment = now + max(0.0, wait)
        moments.append(moment)
        keep = max(window.amount for window in windows)
        while len(moments) > keep:
            moments.popleft()
        return Draw(True, max(0.0, wait), moment)

    def release(self, key: str, moment: float | str) -> None:
        """Give back a moment drawn and not used: nothing will arrive for it."""
        with contextlib.suppress(ValueError):
            self._moments.get(key, deque()).remove(float(moment))
