"""Where an iteration stands, and the ``ListingCursor`` that says so.

A pager's ``cursor`` is kept one item ahead of what the caller was given: the page that follows
(the query its plan or its ``next`` link gives) and how many of its items were given already.
Nothing is counted per item: the iterator over a page's items knows how many remain.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import Any, Generic

import attrs
from attrs import define, field

from .cursor import ListingCursor
from .envelope import Envelope, link_query
from .plans import PageStep, PageT, requested_size

__all__ = ["Position", "identity"]


@define
class Position(Generic[PageT]):
    """Where one iteration from ``start`` stands: in ``step``'s page (None: before the first),
    whose items not yet given are what ``rest`` (an iterator over them) still holds."""

    start: ListingCursor
    step: PageStep[PageT] | None = None
    rest: Iterator[Any] = field(factory=lambda: iter(()))
    finished: bool = False

    def cursor(self, envelope: Envelope) -> ListingCursor:
        """The cursor one item past the last given: within the step's page, or past it once every
        item was given (marked done once the iteration has finished)."""
        step = self.step
        if step is None:
            cursor = self.start
        else:
            items = envelope.items(step.page)
            size = len(items)
            given = size - operator.length_hint(self.rest, 0)
            cursor = _within(self.start, step, given) if given < size else _after(self.start, step, size)
            if given:
                held = None if given < size else step.query
                last = identity(items[given - 1], envelope.pagination.identity)
                asked, answered = _sizes(envelope, step, size)
                cursor = attrs.evolve(cursor, held=held, last=last, asked=asked, answered=answered)
        return attrs.evolve(cursor, done=True) if self.finished and not cursor.done else cursor


def identity(item: Any, field: str | None) -> str | None:
    """An item's identity by the spec's ``x-sdk-identity-field``; None when it has none."""
    value = getattr(item, field, None) if field else None
    if value is None and field and isinstance(item, dict):
        value = item.get(field)
    return None if value is None else str(value)


def _sizes(envelope: Envelope, step: PageStep[Any], size: int) -> tuple[int | None, int | None]:
    """The page size the call asked for, and the one the service answered: the size of the
    cursor's page when another page followed it (a last page may be short, and says nothing)."""
    answered = size if step.after is not None else None
    return requested_size(envelope, step.query), answered


def _within(start: ListingCursor, step: PageStep[Any], given: int) -> ListingCursor:
    """The cursor after ``given`` items of a step's page."""
    return ListingCursor(
        start.listing,
        start.arguments,
        page=step.number,
        query=step.query,
        skip=given,
        before=step.before,
        size=step.size,
    )


def _after(start: ListingCursor, step: PageStep[Any], size: int) -> ListingCursor:
    """The cursor once a step's page (of ``size`` items) is given whole: the page after it, or the end."""
    return ListingCursor(
        start.listing,
        start.arguments,
        page=step.number + 1,
        query=(link_query(step.after) if isinstance(step.after, str) else step.after) or (),
        before=step.before + size,
        size=step.size,
        done=step.after is None,
    )
