"""An event loop on virtual time, for tests whose subject reacts to how long things take: its clock
(``loop.time()``, which ``asyncio.sleep`` and timeouts wait by) stands still while callbacks run and
jumps to the next timer when nothing is ready, so a coroutine that sleeps 0.1 s takes exactly 0.1 s
of the loop's time whatever the machine's load, and no wall-clock time at all.

    run_on_virtual_time(main())

Only loop-driven work belongs on it: sleeps, futures, tasks. Sockets would be polled without
waiting; a loop with nothing ready and no timer raises instead of spinning (a deadlock).
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["VirtualTimeLoop", "run_on_virtual_time"]


class _Instant(selectors.SelectSelector):
    """A selector that never blocks: a wait for ``timeout`` seconds moves the loop's clock on."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = super().select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:
            raise RuntimeError("deadlock: the virtual-time loop has nothing ready and no timer")
        self.now += timeout
        return ready


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """A selector event loop whose ``time()`` is virtual (it starts at 0)."""

    def __init__(self) -> None:
        self._instant = _Instant()
        super().__init__(self._instant)

    def time(self) -> float:
        return self._instant.now


def run_on_virtual_time(work: Coroutine[Any, Any, T]) -> T:
    """Run ``work`` to its end on a new virtual-time loop, as ``asyncio.run`` does on a real one
    (``asyncio.Runner`` and its ``loop_factory`` are Python 3.11's; the suite runs on 3.10 too)."""
    loop = VirtualTimeLoop()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(work)
    finally:
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
