"""Page plans: how the pages after the start page are asked for.

When the pages can be numbered (the start page's ``next`` link says ``page=N+1`` or
``offset=M``, or the envelope has no links and the spec names the page or offset parameter), a
:class:`NumberedPlan` gives any page's query, so the window can request several at once. The page
count comes from the envelope (a page count, or a total and a page size); without one, pages are
requested until one comes back short, empty or past the last page. Where pages cannot be
numbered, there is no plan: the pages are followed one by one through ``next``.

A plan's :meth:`~NumberedPlan.after` tells, for each page, the query of the one that follows
(``next_page_info`` in anthropic-sdk-python's words), which is what a cursor records.
"""

from __future__ import annotations

import math
from typing import Any

from attrs import frozen

from .._request.request import Query, merge_query
from .._response.answer import Answer
from .cursor import ListingCursor, PageStep
from .envelope import Envelope, QueryOf, link_query

__all__ = ["NumberedPlan", "plan_by_link", "plan_without_links"]


@frozen
class NumberedPlan:
    """Pages numbered by the spec's page or offset parameter: page ``n``'s query, the page size
    the numbering implies, and the page count (None: unknown, request until a short page)."""

    envelope: Envelope
    query_of: QueryOf
    size: int
    total: int | None
    linked: bool
    """Whether the envelopes carry ``next`` links (then a page's own link tells what follows it)."""

    def after(self, page: Any, number: int) -> Query | str | None:
        """What follows page ``number``: its ``next`` link as sent, or the query the numbering
        gives; None when it is the last page."""
        if self.linked:
            return self.envelope.next_link(page)
        short = len(self.envelope.items(page)) < self.size
        last = short if self.total is None else number >= self.total
        return None if last else self.query_of(number + 1)

    def step(self, page: Any, number: int, answer: Answer) -> PageStep[Any]:
        """Page ``number`` of this plan, as a step of the walk."""
        return PageStep(
            page, number, self.query_of(number), self.after(page, number), self.size, answer=answer
        )


def plan_by_link(envelope: Envelope, first: Any, start: ListingCursor) -> NumberedPlan | None:
    """The plan the start page's ``next`` link implies, when the link numbers pages by the spec's
    page or offset parameter and the envelope tells how many pages there are."""
    link = link_query(envelope.next_link(first)) or ()
    numbering = _numbering(envelope, link, len(envelope.items(first)), start)
    if numbering is None:
        return None
    query_of, size = numbering
    total = _total_pages(envelope, first, size)
    return None if total is None else NumberedPlan(envelope, query_of, size, total, linked=True)


def _numbering(
    envelope: Envelope, link: Query, first_size: int, start: ListingCursor
) -> tuple[QueryOf, int] | None:
    """From the link after the start page: a function giving page ``n``'s query, and the page
    size it implies."""
    names = dict(link)
    page_param, offset_param = envelope.pagination.page_param, envelope.pagination.offset_param
    if page_param and names.get(page_param) == str(start.page + 1):
        return (lambda n: merge_query(link, {page_param: str(n)})), first_size
    offset = names.get(offset_param, "") if offset_param else ""
    current = dict(start.query).get(offset_param, "") if offset_param else ""
    at = int(current) if current.isdigit() else 0
    if offset_param and offset.isdigit() and int(offset) > at:
        step, following, first_offset = int(offset) - at, start.page + 1, int(offset)
        return (lambda n: merge_query(link, {offset_param: str(first_offset + (n - following) * step)})), step
    return None


def plan_without_links(
    envelope: Envelope, first: Any, start: ListingCursor, query: Query
) -> NumberedPlan | None:
    """Numbering by the spec's page or offset parameter, for envelopes that carry no link; the
    page count when the envelope tells it, else None (request until a short page). A resumed
    listing numbers its pages by the size its cursor recorded. None when the start page is the
    last one, or the spec names no parameter to number by."""
    if start.size is None:
        size = _linkless_page_size(envelope, first, query)
    else:
        size = start.size if len(envelope.items(first)) >= start.size else None
    if size is None:
        return None  # the start page is short: it is the last one
    page_param, offset_param = envelope.pagination.page_param, envelope.pagination.offset_param
    if page_param:
        query_of: QueryOf = lambda n: merge_query(query, {page_param: str(n)})  # noqa: E731
    elif offset_param:
        query_of = lambda n: merge_query(query, {offset_param: str((n - 1) * size)})  # noqa: E731
    else:
        return None
    return NumberedPlan(envelope, query_of, size, _total_pages(envelope, first, size), linked=False)


def _linkless_page_size(envelope: Envelope, first: Any, query: Query) -> int | None:
    """The size of a full page, None when page 1 is the only one. A page 1 shorter than asked
    for, whose count says more follow, gave the server's own maximum."""
    pagination = envelope.pagination
    first_size = len(envelope.items(first))
    size = envelope.integer(first, pagination.size_field) or envelope.requested_size(query)
    size = size or first_size
    if first_size >= size:
        return size
    count = envelope.integer(first, pagination.count_field)
    return None if count is None or count <= first_size else first_size


def _total_pages(envelope: Envelope, first: Any, page_size: int | None) -> int | None:
    pagination = envelope.pagination
    pages = envelope.integer(first, pagination.pages_field)
    if pages is not None:
        return pages
    count = envelope.integer(first, pagination.count_field)
    size = envelope.integer(first, pagination.size_field) or page_size
    if count is None or not size:
        return None
    return math.ceil(count / size)
