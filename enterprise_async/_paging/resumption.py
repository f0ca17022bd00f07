"""What a resume checks: that the refetched page still holds the position its cursor names.

A cursor records the identity of the last item given (``x-sdk-identity-field`` of the item
schema) and the size of a full page as the service answered it. A resume reads the page again
and finds that item there: when items before it were removed or inserted, the listing continues
right after it, wherever it now stands; when it cannot be found, or the service now pages by
another size that leaves the position unknown, ``ListingMovedError`` says what changed. No item
is lost or repeated silently.

A cursor taken at a page boundary names the page after the last one given; its ``held`` query
names the page that holds the last item given, which is read again first: an item removed before
the cursor moves an item not yet given onto that page, and an item inserted moves the last item
given onto the next one.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from attrs import frozen

from ..errors import ListingMovedError
from .cursor import ListingCursor
from .envelope import Envelope
from .plans import PageStep
from .position import identity, mark
from .window import Window

__all__ = ["Resumption"]

logger = logging.getLogger("enterprise_async")


@frozen
class Resumption:
    """The checks of one listing resumed from ``start``."""

    envelope: Envelope
    start: ListingCursor

    @property
    def _field(self) -> str | None:
        return self.envelope.pagination.identity

    async def held(self, window: Window) -> tuple[PageStep[Any] | None, bool]:
        """For a cursor at a page boundary: the page that held the last item given, read again,
        as a step whose items after that item are still to give (None when none are), and
        whether the item was found there."""
        start = self.start
        if start.skip or start.held is None or start.held == start.query:
            return None, False
        if start.last is None:
            return None, await self._unchanged(window, start.held)
        page, answer = await window.page(start.held)
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

    async def _unchanged(self, window: Window, held: Any) -> bool:
        """For a cursor whose last item given has no identity, at a page boundary: whether the
        page that held it, read again, still holds the items given (None recorded: nothing to
        check). Raises ``ListingMovedError`` when it does not: positions cannot be trusted."""
        start = self.start
        if start.mark is None:
            return False
        page, _ = await window.page(held)
        items = self.envelope.items(page)
        if mark(items) != start.mark:
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
        item = f"{self._field} {start.last}"
        return f"the last item given ({item}) is no longer {where}: items were removed or moved"

    def _moved(self, changed: str) -> ListingMovedError:
        start = self.start
        message = f"{start.listing}: cannot resume at page {start.page}: {changed}"
        return ListingMovedError(message, page=start.page, changed=changed)
