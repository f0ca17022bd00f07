"""Resuming a listing: where a walk stands, as a ``ListingCursor`` that survives the process that
read it, and the checks a resume makes before it gives an item.

A pager's ``cursor`` is kept one item ahead of what the caller was given (``Position``): the page
that follows (the query its plan or its ``next`` link gives) and how many of its items were given
already. ``pager.resume(cursor)`` starts a listing there, so a job that crashed or was cancelled
picks up where it stopped instead of at page 1. The cursor is tied to its listing (the operation
and its arguments, page size included): offered to another listing it is refused with
``ListingCursorError`` before anything is sent, since its page numbers would mean other items.

A cursor records the identity of the last item given (``x-sdk-identity-field`` of the item
schema) and the size of a full page as the service answered it. A resume (``Resumption``) reads the
page again and finds that item there: when items before it were removed or inserted, the listing
continues right after it, wherever it now stands; when it cannot be found, or the service now pages
by another size that leaves the position unknown, ``ListingMovedError`` says what changed. A cursor
taken at a page boundary names the page after the last one given; its ``held`` query names the page
that holds the last item given, which is read again first: an item removed before the cursor moves
an item not yet given onto that page, and an item inserted moves the last item given onto the next.
"""

from __future__ import annotations

import hashlib
import logging
import operator
import string
from collections.abc import Awaitable, Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any, Final, Generic

import attrs
import orjson
from attrs import define, field, frozen
from typing_extensions import TypeVar as DefaultTypeVar

from .._request.request import Query
from .._response.answer import Answer
from .._response.item_reading import UnreadableItem
from .._spec import Pagination
from ..errors import ListingCursorError, ListingMovedError
from .envelope import Envelope, link_query

__all__ = [
    "CURSOR_VERSION",
    "ListingCursor",
    "PageStep",
    "PageT",
    "Position",
    "Resumption",
    "identity",
    "listing_arguments",
    "mark",
]

logger = logging.getLogger("enterprise_async")

PageT = DefaultTypeVar("PageT", default=Any)

CURSOR_VERSION: Final = 3
READABLE_VERSIONS: Final = (1, 2, 3)
"""Version 1 cursors (without the last item and the page sizes) and version 2 (without ``mark``)
are read: their resume checks what it can, by position."""


@frozen
class ListingCursor:
    """A position in one listing: opaque to callers, serialisable (``to_json``/``from_json``;
    ``str(cursor)`` is the same text).

    It records the operation and a digest of its arguments (``extra_query`` included), the page
    size asked for and the one the service answered, and the identity of the last item given, so
    that a resume can find that item in the refetched page.

    ``page`` is the number, in listing order from 1, of the page the listing continues with, and
    ``query`` the query that asks for it; ``skip`` of its items were given already (a cursor taken
    in the middle of a page). ``before`` counts the items of the pages before it, so a resumed
    listing still checks the envelopes' count. ``done`` marks a listing read to its end.
    """

    listing: str
    """The operation (``catalogs.contents``)."""
    arguments: str
    """A digest of the call's path and query (page size included), without the page driven by the pager."""
    page: int = 1
    query: Query = ()
    skip: int = 0
    before: int = 0
    size: int | None = None
    """The page size numbered pages are computed with, when the listing numbers pages itself."""
    done: bool = False
    asked: int | None = None
    """The page size the call asked for (None: the service's default)."""
    answered: int | None = None
    """The size of a full page as the service answered it when the cursor was taken (None: unknown,
    the cursor's page was the last one)."""
    last: str | None = None
    """The identity (``x-sdk-identity-field``) of the last item given; None when the listing's
    items have none, or nothing was given yet."""
    held: Query | None = None
    """The query of the page that holds the last item given, when it is not ``query`` (a cursor
    at a page boundary): a resume reads that page again to find the item."""
    mark: str | None = None
    """When the last item given has no identity: a digest of the items given on its page, which
    a resume compares with the page read again (``ListingMovedError`` when they differ)."""

    def __str__(self) -> str:
        return self.to_json()

    def to_json(self) -> str:
        """The cursor as compact JSON text (store it anywhere; ``from_json`` reads it back)."""
        document = {
            "version": CURSOR_VERSION,
            **attrs.asdict(self, recurse=False),
            "query": [list(pair) for pair in self.query],
            "held": None if self.held is None else [list(pair) for pair in self.held],
        }
        return orjson.dumps(document).decode()

    @classmethod
    def from_json(cls, text: str | bytes) -> ListingCursor:
        """The cursor ``to_json`` wrote. Raises ``ListingCursorError`` for anything else."""
        try:
            document = orjson.loads(text)
        except (orjson.JSONDecodeError, TypeError) as error:
            raise ListingCursorError(f"not a listing cursor: {error}") from None
        if not isinstance(document, dict) or document.get("version") not in READABLE_VERSIONS:
            raise ListingCursorError(f"not a listing cursor of version {CURSOR_VERSION}")
        return cls(
            listing=_string(document, "listing"),
            arguments=_string(document, "arguments"),
            page=_count(document, "page", least=1),
            query=_query(document.get("query")),
            skip=_count(document, "skip"),
            before=_count(document, "before"),
            size=None if document.get("size") is None else _count(document, "size", least=1),
            done=_flag(document, "done"),
            asked=_size(document, "asked"),
            answered=_size(document, "answered"),
            last=None if document.get("last") is None else _string(document, "last"),
            held=None if document.get("held") is None else _query(document.get("held")),
            mark=None if document.get("mark") is None else _string(document, "mark"),
        )

    def check(self, listing: str, arguments: str) -> None:
        """Refuse this cursor for a listing other than its own."""
        if self.listing != listing:
            raise ListingCursorError(f"the cursor is a position in {self.listing}, not in {listing}")
        if self.arguments != arguments:
            raise ListingCursorError(
                f"the cursor is a position in {listing} called with other arguments (another filter, "
                "extra_query or page size)"
            )


def listing_arguments(path: str, query: Query, driven: Sequence[str | None]) -> str:
    """The digest that ties a cursor to a call: its path and query, less the parameters the pager
    drives (the page number or offset), whose values change from page to page."""
    kept = sorted((name, value) for name, value in query if name not in driven)
    return hashlib.sha256(orjson.dumps([path, kept])).hexdigest()[:24]


def _string(document: dict[str, Any], key: str) -> str:
    value = document.get(key)
    if not isinstance(value, str) or not value:
        raise ListingCursorError(f"the cursor's {key} must be a non-empty string, got {value!r:.60}")
    return value


def _count(document: dict[str, Any], key: str, *, least: int = 0) -> int:
    value = document.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ListingCursorError(f"the cursor's {key} must be an integer >= {least}, got {value!r:.60}")
    return value


def _size(document: dict[str, Any], key: str) -> int | None:
    return None if document.get(key) is None else _count(document, key, least=1)


def _flag(document: dict[str, Any], key: str) -> bool:
    value = document.get(key)
    if not isinstance(value, bool):
        raise ListingCursorError(f"the cursor's {key} must be true or false, got {value!r:.60}")
    return value


def _query(value: Any) -> Query:
    pairs = value if isinstance(value, list) else None
    if pairs is None or not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(part, str) for part in pair)
        for pair in pairs
    ):
        raise ListingCursorError(f"the cursor's query must be a list of [name, value] pairs: {value!r:.60}")
    return tuple((name, part) for name, part in pairs)


@define
class PageStep(Generic[PageT]):
    """One page of a walk: its number in listing order, the query that fetched it and the query of
    the page after it (None when the plan or the links say it is the last; a ``next`` link as
    sent, read only when a cursor needs it)."""

    page: PageT
    number: int
    query: Query
    after: Query | str | None
    size: int | None = None
    """The page size that numbers pages (listings without links), kept in cursors."""
    before: int = 0
    """Items of the pages before this one (set as the walk counts them)."""
    skip: int = 0
    """Items of this page given before (a resumed listing's first page, as its check found them)."""
    answer: Answer = field(kw_only=True)
    """The answer that held the page."""


@define
class Position(Generic[PageT]):
    """Where one iteration from ``start`` stands: in ``step``'s page (None: before the first),
    whose items not yet given are what ``rest`` (an iterator over them) still holds. Nothing is
    counted per item: the iterator over a page's items knows how many remain."""

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
                asked = envelope.requested_size(step.query)
                answered = size if step.after is not None else None  # a last page may be short
                cursor = attrs.evolve(cursor, held=held, last=last, mark=seen, asked=asked, answered=answered)
        return attrs.evolve(cursor, done=True) if self.finished and not cursor.done else cursor


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
            return template.format_map({name: _spelling(part) for name, part in values.items()})
    return None


def mark(items: Sequence[Any]) -> str:
    """A digest of items as decoded (their ``repr``): what a cursor whose last item has no
    identity records of the items given on its page, so that a resume finds whether they changed."""
    return hashlib.sha256(repr(list(items)).encode()).hexdigest()[:24]


def _value(item: Any, name: str | None) -> Any:
    if not name:
        return None
    if isinstance(item, UnreadableItem):
        item = item.raw  # named as the service sent it
    value = item.get(name) if isinstance(item, dict) else getattr(item, name, None)
    return None if value == "" else value


def _spelling(value: Any) -> str:
    """A value as an identity template writes it: an enum member by its value."""
    return str(getattr(value, "value", value))


@lru_cache(maxsize=64)
def _placeholders(template: str) -> tuple[str, ...]:
    return tuple(name for _, name, _, _ in string.Formatter().parse(template) if name)


FetchPage = Callable[[Query, int], Awaitable[tuple[Any, Answer]]]
"""One page, decoded, with its answer (``Window.page``)."""


@frozen
class Resumption:
    """The checks of one listing resumed from ``start``: no item is lost or repeated silently."""

    envelope: Envelope
    start: ListingCursor

    async def held(self, fetch: FetchPage) -> tuple[PageStep[Any] | None, bool]:
        """For a cursor at a page boundary: the page that held the last item given, read again,
        as a step whose items after that item are still to give (None when none are), and
        whether the item was found there."""
        start = self.start
        if start.skip or start.held is None or start.held == start.query:
            return None, False
        if start.last is None:
            return None, await self._unchanged(fetch, start.held)
        page, answer = await fetch(start.held, start.page - 1)
        items = self.envelope.items(page)
        index = self._index(items)
        if index is None:
            return None, False
        if index + 1 == len(items):
            return None, True
        moved, number = len(items) - index - 1, start.page - 1
        logger.info("resumed listing: %d item(s) moved onto page %d; given first", moved, number)
        before = max(0, start.before - (start.answered or len(items)))
        step = PageStep(
            page, number, start.held, start.query, start.size, before=before, skip=index + 1, answer=answer
        )
        return step, True

    def skip(self, page: Any, found: bool) -> int:
        """How many items of the start page, read again, were given already (``found``: the last
        item given was found on the held page, so none of this page's were).

        Raises ``ListingMovedError`` when the position is unknown."""
        start = self.start
        items = self.envelope.items(page)
        now = self._answered(page)
        if found:
            return 0
        if start.last is None and start.mark is not None and start.skip:
            if mark(items[: start.skip]) != start.mark or self._resized(now):
                raise self._moved(f"the {start.skip} item(s) given of page {start.page} changed")
            return start.skip
        if start.last is None or (start.held is None and not start.skip):
            # no item to look for: check what positions can tell
            if start.skip > len(items) or self._resized(now):
                raise self._moved(f"the service pages by {now or len(items)} items, not {start.answered}")
            return start.skip
        index = self._index(items)
        if index is None or (self._resized(now) and start.size is not None):
            raise self._moved(self._change(now))
        if index + 1 != start.skip:
            logger.info("resumed listing: the last item given moved on page %d", start.page)
        return index + 1

    async def _unchanged(self, fetch: FetchPage, held: Query) -> bool:
        """For a cursor whose last item given has no identity, at a page boundary: whether the
        page that held it, read again, still holds the items given (None recorded: nothing to
        check). Raises ``ListingMovedError`` when it does not: positions cannot be trusted."""
        start = self.start
        if start.mark is None:
            return False
        page, _ = await fetch(held, start.page - 1)
        if mark(self.envelope.items(page)) != start.mark:
            raise self._moved(f"the items given of page {start.page - 1} changed")
        return True

    def _index(self, items: Sequence[Any]) -> int | None:
        """Where the last item given is among ``items``, None when it is not."""
        last = self.start.last
        for index, item in enumerate(items):
            if identity(item, self.envelope.pagination) == last:
                return index
        return None

    def _answered(self, page: Any) -> int | None:
        """The size of a full page as the service answers now; None when this page is the last."""
        envelope = self.envelope
        items = len(envelope.items(page))
        if envelope.pagination.next_field is not None:
            return items if envelope.next_link(page) else None
        size = envelope.integer(page, envelope.pagination.size_field)
        if size is not None:
            return size
        return items if items >= (self.start.answered or 0) else None  # a shorter page may be the last

    def _resized(self, now: int | None) -> bool:
        answered = self.start.answered
        return now is not None and answered is not None and now != answered

    def _change(self, now: int | None) -> str:
        start = self.start
        if self._resized(now):
            return f"the service pages by {now} items, not {start.answered} as when the cursor was taken"
        where = "on its page, nor on the next one" if start.held else f"on page {start.page}"
        item = f"{self.envelope.pagination.identity} {start.last}"
        return f"the last item given ({item}) is no longer {where}: items were removed or moved"

    def _moved(self, changed: str) -> ListingMovedError:
        start = self.start
        message = f"{start.listing}: cannot resume at page {start.page}: {changed}"
        return ListingMovedError(message, page=start.page, changed=changed)
