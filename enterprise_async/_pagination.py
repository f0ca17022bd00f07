"""``AsyncPager``: every list call's result, iterating items in server order over concurrent pages.

The pager knows no envelope: it reads the fields the spec names (``x-sdk-pagination``, carried by
:class:`~enterprise_async._spec.Pagination`) by name, so ``{count, next, results}``,
``{page, per_page, total, total_pages, data}`` and bare lists page alike.

Page 1 is fetched alone. When the pages can be numbered (page 2's ``next`` link says ``page=2`` or
``offset=N``, or the envelope has no links and the spec names the page or offset parameter), the
remaining pages are requested concurrently, at most ``window`` ahead of the consumer, so memory
holds only the pages in flight. A page's answer is decoded when the consumer reaches it, once
the request that refills the window has gone out (with a window of more than one page):
decoding, the client's main cost in CPU, never keeps a connection idle. The count of pages
comes from the envelope (a page count, or a total and a page size); without one, pages are
requested until one comes back short, empty or past the last page. Where pages cannot be
numbered they are followed one by one through ``next``. A ``next`` link is only ever read for its
query string: requests always go to the client's ``base_url`` and the operation's own path.

Completeness is checked, never assumed (``ListingTally``). Only the service's own answer to a page
past the last one (``past_last_status``/``past_last_detail`` of the spec: Django REST framework's
404 "Invalid page.") ends a listing early; any other failure of a later page, and a listing that
ends short of the item or page count its latest envelope promised, raises
``IncompleteListingError`` with the items received that the caller was not given.

Every walk starts from a ``ListingCursor`` (page 1 unless the pager was ``resume``d) and keeps the
pager's ``cursor`` one item ahead of what the caller was given: the page that follows (the query
its plan or its ``next`` link gives) and how many of its items were given already. A listing
resumed in the middle of a page fetches that page again and gives only the items after the cursor.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import math
import operator
from collections import deque
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterator,
    Sequence,
)
from contextlib import AbstractContextManager, aclosing, nullcontext
from typing import Any, Generic, Protocol, TypeVar, cast
from urllib.parse import parse_qsl, urlsplit

import attrs
from attrs import define, field
from typing_extensions import TypeVar as DefaultTypeVar

from ._collector import full_collections_deferred
from ._cursor import ListingCursor, listing_arguments
from ._request import Query, merge_query
from ._responses import error_detail
from ._spec import Pagination
from .errors import (
    APIStatusError,
    ClientValidationError,
    EnterpriseError,
    IncompleteListingError,
    ResponseDecodeError,
)

__all__ = ["AsyncPager", "ListingCursor", "Page", "take"]

logger = logging.getLogger("enterprise_async")

ItemT_co = TypeVar("ItemT_co", covariant=True)
ItemT = TypeVar("ItemT")


class Page(Protocol[ItemT_co]):
    """The shape of the API's usual envelope (``count/next/previous/results``).

    Only a convenience for annotations: the pager itself reads whichever fields the spec names, so
    envelopes of other shapes (and bare lists) page just as well.
    """

    @property
    def results(self) -> Sequence[ItemT_co]: ...

    @property
    def count(self) -> int | None: ...

    @property
    def next(self) -> str | None: ...

    @property
    def previous(self) -> str | None: ...


PageT = DefaultTypeVar("PageT", default=Any)

PageDecoder = Callable[[], Any]
"""Decodes a page whose answer has arrived; raises the client's typed errors (``ResponseDecodeError``)."""

PageFetcher = Callable[[Query], Awaitable[PageDecoder]]
"""Fetches one page for a query, retrying as the client does, and gives its decoder; raises the
client's typed errors (a page past the last one: the status error the spec's ``past_last_status``
names). Decoding waits for the pager: it refills its window first, so that decoding a page never
holds back the request of the next one."""

QueryOf = Callable[[int], Query]
"""The query of page ``n`` (from 1)."""


@define
class ListingTally:
    """What one walk through a listing received, and what its envelopes promised.

    Pages are counted in listing order from 1; the promise is the latest envelope's (a listing that
    shrinks while it is paged promises less on its later pages).
    """

    pages: int = 0
    items: int = 0
    expected_items: int | None = None
    expected_pages: int | None = None
    ended_by: APIStatusError | None = field(default=None)
    """The past-the-last-page answer that ended the listing, if one did."""

    def short(self) -> bool:
        """Whether fewer items or pages arrived than the latest envelope promised."""
        few_items = self.expected_items is not None and self.items < self.expected_items
        few_pages = self.expected_pages is not None and self.pages < self.expected_pages
        return few_items or few_pages

    def promised(self) -> str:
        """The promise, in words: ``20 of 100 items``."""
        if self.expected_items is not None:
            return f"{self.items} of {self.expected_items} items"
        return f"{self.pages} of {self.expected_pages} pages ({self.items} items)"


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


@define
class Position(Generic[PageT]):
    """Where an iteration stands: in ``step``'s page (None: before the first), whose items not yet
    given are what ``rest`` (an iterator over them) still holds. Nothing is counted per item: the
    iterator knows how many remain."""

    step: PageStep[PageT] | None = None
    rest: Iterator[Any] = field(factory=lambda: iter(()))
    finished: bool = False

    def given(self, page_items: int) -> int:
        return page_items - operator.length_hint(self.rest, 0)


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
    ) -> None:
        self._fetch = fetch
        self._span = span
        """Held over each walk and ``first_page()``: the listing's OpenTelemetry span."""
        self._pagination = pagination
        self._query = query
        self._window = max(1, window)
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
        if position is None:
            return self._start
        cursor = self._start if position.step is None else self._cursor_in(position.step, position)
        return attrs.evolve(cursor, done=True) if position.finished and not cursor.done else cursor

    def _cursor_in(self, step: PageStep[PageT], position: Position[PageT]) -> ListingCursor:
        """The cursor inside a step's page: within it, or past it once every item was given."""
        size = len(self.items_of(step.page))
        given = position.given(size)
        return self._within(step, given) if given < size else self._after(step)

    def _begin(self) -> Position[PageT]:
        """A new iteration's position (the cursor follows the latest iteration)."""
        self._delegate = None
        position: Position[PageT] = Position()
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

    def _with(self, query: Query, start: ListingCursor | None) -> AsyncPager[ItemT, PageT]:
        return AsyncPager(
            self._fetch,
            self._pagination,
            query,
            window=self._window,
            listing=self._listing,
            scope=self._scope,
            start=start,
            span=self._span,
        )

    @property
    def _resumed(self) -> bool:
        start = self._start
        return start.page > 1 or start.skip > 0 or start.done

    def __aiter__(self) -> AsyncIterator[ItemT]:
        return self._items()

    async def _items(self) -> AsyncGenerator[ItemT, None]:
        position = self._begin()
        skip = self._start.skip
        async with aclosing(self._steps()) as steps:
            async for step in steps:
                items = self.items_of(step.page)
                rest = iter(items[skip:] if skip else items)
                position.step, position.rest = step, rest
                for item in rest:  # the iterator moves past an item before it is given
                    yield item
                skip = 0
        position.finished = True

    def items_of(self, page: PageT) -> Sequence[ItemT]:
        """The items of one page, from the field the spec names (the page itself for a bare list)."""
        field = self._pagination.items
        items = page if field is None else getattr(page, field, None)
        return cast("Sequence[ItemT]", items or ())

    async def first_page(self) -> PageT:
        """Page 1 alone."""
        with self._span():
            return await self._page(self._query)

    async def to_list(
        self, *, page_size: int | None = None, defer_full_collections: bool = True
    ) -> list[ItemT]:
        """Every item of the listing, in server order, read in the largest pages the service
        allows unless the call or ``page_size`` sets another size (see :meth:`bulk`).

        While it gathers, the garbage collector's full passes wait (its young generations are
        collected as usual): they would walk every item held, again and again as the list grows,
        and free none of them. The collector is the process's, so ``defer_full_collections=False``
        leaves it alone (see ``enterprise_async._collector``).

        Raises ``IncompleteListingError`` (whose ``items`` are then every item received) when the
        listing could not be read to its end.
        """
        received: list[ItemT] = []
        pager = self.bulk(page_size)
        self._begin()
        if pager is not self:
            self._delegate = pager
        try:
            with full_collections_deferred() if defer_full_collections else nullcontext():
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
            if self._resumed or self._requested_size() is not None or pagination.bulk_size is None:
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
        position = self._begin()
        skip = self._start.skip
        async with aclosing(self._steps()) as steps:
            async for step in steps:
                page = self._without_given(step.page, skip) if skip else step.page
                skip = 0
                position.step, position.rest = step, iter(())
                yield page
        position.finished = True

    async def _steps(self) -> AsyncGenerator[PageStep[PageT], None]:
        """The walk from the start cursor, counted (the tally starts with the pages and items
        before the cursor, so a resumed listing is checked against its count all the same)."""
        start = self._start
        if start.done:
            return
        tally = ListingTally(pages=start.page - 1, items=start.before)
        with self._span():
            async with aclosing(self._walk(tally, start)) as walk:
                async for step in walk:
                    step.before = tally.items
                    self._count(tally, step.page)
                    yield step
            if tally.short():
                raise self._incomplete(tally, tally.pages + 1, "ended early")

    def _within(self, step: PageStep[PageT], given: int) -> ListingCursor:
        """The cursor after ``given`` items of a step's page."""
        return ListingCursor(
            self._listing,
            self._arguments,
            page=step.number,
            query=step.query,
            skip=given,
            before=step.before,
            size=step.size,
        )

    def _after(self, step: PageStep[PageT]) -> ListingCursor:
        """The cursor once a step's page is given whole: the page after it, or the end."""
        return ListingCursor(
            self._listing,
            self._arguments,
            page=step.number + 1,
            query=(_link_query(step.after) if isinstance(step.after, str) else step.after) or (),
            before=step.before + len(self.items_of(step.page)),
            size=step.size,
            done=step.after is None,
        )

    def _without_given(self, page: PageT, skip: int) -> PageT:
        """A copy of ``page`` holding only its items after the first ``skip``."""
        field = self._pagination.items
        items = list(self.items_of(page))[skip:]
        if field is None:
            return cast("PageT", items)
        trimmed = copy.copy(page)
        setattr(trimmed, field, items)
        return trimmed

    async def _walk(self, tally: ListingTally, start: ListingCursor) -> AsyncGenerator[PageStep[PageT], None]:
        """The pages from the start cursor's, in order, by whichever plan that page allows."""
        number = start.page
        page = await self._page(start.query)
        if self._pagination.next_field is None:
            async with aclosing(self._without_links(tally, start, page)) as linkless:
                async for step in linkless:
                    yield step
            return
        link = self._next(page) if self.items_of(page) else None
        yield PageStep(page, number, start.query, link)
        if link is None:
            return
        linked = self._plan_from_link(page, start)
        if linked is not None:
            total, query_of, size = linked
            later_pages = self._concurrent(tally, total, query_of, size, number + 1, self._linked_after)
            async with aclosing(later_pages) as later:
                async for step in later:
                    page, number = step.page, step.number
                    yield step
            if not self._next(page) or tally.ended_by is not None:
                return
        async with aclosing(self._sequential(tally, page, number)) as rest:
            async for step in rest:
                yield step

    async def _without_links(
        self, tally: ListingTally, start: ListingCursor, page: PageT
    ) -> AsyncGenerator[PageStep[PageT], None]:
        """A listing whose envelopes carry no link: numbered pages after ``page``, when it is full."""
        number = start.page
        plan = self._plan_without_links(page, start) if self.items_of(page) else None
        if plan is None:
            yield PageStep(page, number, start.query, None)
            return
        total, query_of, size = plan

        def after_of(page: PageT, number: int) -> Query | str | None:
            last = len(self.items_of(page)) < size if total is None else number >= total
            return None if last else query_of(number + 1)

        yield PageStep(page, number, start.query, after_of(page, number), size)
        if after_of(page, number) is None:
            return
        first = self.items_of(page)
        later_pages = self._concurrent(tally, total, query_of, size, number + 1, after_of, first)
        async with aclosing(later_pages) as later:
            async for step in later:
                yield step

    def _linked_after(self, page: PageT, number: int) -> Query | str | None:
        return self._next(page)

    def _count(self, tally: ListingTally, page: PageT) -> None:
        """Add a page to the tally, and take its envelope's promise as the latest."""
        tally.pages += 1
        tally.items += len(self.items_of(page))
        expected_items = self._envelope_int(page, self._pagination.count_field)
        expected_pages = self._envelope_int(page, self._pagination.pages_field)
        if expected_items is not None:
            tally.expected_items = expected_items
        if expected_pages is not None:
            tally.expected_pages = expected_pages

    async def _page(self, query: Query) -> PageT:
        return self._decoded(await self._fetch(query), query)

    def _decoded(self, decode: PageDecoder, query: Query) -> PageT:
        data = decode()
        pagination = self._pagination
        if isinstance(data, list) and pagination.items is not None:
            # an endpoint that answered without the envelope it usually sends
            fields: dict[str, Any] = {pagination.items: data}
            if pagination.count_field:
                fields[pagination.count_field] = len(data)
            data = pagination.page_model(**fields)
        self._check_envelope(data, query)
        return cast("PageT", data)

    def _check_envelope(self, page: Any, query: Query) -> None:
        """Refuse a page the pager cannot follow, rather than yield the characters of a string as
        items or stop early at a link that is not one. (Other fields keep what was sent.)"""
        pagination = self._pagination
        items = page if pagination.items is None else getattr(page, pagination.items, None)
        if items is not None and not isinstance(items, (list, tuple)):
            raise ResponseDecodeError(
                f"{self._where(query)}: {pagination.items or 'the page'} must be a list, "
                f"got {type(items).__name__}: {items!r:.80}"
            )
        link = getattr(page, pagination.next_field, None) if pagination.next_field else None
        if link is not None and not isinstance(link, str):
            raise ResponseDecodeError(
                f"{self._where(query)}: {pagination.next_field} must be a link or null, "
                f"got {type(link).__name__}: {link!r:.80}"
            )

    def _where(self, query: Query) -> str:
        shown = "&".join(f"{name}={value}" for name, value in query)
        return f"{self._pagination.page_model.__name__} page ({shown or 'first'})"

    def _next(self, page: PageT) -> str | None:
        name = self._pagination.next_field
        link = getattr(page, name, None) if name else None
        return link if isinstance(link, str) and link else None

    # ------------------------------------------------------------------ planning

    def _plan_from_link(self, first: PageT, start: ListingCursor) -> tuple[int | None, QueryOf, int] | None:
        """Page count and numbering from the next page's link, when the link numbers pages by the
        spec's page or offset parameter and the envelope tells how many pages there are."""
        link = _link_query(self._next(first)) or ()
        numbering = self._numbering(link, len(self.items_of(first)), start)
        if numbering is None:
            return None
        query_of, size = numbering
        total = self._total_pages(first, size)
        return None if total is None else (total, query_of, size)

    def _numbering(self, link: Query, first_size: int, start: ListingCursor) -> tuple[QueryOf, int] | None:
        """From the link after the start page: a function giving page ``n``'s query, and the page
        size it implies."""
        names = dict(link)
        page_param, offset_param = self._pagination.page_param, self._pagination.offset_param
        if page_param and names.get(page_param) == str(start.page + 1):
            return (lambda n: merge_query(link, {page_param: str(n)})), first_size
        offset = names.get(offset_param, "") if offset_param else ""
        current = dict(start.query).get(offset_param, "") if offset_param else ""
        at = int(current) if current.isdigit() else 0
        if offset_param and offset.isdigit() and int(offset) > at:
            step, following, first_offset = int(offset) - at, start.page + 1, int(offset)
            return (
                lambda n: merge_query(link, {offset_param: str(first_offset + (n - following) * step)})
            ), step
        return None

    def _plan_without_links(
        self, first: PageT, start: ListingCursor
    ) -> tuple[int | None, QueryOf, int] | None:
        """Numbering by the spec's page or offset parameter, for envelopes that carry no link; the
        page count when the envelope tells it, else None (request until a short page). A resumed
        listing numbers its pages by the size its cursor recorded."""
        if start.size is None:
            size = self._linkless_page_size(first)
        else:
            size = start.size if len(self.items_of(first)) >= start.size else None
        if size is None:
            return None  # the start page is short: it is the last one
        page_param, offset_param = self._pagination.page_param, self._pagination.offset_param
        query = self._query
        if page_param:
            query_of: QueryOf = lambda n: merge_query(query, {page_param: str(n)})  # noqa: E731
        elif offset_param:
            query_of = lambda n: merge_query(query, {offset_param: str((n - 1) * size)})  # noqa: E731
        else:
            return None
        return self._total_pages(first, size), query_of, size

    def _linkless_page_size(self, first: PageT) -> int | None:
        """The size of a full page, None when page 1 is the only one. A page 1 shorter than asked
        for, whose count says more follow, gave the server's own maximum."""
        first_size = len(self.items_of(first))
        size = self._envelope_int(first, self._pagination.size_field) or self._requested_size()
        size = size or first_size
        if first_size >= size:
            return size
        count = self._envelope_int(first, self._pagination.count_field)
        return None if count is None or count <= first_size else first_size

    def _requested_size(self) -> int | None:
        name = self._pagination.size_param
        value = dict(self._query).get(name, "") if name else ""
        return int(value) if value.isdigit() else None

    def _total_pages(self, first: PageT, page_size: int | None) -> int | None:
        pages = self._envelope_int(first, self._pagination.pages_field)
        if pages is not None:
            return pages
        count = self._envelope_int(first, self._pagination.count_field)
        size = self._envelope_int(first, self._pagination.size_field) or page_size
        if count is None or not size:
            return None
        return math.ceil(count / size)

    @staticmethod
    def _envelope_int(page: Any, name: str | None) -> int | None:
        value = getattr(page, name, None) if name else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    # ------------------------------------------------------------------ fetching

    async def _concurrent(
        self,
        tally: ListingTally,
        total: int | None,
        query_of: QueryOf,
        size: int,
        number: int,
        after_of: Callable[[PageT, int], Query | str | None],
        first: Sequence[ItemT] = (),
    ) -> AsyncGenerator[PageStep[PageT], None]:
        """Pages ``number``..total, requested up to ``window`` ahead, yielded in order.

        With ``total`` unknown, pages are requested until one is short, empty, past the last page
        or a repeat of the page before (a server that ignores the page parameter); the requests
        made beyond it are cancelled or discarded. A page that fails otherwise ends the walk with
        ``IncompleteListingError``, holding the items of the pages already requested after it.
        """
        pending: deque[tuple[int, asyncio.Task[PageDecoder]]] = deque()
        previous = first

        def fill() -> bool:
            nonlocal number
            started = number
            while (total is None or number <= total) and len(pending) < self._window:
                pending.append((number, asyncio.ensure_future(self._fetch(query_of(number)))))
                number += 1
            return number > started

        try:
            while (total is None or number <= total) or pending:
                fill()
                current, task = pending.popleft()
                try:
                    decode = await task
                    # The window stays full while the consumer holds this page. With the page
                    # count known and more than one page in flight, the refilling request goes
                    # out before this page is decoded, so decoding never keeps a connection idle;
                    # read one page at a time, the next request waits until the consumer does,
                    # so a consumer that stops within this page has asked for no page after it.
                    if total is not None and fill() and self._window > 1:
                        await asyncio.sleep(0)
                    page = self._decoded(decode, query_of(current))
                except EnterpriseError as error:
                    if self._past_last(error, tally):
                        return
                    raise await self._failed(tally, current, error, pending, query_of) from error
                items = self.items_of(page)
                if total is None and (not items or items == previous):
                    return
                yield PageStep(page, current, query_of(current), after_of(page, current), size)
                if total is None and len(items) < size:
                    return
                previous = items if total is None else ()
        finally:
            for _, task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*(task for _, task in pending), return_exceptions=True)

    async def _sequential(
        self, tally: ListingTally, page: PageT, number: int
    ) -> AsyncGenerator[PageStep[PageT], None]:
        """The pages after ``page`` (page ``number``), following ``next`` one at a time."""
        seen: set[Query] = set()
        while link := self._next(page):
            query = tuple(parse_qsl(urlsplit(link).query, keep_blank_values=True))
            if query in seen:
                logger.warning("a next link repeats an earlier page (%s); stopping the listing", query)
                return
            seen.add(query)
            try:
                page = await self._page(query)
            except EnterpriseError as error:
                if self._past_last(error, tally):
                    return
                raise self._incomplete(tally, tally.pages + 1, "failed", error) from error
            number += 1
            yield PageStep(page, number, query, self._next(page))

    # ------------------------------------------------------------------ completeness

    def _past_last(self, error: EnterpriseError, tally: ListingTally) -> bool:
        """Whether a page's failure ends the listing: the service's answer to a page past the last
        one, once every item and page the latest envelope promised has arrived (the pages before
        it are all counted by then). The same answer inside the promise is a failure."""
        pagination = self._pagination
        if not isinstance(error, APIStatusError) or error.status != pagination.past_last_status:
            return False
        expected = pagination.past_last_detail
        if expected is not None and error_detail(error.body) != expected:
            return False
        if tally.short():
            return False
        logger.debug("a page past the last one (%s): the listing ends", error_detail(error.body))
        tally.ended_by = error
        return True

    async def _failed(
        self,
        tally: ListingTally,
        number: int,
        error: EnterpriseError,
        pending: deque[tuple[int, asyncio.Task[PageDecoder]]],
        query_of: QueryOf,
    ) -> IncompleteListingError:
        """The error of a failed page, holding the items of the pages requested after it that
        arrive (they are awaited, not cancelled: nothing received is dropped)."""
        later: list[ItemT] = []
        later_pages: list[int] = []
        while pending:
            after, task = pending.popleft()
            try:
                page = self._decoded(await task, query_of(after))
            except EnterpriseError:
                continue
            later.extend(self.items_of(page))
            later_pages.append(after)
        incomplete = self._incomplete(tally, number, "failed", error)
        incomplete.items[:] = later
        incomplete.item_pages = tuple(later_pages)
        incomplete.received += len(later)
        return incomplete

    def _incomplete(
        self, tally: ListingTally, page: int, what: str, cause: BaseException | None = None
    ) -> IncompleteListingError:
        model = self._pagination.page_model.__name__
        if what == "failed":
            message = f"{model} listing: page {page} failed after {tally.items} items"
            if tally.expected_items is not None:
                message += f" of {tally.expected_items}"
        else:
            message = f"{model} listing ended early, at page {page}: {tally.promised()} arrived"
        if cause is not None:
            message += f": {type(cause).__name__}: {cause}"
        return IncompleteListingError(
            message,
            page=page,
            received=tally.items,
            expected_items=tally.expected_items,
            expected_pages=tally.expected_pages,
        )


def _link_query(link: str | None) -> Query | None:
    """The query of a ``next`` link (only its query is ever followed); None for no link."""
    if not link:
        return None
    return tuple(parse_qsl(urlsplit(link).query, keep_blank_values=True))


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
