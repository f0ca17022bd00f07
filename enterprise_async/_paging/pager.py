"""``AsyncPager``: every list call's result, iterating items in server order over concurrent pages.

What the user holds: iteration, ``to_list``, ``first_page``, ``pages``, ``bulk`` and the cursor.
The rest is delegated: a page's envelope is read by the names the spec gives (``envelope``),
the pages after the start page are planned (``plans``) and fetched in order within a bounded
window (``window``), the walk is counted against what the envelopes promised (``tally``), and
where an iteration stands becomes a ``ListingCursor``, and a resume is checked (``cursor``).

Every walk starts from a ``ListingCursor`` (page 1 unless the pager was ``resume``d) and keeps the
pager's ``cursor`` one item ahead of what the caller was given: the page that follows (the query
its plan or its ``next`` link gives) and how many of its items were given already. A listing
resumed in the middle of a page fetches that page again and gives only the items after the cursor.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable, Sequence
from contextlib import AbstractContextManager, aclosing, nullcontext
from typing import Any, Generic, TypeVar, cast

from .._request.request import Query, merge_query
from .._response.answer import Answer
from .._response.item_reading import ListingPage, UnreadableItem
from .._spec import Pagination
from ..errors import ClientValidationError, IncompleteListingError
from .cursor import ListingCursor, PageStep, PageT, Position, Resumption, listing_arguments
from .envelope import Envelope, Page, PageFetcher
from .tally import ListingTally
from .window import Window

__all__ = ["AsyncPager", "ListingCursor", "Page", "take"]

ItemT = TypeVar("ItemT")


class AsyncPager(Generic[ItemT, PageT]):
    """The result of a list call: ``async for`` gives the items; ``pages()``, ``to_list()`` and
    ``first_page()`` give the rest.

    ``PageT`` is whatever the spec's envelope decodes to (or ``list[ItemT]`` for a bare list).
    Nothing is requested until it is iterated or awaited; every iteration starts from page 1, or
    from the cursor the pager was made with (``resume``). ``cursor`` tells where the latest
    iteration stands.
    """

    def __init__(
        self,
        fetch: PageFetcher,
        pagination: Pagination,
        query: Query,
        *,
        window: int,
        listing: str = "",
        scope: str = "",
        start: ListingCursor | None = None,
        span: Callable[[], AbstractContextManager[object]] = nullcontext,
        unreadable: bool = False,
    ) -> None:
        self._fetch = fetch
        self._unreadable = unreadable
        """Whether the listing goes on past the items it cannot read (``with_unreadable``)."""
        self._span = span
        """Held over each walk and ``first_page()``: the listing's OpenTelemetry span."""
        self._pagination = pagination
        self._envelope = Envelope(pagination)
        self._query = query
        self._window = max(1, window)
        self._pages = Window(fetch, self._envelope, self._window, unreadable)
        self._listing = listing or pagination.page_model.__name__
        self._scope = scope
        # The cursor's digest of the arguments, the start cursor and the position are made when a
        # walk or a cursor needs them: ``first_page()`` needs none of them.
        self._digest: str | None = None
        if start is not None:
            start.check(self._listing, self._arguments)
        self._start_cursor = start
        self._position: Position[PageT] | None = None
        self._delegate: AsyncPager[ItemT, PageT] | None = None
        """The pager ``to_list()`` read through, when not this one (``bulk``)."""

    @property
    def _arguments(self) -> str:
        """The digest that ties this listing's cursors to its call (``listing_arguments``)."""
        if self._digest is None:
            pagination = self._pagination
            driven = (pagination.page_param, pagination.offset_param)
            self._digest = listing_arguments(self._scope, self._query, driven)
        return self._digest

    @property
    def _start(self) -> ListingCursor:
        """Where every iteration starts: the cursor this pager was resumed from, else page 1."""
        if self._start_cursor is None:
            self._start_cursor = ListingCursor(self._listing, self._arguments, query=self._query)
        return self._start_cursor

    def __repr__(self) -> str:
        return f"AsyncPager({self._pagination.page_model.__name__}, window={self._window})"

    @property
    def cursor(self) -> ListingCursor:
        """Where the latest iteration stands: resuming from it gives the items after the last one
        given (by ``async for``, ``to_list()`` or ``pages()``), each exactly once. Before any
        iteration, where this pager starts. Store it with ``str()``/``to_json()``."""
        if self._delegate is not None:
            return self._delegate.cursor
        position = self._position
        return self._start if position is None else position.cursor(self._envelope)

    def _begin(self) -> Position[PageT]:
        """A new iteration's position (the cursor follows the latest iteration)."""
        self._delegate = None
        position: Position[PageT] = Position(self._start)
        self._position = position
        return position

    def resume(self, cursor: ListingCursor | str) -> AsyncPager[ItemT, PageT]:
        """This listing from ``cursor`` (a ``ListingCursor`` or its JSON text) on: the page it names
        is fetched again and only its items after the cursor are given; later pages are fetched as
        usual (concurrently where the listing allows it).

        Raises ``ListingCursorError`` at once for text that is no cursor, or a cursor of another
        listing (another operation, other arguments, another page size). The cursor of a
        ``to_list()`` (read in the largest pages, see ``bulk``) resumes the same way.
        """
        start = cursor if isinstance(cursor, ListingCursor) else ListingCursor.from_json(cursor)
        bulk = self.bulk()
        if bulk is not self and (start.listing, start.arguments) == (bulk._listing, bulk._arguments):
            return bulk._with(bulk._query, start)  # a cursor that ``to_list()`` left
        return self._with(self._query, start)

    def _with(
        self, query: Query, start: ListingCursor | None, *, unreadable: bool | None = None
    ) -> AsyncPager[ItemT, PageT]:
        return AsyncPager(
            self._fetch,
            self._pagination,
            query,
            window=self._window,
            listing=self._listing,
            scope=self._scope,
            start=start,
            span=self._span,
            unreadable=self._unreadable if unreadable is None else unreadable,
        )

    def with_unreadable(self) -> AsyncPager[ItemT | UnreadableItem, ListingPage[ItemT, PageT]]:
        """This listing, going on past the items it cannot read: each item that breaks a promise
        of the spec (a required field left out) is given in its place as an ``UnreadableItem``,
        holding the item as the service sent it (``raw``), why it could not be read (``error``, a
        ``ResponseDecodeError``), its page and its place in the page. Nothing is skipped:
        iteration, ``to_list()``, ``resume()`` and cursors count every item the service sent,
        readable or not, and ``pages()`` gives a ``ListingPage`` per page (every item, and the
        envelope as decoded holding the readable ones). The drift report counts each broken
        promise (``missing_required``, by model and field). Without it, such an item ends the
        listing with ``IncompleteListingError`` naming it and holding the items before it.
        """
        pager = self._with(self._query, self._start_cursor, unreadable=True)
        return cast("AsyncPager[ItemT | UnreadableItem, ListingPage[ItemT, PageT]]", pager)

    def _listed(self, page: Any, number: int) -> PageT:
        """A page as this pager gives it: as decoded, or, going on past unreadable items, as a
        ``ListingPage`` whose envelope holds the readable items only."""
        if not self._unreadable:
            return cast("PageT", page)
        items = list(self._envelope.items(page))
        readable = [item for item in items if not isinstance(item, UnreadableItem)]
        name = self._pagination.items
        envelope: Any = readable
        if name is not None:
            envelope = copy.copy(page)
            setattr(envelope, name, readable)
        return cast("PageT", ListingPage(number, items, envelope))

    @property
    def _resumed(self) -> bool:
        start = self._start
        return start.page > 1 or start.skip > 0 or start.done

    def __aiter__(self) -> AsyncIterator[ItemT]:
        return self._items()

    async def _items(self) -> AsyncGenerator[ItemT, None]:
        position = self._begin()
        async with aclosing(self._steps()) as steps:
            async for step in steps:
                items = self.items_of(step.page)
                rest = iter(items[step.skip :] if step.skip else items)
                position.step, position.rest = step, rest
                for item in rest:  # the iterator moves past an item before it is given
                    yield item
        position.finished = True

    def items_of(self, page: PageT) -> Sequence[ItemT]:
        """The items of one page, from the field the spec names (the page itself for a bare list;
        a ``ListingPage``'s ``items``)."""
        if isinstance(page, ListingPage):
            return cast("Sequence[ItemT]", page.items)
        return cast("Sequence[ItemT]", self._envelope.items(page))

    async def first_page(self) -> PageT:
        """Page 1 alone."""
        page, _ = await self.first_page_answered()
        return page

    async def first_page_answered(self) -> tuple[PageT, Answer]:
        """Page 1 alone, with its answer (what a raw listing gives)."""
        with self._span():
            page, answer = await self._pages.page(self._query)
            return self._listed(page, 1), answer

    async def to_list(self, *, page_size: int | None = None) -> list[ItemT]:
        """Every item of the listing, in server order, read in the largest pages the service
        allows unless the call or ``page_size`` sets another size (see :meth:`bulk`).

        Raises ``IncompleteListingError`` (whose ``items`` are then every item received) when the
        listing could not be read to its end.
        """
        received: list[ItemT] = []
        pager = self.bulk(page_size)
        self._begin()
        if pager is not self:
            self._delegate = pager
        try:
            async for item in pager:
                received.append(item)
        except IncompleteListingError as error:
            given = tuple(range(self._start.page, error.page))
            error.items[:0] = received
            error.item_pages = given + error.item_pages
            raise
        return received

    def bulk(self, page_size: int | None = None) -> AsyncPager[ItemT, PageT]:
        """This listing in pages of ``page_size``; when None, in the pages the call asked for, or
        else the largest the service allows (``bulk_size`` of the spec's pagination): a whole
        listing in as few requests as the service permits. Exports read catalogs this way.

        Raises ``ClientValidationError`` for a size the service would not apply. A resumed pager
        keeps the size its cursor was taken with (another one would number other pages: refused
        with ``ListingCursorError``).
        """
        pagination = self._pagination
        size_param = pagination.size_param
        if size_param is None:
            if page_size is not None:
                raise ClientValidationError("page_size", "this listing takes no page size")
            return self
        if page_size is None:
            if (
                self._resumed
                or self._envelope.requested_size(self._query) is not None
                or pagination.bulk_size is None
            ):
                return self
            page_size = pagination.bulk_size
        _check_page_size(pagination, page_size)
        query = merge_query(self._query, {size_param: str(page_size)})
        return self._with(query, self._start if self._resumed else None)

    async def pages(self) -> AsyncGenerator[PageT, None]:
        """Every page, in order; later pages fetched concurrently where the listing allows it.

        From a cursor taken in the middle of a page, that page comes first holding only the items
        after the cursor (a copy of its envelope; the other fields as sent).

        Raises ``IncompleteListingError`` when a page after the first fails or the listing ends
        short of what its envelopes promised; a failure of page 1 raises as it is.
        """
        async with aclosing(self.pages_answered()) as pages:
            async for page, _ in pages:
                yield page

    async def pages_answered(self) -> AsyncGenerator[tuple[PageT, Answer], None]:
        """``pages()``, each page with its answer (what a raw listing gives)."""
        position = self._begin()
        async with aclosing(self._steps()) as steps:
            async for step in steps:
                page = self._envelope.trimmed(step.page, step.skip) if step.skip else step.page
                position.step, position.rest = step, iter(())
                yield self._listed(page, step.number), step.answer
        position.finished = True

    async def _steps(self) -> AsyncGenerator[PageStep[PageT], None]:
        """The walk from the start cursor, counted (the tally starts with the pages and items
        before the cursor, so a resumed listing is checked against its count all the same).

        A resumed listing first finds its position again (``Resumption``): the page that held
        the last item given comes first when items not yet given moved onto it, and the start
        page's items given already are skipped by where that item now stands."""
        start = self._start
        if start.done:
            return
        check = Resumption(self._envelope, start)
        tally = ListingTally(self._envelope, pages=start.page - 1, items=start.before, listing=self._listing)
        with self._span():
            held, found = await check.held(self._pages.page) if self._resumed else (None, False)
            if held is not None:
                yield held  # its items were counted in the cursor's ``before``
            first = self._resumed
            async with aclosing(self._pages.walk(tally, start, self._query)) as walk:
                async for step in walk:
                    if first:
                        step.skip, first = check.skip(step.page, found), False
                    step.before = tally.items
                    tally.count(step.page)
                    yield step
            if tally.short():
                raise tally.ended_early()


def _check_page_size(pagination: Pagination, page_size: int) -> None:
    name = pagination.size_param or "page_size"
    if isinstance(page_size, bool) or not isinstance(page_size, int) or page_size < 1:
        raise ClientValidationError(name, f"must be a positive integer, got {page_size!r}")
    if pagination.max_size is not None and page_size > pagination.max_size:
        raise ClientValidationError(name, f"must be <= {pagination.max_size}, got {page_size}")


async def take(items: AsyncIterable[ItemT], limit: int | None) -> AsyncGenerator[ItemT, None]:
    """At most ``limit`` items (all when None). Stopping early closes the listing at once, so the
    pages it was fetching ahead are cancelled rather than left to the garbage collector."""
    iterator = items.__aiter__()
    try:
        seen = 0
        async for item in iterator:
            yield item
            seen += 1
            if limit is not None and seen >= limit:
                return
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()
