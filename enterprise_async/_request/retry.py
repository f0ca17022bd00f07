"""``RetryPolicy``: how long to wait before a retry, and after which statuses to retry at all.

A policy is set per client (``retry=``), per ``with_options`` view, or per call (``retry=``); how
many retries stays ``max_retries``. Whatever the policy, a request that may have changed
something (a POST) is retried only where the server said nothing was done (the spec's "try later"
statuses: 429 everywhere, 423 on license assignment) or where it never reached the server: a
policy tunes the waiting, it cannot make a bulk job run twice.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping

import attrs
from attrs import field, frozen

from .._utils.constants import INITIAL_RETRY_DELAY, MAX_RETRY_AFTER, MAX_RETRY_DELAY
from .._utils.json_types import JSONValue
from ..errors import ClientValidationError

__all__ = ["DEFAULT_RETRY_STATUSES", "RetryPolicy"]

DEFAULT_RETRY_STATUSES: frozenset[int] = frozenset({429, *range(500, 600)})
"""Statuses after which an idempotent request (a GET) is retried by default: 429 and every 5xx."""

DEFAULT_JITTER = 0.5
"""Share of each backoff drawn at random, so that clients that failed together do not retry together."""


def _statuses(value: object) -> frozenset[int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ClientValidationError("retry_statuses", f"must be a collection of HTTP statuses, got {value!r}")
    statuses = frozenset(value)
    for status in statuses:
        if isinstance(status, bool) or not isinstance(status, int) or not 400 <= status <= 599:
            raise ClientValidationError(
                "retry_statuses", f"must hold error statuses (400-599), got {status!r}"
            )
    return statuses


def _seconds(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
        raise ClientValidationError(name, f"must be a number of seconds >= 0, got {value!r}")
    return float(value)


def _initial_delay(value: object) -> float:
    return _seconds("initial_delay", value)


def _max_delay(value: object) -> float:
    return _seconds("max_delay", value)


def _max_retry_after(value: object) -> float:
    return _seconds("max_retry_after", value)


def _share(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ClientValidationError("jitter", f"must be a share between 0 and 1, got {value!r}")
    return float(value)


@frozen
class RetryPolicy:
    """When a failed request is tried again.

    Args:
        initial_delay: Seconds before the first retry; each further retry doubles it...
        max_delay: ...up to this many seconds.
        jitter: Share of each delay drawn at random: 0 waits exactly, 0.5 (the default) waits
            between half and all of it, 1 anywhere from nothing to all of it ("full jitter").
        retry_statuses: Statuses after which an idempotent request (a GET) is retried; 429 and
            every 5xx by default. A POST is retried only on the spec's "try later" statuses.
        max_retry_after: Longest ``Retry-After`` obeyed, in seconds; a server's ``Retry-After``
            (seconds or an HTTP date) replaces the backoff up to that.

    How many retries is ``max_retries`` (per client or view); ``policy.replace(jitter=0)`` is a
    copy differing in the fields named.
    """

    initial_delay: float = field(default=INITIAL_RETRY_DELAY, converter=_initial_delay)
    max_delay: float = field(default=MAX_RETRY_DELAY, converter=_max_delay)
    jitter: float = field(default=DEFAULT_JITTER, converter=_share)
    retry_statuses: frozenset[int] = field(default=DEFAULT_RETRY_STATUSES, converter=_statuses)
    max_retry_after: float = field(default=MAX_RETRY_AFTER, converter=_max_retry_after)

    def __attrs_post_init__(self) -> None:
        if self.max_delay < self.initial_delay:
            raise ClientValidationError(
                "max_delay", f"must be at least initial_delay ({self.initial_delay}), got {self.max_delay}"
            )

    def replace(self, **changes: object) -> RetryPolicy:
        """A copy of this policy differing in the fields named (validated like the constructor)."""
        unknown = sorted(set(changes) - {attribute.name for attribute in attrs.fields(RetryPolicy)})
        if unknown:
            raise ClientValidationError("retry", f"RetryPolicy has no field {unknown[0]!r}")
        return attrs.evolve(self, **changes)

    def retries_status(self, status: int, *, idempotent: bool, try_later: frozenset[int]) -> bool:
        """Whether an answer with this status is worth another attempt (retries left aside).

        ``try_later`` are the statuses the operation marks "nothing was done" (safe for any method).
        """
        if status in try_later:
            return True
        return idempotent and status in self.retry_statuses

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (0 for the first retry).

        A ``Retry-After`` is obeyed, capped at ``max_retry_after``; otherwise the delay doubles
        from ``initial_delay`` up to ``max_delay``, the ``jitter`` share of it drawn at random.
        """
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        ceiling = min(self.max_delay, self.initial_delay * 2.0 ** min(retry, 64))
        fixed = ceiling * (1 - self.jitter)
        return fixed + random.uniform(0, ceiling - fixed)

    def to_json(self) -> dict[str, JSONValue]:
        """JSON-ready data (for a queued job); ``RetryPolicy(**data)`` reads it back."""
        return {**attrs.asdict(self), "retry_statuses": sorted(self.retry_statuses)}


def check_retry_policy(value: object, name: str = "retry") -> RetryPolicy | None:
    """A ``RetryPolicy`` (or its ``to_json`` data), or None; a typed error names anything else."""
    if value is None or isinstance(value, RetryPolicy):
        return value
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - {attribute.name for attribute in attrs.fields(RetryPolicy)})
        if unknown:
            raise ClientValidationError(name, f"RetryPolicy has no field {unknown[0]!r}")
        return RetryPolicy(**value)
    raise ClientValidationError(name, f"must be a RetryPolicy, got {type(value).__name__}")
