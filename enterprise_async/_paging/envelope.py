"""How the pager reads a page: the fields the spec names (``x-sdk-pagination``, carried by
:class:`~enterprise_async._spec.Pagination`), whatever the envelope's shape.

``{count, next, results}``, ``{page, per_page, total, total_pages, data}`` and bare lists are all
read here, by name, so the plans, the window and the tally know no envelope.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar, cast
from urllib.parse import parse_qsl, urlsplit

from attrs import frozen

from .._decoding.fields import field_plans
from .._request.request import Query
from .._response.answer import Answer
from .._spec import Pagination
from ..errors import ResponseDecodeError

__all__ = ["Envelope", "Page", "PageFetcher", "QueryOf", "link_query"]

ItemT_co = TypeVar("ItemT_co", covariant=True)


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


PageFetcher = Callable[[Query], Awaitable[Answer]]
"""Fetches one page for a query, retrying as the client does, and gives its answer, a success;
raises the client's typed errors (a page past the last one: the status error the spec's
``past_last_status`` names). Decoding waits for the pager: it refills its window first, so that
decoding a page never holds back the request of the next one."""

QueryOf = Callable[[int], Query]
"""The query of page ``n`` (from 1)."""


@frozen
class Envelope:
    """One listing's pages, read through the field names its spec gives."""

    pagination: Pagination

    @property
    def model(self) -> str:
        return self.pagination.page_model.__name__

    def items(self, page: Any) -> Sequence[Any]:
        """The items of one page, from the field the spec names (the page itself for a bare list)."""
        name = self.pagination.items
        items = page if name is None else getattr(page, name, None)
        return cast("Sequence[Any]", items or ())

    def trimmed(self, page: Any, skip: int) -> Any:
        """A copy of ``page`` holding only its items after the first ``skip`` (the other fields
        as sent): the page a listing resumed in its middle starts with."""
        name = self.pagination.items
        items = list(self.items(page))[skip:]
        if name is None:
            return items
        trimmed = copy.copy(page)
        setattr(trimmed, name, items)
        return trimmed

    def next_link(self, page: Any) -> str | None:
        """The page's ``next`` link, None when it has none (or the envelope carries no links)."""
        name = self.pagination.next_field
        link = getattr(page, name, None) if name else None
        return link if isinstance(link, str) and link else None

    @staticmethod
    def integer(page: Any, name: str | None) -> int | None:
        """An integer field of the envelope (a count, a page size), None when absent or no integer."""
        value = getattr(page, name, None) if name else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def requested_size(self, query: Query) -> int | None:
        """The page size a query asks for, if it does."""
        name = self.pagination.size_param
        value = dict(query).get(name, "") if name else ""
        return int(value) if value.isdigit() else None

    def decoded(self, data: Any, query: Query, where: str | None = None) -> Any:
        """The page a decoder gave (``data``), in its envelope even where the endpoint answered
        without it; ``where``: the method and URL of its answer, for an error to name."""
        pagination = self.pagination
        if isinstance(data, list) and pagination.items is not None:
            # an endpoint that answered without the envelope it usually sends
            fields: dict[str, Any] = {pagination.items: data}
            if pagination.count_field:
                fields[pagination.count_field] = len(data)
            for plan in field_plans(pagination.page_model):  # no envelope, so no link: None
                if plan.required and plan.nullable and plan.name not in fields:
                    fields[plan.name] = None
            data = pagination.page_model(**fields)
        self._check(data, query, where)
        return data

    def _check(self, page: Any, query: Query, where: str | None) -> None:
        """Refuse a page the pager cannot follow, rather than yield the characters of a string as
        items or stop early at a link that is not one. (Other fields keep what was sent.)"""
        pagination = self.pagination
        items = page if pagination.items is None else getattr(page, pagination.items, None)
        if items is not None and not isinstance(items, (list, tuple)):
            raise ResponseDecodeError(
                f"{self._where(query, where)}: {pagination.items or 'the page'} must be a list, "
                f"got {type(items).__name__}: {items!r:.80}"
            )
        link = getattr(page, pagination.next_field, None) if pagination.next_field else None
        if link is not None and not isinstance(link, str):
            raise ResponseDecodeError(
                f"{self._where(query, where)}: {pagination.next_field} must be a link or null, "
                f"got {type(link).__name__}: {link!r:.80}"
            )

    def _where(self, query: Query, where: str | None) -> str:
        """The page, as an error names it: its answer's method and URL, else its query's names
        (never their values, which may carry a learner's e-mail)."""
        if where is not None:
            return f"{self.model} of {where}"
        names = ", ".join(name for name, _ in query)
        return f"{self.model} page ({names or 'first'})"


def link_query(link: str | None) -> Query | None:
    """The query of a ``next`` link (only its query is ever followed); None for no link."""
    if not link:
        return None
    return tuple(parse_qsl(urlsplit(link).query, keep_blank_values=True))
