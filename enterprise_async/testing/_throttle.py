"""``Throttle``: the sandbox's own rate limit, answering 429 with ``Retry-After`` as the real services do.

``Sandbox(rate_limit="18/second; 360/minute")`` applies it to every API request (not to the token
issuer), counted for the whole sandbox (one client), on the ``limits`` library's moving window.
"""

from __future__ import annotations

import math
import time

from limits import parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from ._faults import Fault

__all__ = ["Throttle"]

THROTTLED_PREFIX = "/enterprise/"
"""Paths the throttle counts (the API, not the token issuer)."""


class Throttle:
    """Counts the API requests a sandbox receives and throttles those over its limits."""

    def __init__(self, rate_limit: str) -> None:
        self.items = tuple(parse_many(rate_limit))
        self._window = MovingWindowRateLimiter(MemoryStorage())
        self.throttled = 0
        """Requests answered 429 by the throttle."""

    def __repr__(self) -> str:
        return f"Throttle({'; '.join(str(item) for item in self.items)}, throttled={self.throttled})"

    def pick(self, path: str) -> Fault | None:
        """A 429 for this request when it is over a limit, else None (and it is counted)."""
        if not path.startswith(THROTTLED_PREFIX):
            return None
        for item in self.items:
            if not self._window.test(item, "sandbox"):
                return self._refuse(item)
        for item in self.items:
            self._window.hit(item, "sandbox")
        return None

    def _refuse(self, item: object) -> Fault:
        self.throttled += 1
        reset = self._window.get_window_stats(item, "sandbox").reset_time  # type: ignore[arg-type]
        return Fault.rate_limited(max(1, math.ceil(reset - time.time())))
