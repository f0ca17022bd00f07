"""A list operation's call made a pager: what ``client.catalogs.list()`` returns.

The call's arguments are checked when the pager is made, before any request. Each page the pager
asks for is the call's request with the page's query, sent through the client's send chain under
the listing's span and named by its page number in traces and logs; it is decoded only when the
pager takes its items (``Answer.steps``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any, Protocol

from .._decoding import Conversion
from .._paging import AsyncPager
from .._request.options import RequestOptions
from .._request.request import PreparedRequest, Query, prepare_request
from .._response.answer import Answer
from .._spec import Operation, Pagination
from .._transport.telemetry import Telemetry

__all__ = ["SendPage", "listing_pager"]


class SendPage(Protocol):
    """How the client sends one page of a listing and maps its answer's status (``BaseClient._answer``)."""

    def __call__(
        self, prepared: PreparedRequest, options: RequestOptions | None, *, page: int, parent_span: Any
    ) -> Awaitable[Answer]: ...


def listing_pager(
    operation: Operation[Any],
    arguments: Mapping[str, Any],
    options: RequestOptions | None,
    *,
    send: SendPage,
    conversion: Conversion,
    telemetry: Telemetry,
    window: int,
) -> AsyncPager[Any, Any]:
    """The pager of a list operation's call; ``window`` bounds the pages in flight."""
    pagination = operation.pagination
    if pagination is None:
        raise TypeError(f"{operation.name} is not a list operation")
    prepared = prepare_request(operation, arguments, conversion)
    listing = telemetry.listing(operation.name)

    def fetch(query: Query) -> Awaitable[Answer]:
        number = _page_number(pagination, query)
        return send(prepared.with_query(query), options, page=number, parent_span=listing.span)

    return AsyncPager(
        fetch,
        pagination,
        prepared.query,
        window=window,
        listing=operation.name,
        scope=prepared.path if options is None else _listing_scope(prepared.path, options),
        span=listing.walk,
    )


def _page_number(pagination: Pagination, query: Query) -> int:
    """The page a listing's query asks for (1 when it names none), as traces and logs show it."""
    value = dict(query).get(pagination.page_param) if query and pagination.page_param else None
    return int(value) if value is not None and value.isdigit() else 1


def _listing_scope(path: str, options: RequestOptions) -> str:
    """What ties a listing's cursors to its call besides its arguments: the path, and the query
    ``extra_query`` adds (another filter is another listing)."""
    extra = sorted((options.extra_query or {}).items(), key=str)
    return f"{path} {extra!r}" if extra else path
