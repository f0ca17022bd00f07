"""Pagination as the API's servers do it: ``?page=N`` numbering, a page size from the query or a
per-endpoint default, 404 for a page beyond the end, ``next``/``previous`` links that name the
request's own host, or another one (``next_host``) as back-ends behind a gateway do, and the
envelope around a page, as the operation's ``x-sdk-pagination`` describes it (``page_envelope``:
the one place the stateful handlers and the synthesized answers write it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final
from urllib.parse import urlencode

from attrs import frozen

from .._spec import Pagination
from ._replies import ApiError, not_found

__all__ = [
    "DEFAULT_PAGE_SIZES",
    "LISTINGS",
    "PREVIOUS_FIELD",
    "PageSlice",
    "page_envelope",
    "page_links",
    "requested_page",
]

DEFAULT_PAGE_SIZES: Final[Mapping[str, int]] = {
    "policies": 10,
    "assignments": 10,
    "subscriptions": 5,
    "catalogs": 10,
    "contents": 10,
    "learner_summary": 25,
}
"""Page size of each listing when the request sets none (catalogs and their contents: the 10 of
enterprise-catalog's Django REST framework settings, the ``default`` of their ``page_size`` in the
spec)."""

LISTINGS: Final[Mapping[str, str]] = {
    "policies": "policies.list",
    "assignments": "assignments.list",
    "subscriptions": "subscriptions.list",
    "catalogs": "catalogs.list",
    "contents": "catalogs.contents",
    "learner_summary": "learner_summary.list",
}
"""The operation of each listing named in ``DEFAULT_PAGE_SIZES``."""

PREVIOUS_FIELD: Final = "previous"
"""Envelope field of the previous page's link, written beside ``next_field`` (links come in pairs,
as Django REST framework writes them; an envelope without a next link has no previous one)."""

Query = Sequence[tuple[str, str]]


@frozen
class PageSlice:
    """Page ``number`` (from 1) of ``size`` items out of ``count``."""

    number: int
    size: int
    count: int

    @property
    def pages(self) -> int:
        """Number of pages; an empty listing still has its (empty) page 1."""
        return max(1, math.ceil(self.count / self.size))

    @property
    def start(self) -> int:
        return (self.number - 1) * self.size

    @property
    def end(self) -> int:
        return min(self.count, self.start + self.size)

    @property
    def has_next(self) -> bool:
        return self.number < self.pages

    @property
    def has_previous(self) -> bool:
        return self.number > 1


def requested_page(
    query: Mapping[str, str],
    count: int,
    *,
    pagination: Pagination,
    default_size: int,
    size_param: str,
    page_param: str = "page",
    max_size: int | None = None,
    max_given: int | None = None,
    fallback: bool = False,
) -> PageSlice:
    """The page a request asks for; beyond the end, the answer the spec's ``x-sdk-past-last-page``
    names (Django REST framework's 404 "Invalid page."); 400 for a bad size. A size beyond
    ``max_size`` is brought down to it, as Django REST framework's ``max_page_size`` does; so is a
    size the query gives beyond ``max_given`` (a service whose ``max_page_size`` is below its
    default size, which DRF applies only to a size asked for). With
    ``fallback``, a size that is not a positive integer means ``default_size``, as DRF's
    ``get_page_size`` reads it."""
    given = query.get(size_param)
    if fallback and given is not None and not (given.isdigit() and int(given) > 0):
        given = None
    size = _size(given, size_param, default_size)
    if given is not None and max_given is not None:
        size = min(size, max_given)
    if max_size is not None:
        size = min(size, max_size)
    text = query.get(page_param, "1")
    number = int(text) if text.isdigit() else 0
    page = PageSlice(number=number, size=size, count=count)
    if number < 1 or number > page.pages:
        raise past_last_page(pagination)
    return page


def past_last_page(pagination: Pagination) -> ApiError:
    """The answer to a page number past the last page, as the spec describes it (a 404 with no
    detail when the spec names no status: Django REST framework's NotFound all the same)."""
    status = pagination.past_last_status or 404
    if pagination.past_last_detail is None:
        return not_found() if status == 404 else ApiError(status, {})
    return ApiError(status, {"detail": pagination.past_last_detail})


def _size(text: str | None, name: str, default: int) -> int:
    if text is None:
        return default
    if not text.isdigit() or int(text) < 1:
        raise ApiError(400, {name: [f"Ensure {name} is a positive integer."]})
    return int(text)


def page_links(
    page: PageSlice, *, origin: str, path: str, query: Query, page_param: str = "page"
) -> tuple[str | None, str | None]:
    """The ``next`` and ``previous`` links of a page (page 1's link carries no page number, as DRF
    writes it)."""
    following = _link(origin, path, query, page_param, page.number + 1) if page.has_next else None
    preceding = _link(origin, path, query, page_param, page.number - 1) if page.has_previous else None
    return following, preceding


def page_envelope(
    pagination: Pagination,
    items: list[Any],
    *,
    count: int,
    pages: int,
    size: int,
    links: tuple[str | None, str | None],
) -> Any:
    """A page of ``items`` as ``pagination`` describes its envelope: the items, the next (and
    previous) link, the count, the page count and the page size, each under the field the spec
    names, and no field the spec leaves out; a bare list when the spec says ``items: null``."""
    if pagination.items is None:
        return items
    following, preceding = links
    fields = {
        pagination.next_field: following,
        PREVIOUS_FIELD if pagination.next_field is not None else None: preceding,
        pagination.count_field: count,
        pagination.pages_field: pages,
        pagination.size_field: size,
        pagination.items: items,
    }
    return {name: value for name, value in fields.items() if name is not None}


def _link(origin: str, path: str, query: Query, page_param: str, number: int) -> str:
    pairs = [(name, value) for name, value in query if name != page_param]
    if number > 1:
        pairs.append((page_param, str(number)))
    text = urlencode(pairs)
    return f"{origin}{path}?{text}" if text else f"{origin}{path}"
