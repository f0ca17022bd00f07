"""The cyclic garbage collector's full passes, deferred while ``to_list()`` gathers a listing.

Every model ``to_list()`` holds is an object the collector tracks, and CPython's generational
collector walks the whole heap again each time the objects promoted to its oldest generation
grow by a quarter: gathering 100,000 catalog items (about seven million tracked objects) costs
the collector as much CPU again as half the decoding (benchmark B4). None of those walks can
free anything, since the listing holds every object it walks.

While a listing gathers, the oldest generation's threshold is raised out of reach, so only
those full passes wait: the young generations are collected as usual, and so is every cycle
that dies young. The thresholds are put back when the last gathering listing ends, whatever
way it ends; the first collection after that is a full pass, as it would have been. The
deferral is process-wide (the collector is), which is why a caller who set thresholds of their
own while a listing gathered keeps them, and why ``to_list(defer_full_collections=False)``
leaves the collector alone. (Decoding one page holds the collector outright, ``read_result``:
that section never awaits, so nothing else runs meanwhile.)
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["full_collections_deferred"]

OUT_OF_REACH = 2**31 - 1
"""The oldest generation's threshold while deferred: the collector counts to it one young pass
at a time (ten a few thousand allocations), so it is never reached."""

_lock = threading.Lock()
_gathering = 0
_restore: tuple[int, int, int] | None = None
"""The thresholds to put back when the last gathering listing ends (None: none are deferred)."""


@contextmanager
def full_collections_deferred() -> Iterator[None]:
    """Defer the collector's full passes for as long as this, or another, is entered."""
    _enter()
    try:
        yield
    finally:
        _leave()


def _enter() -> None:
    global _gathering, _restore
    with _lock:
        _gathering += 1
        if _gathering > 1:
            return
        young, middle, oldest = gc.get_threshold()
        _restore = (young, middle, oldest)
        gc.set_threshold(young, middle, OUT_OF_REACH)


def _leave() -> None:
    global _gathering, _restore
    with _lock:
        _gathering -= 1
        if _gathering or _restore is None:
            return
        young, middle, oldest = _restore
        _restore = None
        if gc.get_threshold() == (young, middle, OUT_OF_REACH):  # else the caller set their own
            gc.set_threshold(young, middle, oldest)
