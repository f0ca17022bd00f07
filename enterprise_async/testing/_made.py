"""``MadeWhenRead``: a sequence of records made from the seed when first read, one by one, as
catalog items are: what grows with the sandbox's size (a customer's plans, a configuration's
assignments) costs nothing until a page reads it, and a page costs only its own records."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar, overload

__all__ = ["MadeWhenRead"]

T = TypeVar("T")


class MadeWhenRead(Sequence[T]):
    """``length`` records, record ``i`` made by ``make(i)`` when first read and kept from then on
    (the endpoints change records in place); records appended later follow them."""

    def __init__(self, length: int, make: Callable[[int], T]) -> None:
        self._length = length
        self._make = make
        self._made: dict[int, T] = {}
        self._appended: list[T] = []

    @property
    def made(self) -> int:
        """How many of the seed's records have been made so far (read, or changed by a request)."""
        return len(self._made)

    def __len__(self) -> int:
        return self._length + len(self._appended)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self._record(position) for position in range(*index.indices(len(self)))]
        position = index + len(self) if index < 0 else index
        if not 0 <= position < len(self):
            raise IndexError(index)
        return self._record(position)

    def __iter__(self) -> Iterator[T]:
        return (self._record(position) for position in range(len(self)))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {len(self)} records, {self.made} made>"

    def append(self, record: T) -> None:
        """A record a request created, after every other."""
        self._appended.append(record)

    def _record(self, position: int) -> T:
        if position >= self._length:
            return self._appended[position - self._length]
        found = self._made.get(position)
        if found is None:
            found = self._made[position] = self._make(position)
        return found
