"""The bound on a client's requests in flight: fixed (``max_concurrency=8``) or adaptive (``"auto"``).

Both are one ``ConcurrencyLimit``: a gate every attempt passes (``enter``/``leave``) and that hears how the
attempt went (``observe``). The transport is the only caller; the client and its views hold the
limit by reference, so a view of an ``"auto"`` client adapts the same limit as its parent.

How ``"auto"`` adapts is ``_transport.adaptive``'s docstring.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Literal, Protocol

from attrs import frozen

__all__ = [
    "ConcurrencyLimit",
    "FixedConcurrency",
    "SharedLimit",
    "Ticket",
    "is_overload",
]


Step = Literal["grow", "halve"]


def is_overload(status: int | None) -> bool:
    """Whether an answer says "too much": a 429, a 5xx, or no answer at all (None)."""
    return status is None or status == 429 or status >= 500


@frozen
class Ticket:
    """One attempt's pass through the gate: the generation of the limit it was sent under, the
    attempts on the wire when it left (itself included), the limit then, and whether it is a
    probe's."""

    generation: int
    crowd: int = 0
    limit: int = 0
    probe: bool = False


class SharedLimit(Protocol):
    """Where an adaptive limit is kept beyond this client (a ``RateBudget``: memory or Redis)."""

    async def concurrency_step(
        self, step: Step, generation: int, limit: int, bounds: tuple[int, int]
    ) -> tuple[int, int] | None:
        """Apply ``step`` to the shared limit if it is still at ``generation`` (else leave it);
        the shared ``(limit, generation)`` after, or None when the store cannot be reached."""
        ...


class _Gate:
    """A semaphore whose size may change while tasks wait on it (first come, first served).

    ``hold`` admits fewer for a while (a probe's drain) without changing the limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.hold: int | None = None
        self.in_flight = 0
        self.most_in_flight = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    def take_at_once(self) -> bool:
        """Take a place if one is free and nobody waits for it; whether one was taken."""
        if self._room() and not self._waiters:
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
        if self._waiters:
            self._wake()

    def resize(self, limit: int, hold: int | None = None) -> None:
        self.limit, self.hold = limit, hold
        self._wake()

    def _room(self) -> bool:
        return self.in_flight < (self.limit if self.hold is None else min(self.limit, self.hold))

    def _take(self) -> None:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)

    def _wake(self) -> None:
        while self._waiters and self._room():
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
        return self._leaving()

    def leave(self) -> None:
        """Give back the place ``enter_now`` or ``enter`` took."""
        self._gate.release()

    async def _pace(self) -> None:
        """Wait for this attempt's turn to leave (a fixed bound sends at once)."""

    def _leaving(self) -> Ticket:
        """The ticket of an attempt leaving now: the generation it is sent under, after any wait."""
        return self._ticket

    async def observe(self, ticket: Ticket, status: int | None, seconds: float, operation: str = "") -> None:
        """Hear how an attempt went: its status (None: no answer), how long it took, and which
        operation it was (latencies are compared with the same operation's)."""


class FixedConcurrency(ConcurrencyLimit):
    """``max_concurrency=N``: N attempts in flight at most, whatever the answers."""

    def __repr__(self) -> str:
        return f"FixedConcurrency({self.limit})"
