"""Fetching a listing's pages from its start cursor, handed over in listing order.

The start page is fetched alone; what it says picks the plan for the rest (``plans``). A numbered
plan's pages are requested concurrently, at most ``width`` ahead of the consumer, so
memory holds only the pages in flight. A page's answer is decoded when the consumer reaches it,
once the request that refills the window has gone out (with a window of more than one page):
decoding, the client's main cost in CPU, never keeps a connection idle. Pages that cannot be
numbered are followed one by one through ``next``; a ``next`` link is only ever read for its
query string: requests always go to the client's ``base_url`` and the operation's own path.
"""

from __future__ import annotations

import asyncio
import logging
import types
from collections import deque
from collections.abc import AsyncGenerator, Generator, Sequence
from contextlib import aclosing
from typing import Any

from attrs import frozen

from .._request.request import Query
from .._response.answer import Answer
from ..errors import IncompleteListingError, ResponseDecodeError
from .cursor import ListingCursor, PageStep
from .envelope import Envelope, PageFetcher, link_query
from .plans import NumberedPlan, plan_by_link, plan_without_links
from .tally import ListingTally

__all__ = ["Window"]

logger = logging.getLogger("enterprise_async")

Pending = deque[tuple[int, "asyncio.Task[Answer]"]]
"""The pages requested and not yet handed over: their numbers and requests, in listing order."""


@types.coroutine
def _turn() -> Generator[None, None, None]:
    """Give the event loop one turn: ``asyncio.sleep(0)``, without the coroutine around it."""
    yield


@frozen
class Window:
    """One listing's page requests: ``width`` at most in flight, each page decoded through
    ``envelope`` and counted, by the walk's caller, in a ``ListingTally``."""

    fetch: PageFetcher
    envelope: Envelope
    width: int
    unreadable: bool = False
    """Whether a page one of whose items cannot be read is read item by item, an
    ``UnreadableItem`` in place of each such item (``AsyncPager.with_unreadable``), rather than
    ending the listing."""

    async def page(self, query: Query, number: int = 1) -> tuple[Any, Answer]:
        """Page ``number``, decoded as soon as it arrives, with its answer."""
        return await self._decoded(await self.fetch(query), query, number)

    async def _decoded(self, answer: Answer, query: Query, number: int) -> tuple[Any, Answer]:
        """Page ``number``, which ``answer`` holds, checked, with the answer. It is decoded in steps,
        the event loop getting a turn between two of them (and before the first: the request that
        refills the window goes out, and a page that arrived earlier waits no longer than one step)."""
        steps = answer.steps(number if self.unreadable else None)
        while True:
            await _turn()
            try:
                next(steps)
            except StopIteration as done:
                return self.envelope.decoded(done.value, query, answer.response.where), answer

    async def walk(
        self, tally: ListingTally, start: ListingCursor, query: Query
    ) -> AsyncGenerator[PageStep[Any], None]:
        """The pages from the start cursor's, in order, by whichever plan that page allows (``query``:
        the call's own, which numbers the pages of a listing without links)."""
        number = start.page
        try:
            page, answer = await self.page(start.query, number)
        except ResponseDecodeError as error:
            if error.item is None:
                raise  # nothing of the page was read: the error as it is
            raise tally.failed(number, error) from error
        if self.envelope.pagination.next_field is None:
            async with aclosing(self._without_links(tally, start, page, answer, query)) as linkless:
                async for step in linkless:
                    yield step
            return
        link = self.envelope.next_link(page) if self.envelope.items(page) else None
        yield PageStep(page, number, start.query, link, answer=answer)
        if link is None:
            return
        plan = plan_by_link(self.envelope, page, start)
        if plan is not None:
            async with aclosing(self.numbered(tally, plan, number + 1)) as later:
                async for step in later:
                    page, number = step.page, step.number
                    yield step
            if not self.envelope.next_link(page) or tally.ended_by is not None:
                return
        async with aclosing(self.linked(tally, page, number)) as rest:
            async for step in rest:
                yield step

    async def _without_links(
        self, tally: ListingTally, start: ListingCursor, page: Any, answer: Answer, query: Query
    ) -> AsyncGenerator[PageStep[Any], None]:
        """A listing whose envelopes carry no link: numbered pages after ``page``, when it is full."""
        number = start.page
        plan = plan_without_links(self.envelope, page, start, query) if self.envelope.items(page) else None
        if plan is None:
            yield PageStep(page, number, start.query, None, answer=answer)
            return
        after = plan.after(page, number)
        yield PageStep(page, number, start.query, after, plan.size, answer=answer)
        if after is None:
            return
        first = self.envelope.items(page)
        async with aclosing(self.numbered(tally, plan, number + 1, first)) as later:
            async for step in later:
                yield step

    async def numbered(
        self, tally: ListingTally, plan: NumberedPlan, number: int, first: Sequence[Any] = ()
    ) -> AsyncGenerator[PageStep[Any], None]:
        """Pages ``number``..``plan.total``, requested up to ``width`` ahead, yielded in order.

        With the total unknown, pages are requested until one is short, empty, past the last page
        or a repeat of the page before (``first``'s items, then each page's: a server that ignores
        the page parameter); the requests made beyond it are cancelled or discarded. A page that
        fails otherwise ends the walk with ``IncompleteListingError``, holding the items of the
        pages already requested after it.
        """
        pending: Pending = deque()
        total, previous = plan.total, first

        def fill() -> bool:
            nonlocal number
            started = number
            while (total is None or number <= total) and len(pending) < self.width:
                pending.append((number, asyncio.ensure_future(self.fetch(plan.query_of(number)))))
                number += 1
            return number > started

        try:
            while (total is None or number <= total) or pending:
                fill()
                current, task = pending.popleft()
                try:
                    answer = await task
                    # The window stays full while the consumer holds this page. With the page
                    # count known and more than one page in flight, the refilling request goes
                    # out before this page is decoded (decoding gives the loop a turn first), so
                    # decoding never keeps a connection idle; read one page at a time, the next
                    # request is made once the page is decoded and goes out when the consumer
                    # waits, so a consumer that stops within this page has asked for no page after it.
                    if total is not None and self.width > 1:
                        fill()
                    page, _ = await self._decoded(answer, plan.query_of(current), current)
                    if total is not None:
                        fill()
                except Exception as error:  # a middleware's own too; not CancelledError
                    if tally.past_last(error):
                        return
                    raise await self._failed(tally, current, error, pending, plan) from error
                items = self.envelope.items(page)
                if total is None and (not items or items == previous):
                    return
                yield plan.step(page, current, answer)
                if total is None and len(items) < plan.size:
                    return
                previous = items if total is None else ()
        finally:
            await _cancel(pending)

    async def _failed(
        self, tally: ListingTally, number: int, error: Exception, pending: Pending, plan: NumberedPlan
    ) -> IncompleteListingError:
        """The error of a failed page, holding the items of the pages requested after it that
        arrive (they are awaited, not cancelled: nothing received is dropped)."""
        later: list[Any] = []
        later_pages: list[int] = []
        while pending:
            after, task = pending.popleft()
            try:
                page, _ = await self._decoded(await task, plan.query_of(after), after)
            except Exception:
                continue
            later.extend(self.envelope.items(page))
            later_pages.append(after)
        incomplete = tally.failed(number, error)
        incomplete.items.extend(later)
        incomplete.item_pages = (*incomplete.item_pages, *later_pages)
        incomplete.received += len(later)
        return incomplete

    async def linked(
        self, tally: ListingTally, page: Any, number: int
    ) -> AsyncGenerator[PageStep[Any], None]:
        """The pages after ``page`` (page ``number``), following ``next`` one at a time."""
        seen: set[Query] = set()
        while link := self.envelope.next_link(page):
            query = link_query(link) or ()
            if query in seen:
                logger.warning("a next link repeats an earlier page (%s); stopping the listing", query)
                return
            seen.add(query)
            try:
                page, answer = await self.page(query, number + 1)
            except Exception as error:  # a middleware's own too; not CancelledError
                if tally.past_last(error):
                    return
                raise tally.failed(tally.pages + 1, error) from error
            number += 1
            yield PageStep(page, number, query, self.envelope.next_link(page), answer=answer)


async def _cancel(pending: Pending) -> None:
    """Cancel the requests still in flight, and wait until they are gone."""
    for _, task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*(task for _, task in pending), return_exceptions=True)
