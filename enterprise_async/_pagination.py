"""``AsyncPager``: every list call's result, iterating items in server order over concurrent pages.

Page 1 is fetched alone. When it tells how many pages there are (a page count in the envelope, or
``count`` and the size of a full page) and how its ``next`` link numbers them (``page=2`` or
``offset=N``), the remaining pages are requested concurrently, at most ``window`` ahead of the
consumer, so memory holds only the pages in flight. Otherwise pages are followed one by one
through ``next``. A ``next`` link is only ever read for its query string: requests always go to
the client's ``base_url`` and the operation's own path.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any, Generic, Protocol, TypeVar
from urllib.parse import parse_qsl, urlsplit

from typing_extensions import TypeVar as DefaultTypeVar

from ._request import Query, merge_query
from ._spec import Pagination
from .errors import NotFoundError

__all__ = ["AsyncPager", "Page"]

logger = logging.getLogger("enterprise_async")

ItemT_co = TypeVar("ItemT_co", covariant=True)
ItemT = TypeVar("ItemT")


class Page(Protocol[ItemT_co]):
    """What every page envelope has; concrete envelopes carry more (``learner_state_counts``...)."""

    @property
    def results(self) -> Sequence[ItemT_co]: ...

    @property
    def count(self) -> int | None: ...

    @property
    def next(self) -> str | None: ...

    @property
    def previous(self) -> str | None: ...


PageT = DefaultTypeVar("PageT", bound=Page[Any], default=Page[Any])

PageFetcher = Callable[[Query], Awaitable[Any]]
"""Fetches and decodes one page for a query; raises ``NotFoundError`` for a page beyond the end."""


class AsyncPager(Generic[ItemT, PageT]):
    """The result of a list call: ``async for`` gives the items; ``pages()``, ``to_list()`` and
    ``first_page()`` give the rest.

    Nothing is requested until it is iterated or awaited; every iteration starts from page 1.
    """

    def __init__(self, fetch: PageFetcher, pagination: Pagination, query: Query, *, window: int) -> None:
        self._fetch = fetch
        self._pagination = pagination
        self._query = query
        self._window = max(1, window)

    def __repr__(self) -> str:
        return f"AsyncPager({self._pagination.page_model.__name__}, window={self._window})"

    def __aiter__(self) -> AsyncIterator[ItemT]:
        return self._items()

    async def _items(self) -> AsyncGenerator[ItemT, None]:
        async with aclosing(self.pages()) as pages:
            async for page in pages:
                for item in page.results:
                    yield item

    async def first_page(self) -> PageT:
        """Page 1 alone."""
        return await self._page(self._query)

    async def to_list(self) -> list[ItemT]:
        """Every item of the listing, in server order."""
        return [item async for item in self]

    async def pages(self) -> AsyncGenerator[PageT, None]:
        """Every page, in order; later pages fetched concurrently where the listing allows it."""
        page = await self._page(self._query)
        yield page
        if not page.next or not page.results:
            return
        plan = self._plan(page)
        if plan is not None:
            async with aclosing(self._concurrent(*plan)) as later:
                async for page in later:
                    yield page
            if not page.next:
                return
        async with aclosing(self._sequential(page)) as rest:
            async for page in rest:
                yield page

    async def _page(self, query: Query) -> PageT:
        data = await self._fetch(query)
        if isinstance(data, list):  # an endpoint that answered without an envelope
            data = self._pagination.page_model(**{self._pagination.items: data, "count": len(data)})
        return data  # type: ignore[no-any-return]

    def _plan(self, first: PageT) -> tuple[int, Callable[[int], Query]] | None:
        """How many pages there are and the query of page ``n``, if page 1 tells both."""
        assert first.next is not None
        link = tuple(parse_qsl(urlsplit(first.next).query, keep_blank_values=True))
        numbering = self._numbering(link, len(first.results))
        total = self._total_pages(first, numbering[1] if numbering else None)
        if numbering is None or total is None:
            return None
        return total, numbering[0]

    def _numbering(self, link: Query, first_size: int) -> tuple[Callable[[int], Query], int] | None:
        """From page 2's link: a function giving page ``n``'s query, and the page size it implies."""
        names = dict(link)
        page_param = self._pagination.page_param
        if page_param and names.get(page_param) == "2":
            return (lambda n: merge_query(link, {page_param: str(n)})), first_size
        offset = names.get("offset", "")
        if offset.isdigit() and int(offset) > 0:
            step = int(offset)
            return (lambda n: merge_query(link, {"offset": str((n - 1) * step)})), step
        return None

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

    async def _concurrent(self, total: int, query_of: Callable[[int], Query]) -> AsyncGenerator[PageT, None]:
        """Pages 2..total, requested up to ``window`` ahead, yielded in order."""
        pending: deque[asyncio.Task[PageT]] = deque()
        number = 2
        try:
            while number <= total or pending:
                while number <= total and len(pending) < self._window:
                    pending.append(asyncio.ensure_future(self._page(query_of(number))))
                    number += 1
                try:
                    page = await pending.popleft()
                except NotFoundError:
                    logger.debug("page beyond the end of a listing that shrank; stopping")
                    return
                yield page
        finally:
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)

    async def _sequential(self, page: PageT) -> AsyncGenerator[PageT, None]:
        """The pages after ``page``, following ``next`` one at a time."""
        seen: set[Query] = set()
        while page.next:
            query = tuple(parse_qsl(urlsplit(page.next).query, keep_blank_values=True))
            if query in seen:
                logger.warning("a next link repeats an earlier page (%s); stopping the listing", query)
                return
            seen.add(query)
            try:
                page = await self._page(query)
            except NotFoundError:
                return
            yield page
