"""Where an iteration stands, and the ``ListingCursor`` that says so.

A pager's ``cursor`` is kept one item ahead of what the caller was given: the page that follows
(the query its plan or its ``next`` link gives) and how many of its items were given already.
Nothing is counted per item: the iterator over a page's items knows how many remain.
"""

from __future__ import annotations

import hashlib
import operator
import string
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any, Generic

import attrs
from attrs import define, field

from .._decoding.spec import Pagination
from .cursor import ListingCursor
from .envelope import Envelope, link_query
from .plans import PageStep, PageT, requested_size

__all__ = ["Position", "identity", "mark"]


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
                last = identity(items[given - 1], envelope.pagination)
                seen = mark(items[:given]) if last is None else None
                asked, answered = _sizes(envelope, step, size)
                cursor = attrs.evolve(cursor, held=held, last=last, mark=seen, asked=asked, answered=answered)
        return attrs.evolve(cursor, done=True) if self.finished and not cursor.done else cursor


def identity(item: Any, pagination: Pagination) -> str | None:
    """An item's identity by the spec's ``x-sdk-identity-field``: its field, else the first of
    its fallback templates whose every field the item has (a union's discriminator read from the
    item's class where the item names none); None when it has none."""
    value = _value(item, pagination.identity)
    if value is not None:
        return str(value)
    for template in pagination.identity_fallbacks:
        values = {name: _value(item, name) for name in _placeholders(template)}
        kind = pagination.identity_type_field
        if kind in values and values[kind] is None:
            values[kind] = dict(pagination.identity_types).get(type(item).__name__)
        if all(part is not None for part in values.values()):
            return template.format_map({name: _text(part) for name, part in values.items()})
    return None


def mark(items: Sequence[Any]) -> str:
    """A digest of items as decoded (their ``repr``): what a cursor whose last item has no
    identity records of the items given on its page, so that a resume finds whether they changed."""
    return hashlib.sha256(repr(list(items)).encode()).hexdigest()[:24]


def _value(item: Any, field: str | None) -> Any:
    if not field:
        return None
    value = item.get(field) if isinstance(item, dict) else getattr(item, field, None)
    return None if value == "" else value


def _text(value: Any) -> str:
    return str(getattr(value, "value", value))


@lru_cache(maxsize=64)
def _placeholders(template: str) -> tuple[str, ...]:
    return tuple(name for _, name, _, _ in string.Formatter().parse(template) if name)


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
