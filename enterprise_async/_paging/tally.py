"""Completeness of a listing: checked, never assumed.

Only the service's own answer to a page past the last one (``past_last_status``/
``past_last_detail`` of the spec: Django REST framework's 404 "Invalid page.") ends a listing
early; any other failure of a later page, and a listing that ends short of the item or page count
its latest envelope promised, raises ``IncompleteListingError`` with the items received that the
caller was not given.
"""

from __future__ import annotations

import logging
from typing import Any

from attrs import define, field

from .._request.request import call_label
from .._response.error_detail import error_detail
from ..errors import APIStatusError, IncompleteListingError
from .envelope import Envelope

__all__ = ["ListingTally"]

logger = logging.getLogger("enterprise_async")


@define
class ListingTally:
    """What one walk through a listing received, and what its envelopes promised.

    Pages are counted in listing order from 1; the promise is the latest envelope's (a listing that
    shrinks while it is paged promises less on its later pages).
    """

    envelope: Envelope
    pages: int = 0
    items: int = 0
    expected_items: int | None = None
    expected_pages: int | None = None
    ended_by: APIStatusError | None = field(default=None)
    """The past-the-last-page answer that ended the listing, if one did."""
    listing: str = ""
    """The listing's operation (``catalogs.contents``), as its errors name it."""

    @property
    def name(self) -> str:
        """What the listing's errors call it: its operation, else its page model."""
        return self.listing or self.envelope.model

    def count(self, page: Any) -> None:
        """Add a page, and take its envelope's promise as the latest."""
        envelope, pagination = self.envelope, self.envelope.pagination
        self.pages += 1
        self.items += len(envelope.items(page))
        expected_items = envelope.integer(page, pagination.count_field)
        expected_pages = envelope.integer(page, pagination.pages_field)
        if expected_items is not None:
            self.expected_items = expected_items
        if expected_pages is not None:
            self.expected_pages = expected_pages

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

    def past_last(self, error: BaseException) -> bool:
        """Whether a page's failure ends the listing: the service's answer to a page past the last
        one, once every item and page the latest envelope promised has arrived (the pages before
        it are all counted by then). The same answer inside the promise is a failure."""
        pagination = self.envelope.pagination
        if not isinstance(error, APIStatusError) or error.status != pagination.past_last_status:
            return False
        expected = pagination.past_last_detail
        if expected is not None and error_detail(error.body) != expected:
            return False
        if self.short():
            return False
        logger.debug("a page past the last one (%s): the listing ends", error_detail(error.body))
        self.ended_by = error
        return True

    def failed(self, page: int, cause: BaseException) -> IncompleteListingError:
        """The error of a listing whose page ``page`` failed: ``catalogs.contents page 10 failed
        after 900 items of 5000: ServerError: ...`` (the page's own error, without its label)."""
        label = call_label(self.name, page)
        message = f"{label} failed after {self.items} items"
        if self.expected_items is not None:
            message += f" of {self.expected_items}"
        return self._incomplete(
            f"{message}: {type(cause).__name__}: {_without_label(str(cause), label)}", page
        )

    def ended_early(self) -> IncompleteListingError:
        """The error of a listing that ended short of its latest envelope's promise."""
        page = self.pages + 1
        message = f"{self.name} ended early, at page {page}: {self.promised()} arrived"
        return self._incomplete(message, page)

    def _incomplete(self, message: str, page: int) -> IncompleteListingError:
        return IncompleteListingError(
            message,
            page=page,
            received=self.items,
            expected_items=self.expected_items,
            expected_pages=self.expected_pages,
        )


def _without_label(message: str, label: str) -> str:
    """A page's error message without the ``catalogs.contents page 10: `` it starts with, which
    the listing's own message has just said."""
    prefix = f"{label}: "
    return message[len(prefix) :] if message.startswith(prefix) else message
