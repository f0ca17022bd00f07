"""``Timeout``: the connect, read and total limits of one attempt, set apart, and the wait for
the rate budget before it.

``timeout=30`` (a plain number) keeps meaning what it always meant: 30 seconds for the whole
attempt, from sending to the last byte of the answer. ``Timeout(connect=3, read=10, total=60)``
sets the kinds apart, as httpx's ``Timeout`` and aiohttp's ``ClientTimeout`` do. The wait for the
rate budget comes before sending and counts against none of them: ``rate_wait`` bounds it on its
own (as httpx's ``pool`` bounds the wait for a connection), and by default it is unbounded: the
pace a ``rate_limit`` asks for is not a failure.
"""

from __future__ import annotations

from collections.abc import Mapping

import aiohttp
from attrs import field, frozen

from ..errors import ClientValidationError

__all__ = ["Timeout", "check_timeout"]


def _limit(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise ClientValidationError(
            "timeout", f"limits must be positive numbers of seconds or None, got {value!r}"
        )
    return float(value)


@frozen
class Timeout:
    """Seconds one attempt may take, by kind; None leaves that kind unlimited.

    Args:
        total: The whole attempt, from sending the request to the last byte of the answer (what
            a plain number means).
        connect: Opening the connection: TCP, the proxy's tunnel and TLS.
        read: Waiting for the next piece of the answer (its headers, then each chunk of its body);
            a slow but steady download is not cut short.
        rate_wait: The longest the attempt waits for its turn in the rate budget (``rate_limit``),
            before anything is sent; past it, ``APITimeoutError`` and nothing sent. None (the
            default) waits as long as the budget needs: an export of more requests than a
            minute's limit waits for the next minute's window, which may take longer than
            ``total``. The other kinds count from sending, after this wait.

    Each retry gets the same limits afresh; the backoff between attempts is not counted.
    """

    total: float | None = field(default=None, converter=_limit)
    connect: float | None = field(default=None, converter=_limit)
    read: float | None = field(default=None, converter=_limit)
    rate_wait: float | None = field(default=None, converter=_limit)

    def to_aiohttp(self) -> aiohttp.ClientTimeout:
        """The limits of sending as aiohttp reads them (``sock_connect``, ``sock_read``, ``total``);
        ``rate_wait`` ends before sending, and the SDK bounds it itself."""
        return aiohttp.ClientTimeout(total=self.total, sock_connect=self.connect, sock_read=self.read)

    def __str__(self) -> str:
        kinds = [f"{name} {value:g} s" for name, value in self._kinds() if value is not None]
        return ", ".join(kinds) or "no limit"

    def _kinds(self) -> tuple[tuple[str, float | None], ...]:
        return (
            ("connect", self.connect),
            ("read", self.read),
            ("total", self.total),
            ("rate wait", self.rate_wait),
        )


def check_timeout(value: object, name: str = "timeout") -> Timeout | None:
    """A ``Timeout`` from what a user may give: a positive number of seconds (the whole attempt),
    a ``Timeout`` (or a mapping of its fields, as a queued job carries it), or None (keep the
    current one); a typed error names anything else."""
    if value is None or isinstance(value, Timeout):
        return value
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - {"total", "connect", "read", "rate_wait"})
        if unknown:
            raise ClientValidationError(name, f"Timeout has no field {unknown[0]!r}")
        return Timeout(**value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise ClientValidationError(
            name,
            "must be a positive number of seconds or a Timeout(connect=, read=, total=, rate_wait=), "
            f"got {value!r}",
        )
    return Timeout(total=float(value))
