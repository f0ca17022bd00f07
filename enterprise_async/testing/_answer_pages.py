"""A listing's answer, as the handlers send it: rows in order, the page asked for, and the
envelope the operation's pagination (or the service's ``envelope`` rule) describes.

One job: the paging every stateful listing shares (``PagedAnswers``); the handlers choose and
shape the rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._spec import Operation, Pagination
from ._call import Call
from ._pages import DEFAULT_PAGE_SIZES, PageSlice, page_envelope, page_links, requested_page
from ._registry import GENERATED_SPEC
from ._replies import Reply
from ._server_options import ServerOptions
from ._services import Services

__all__ = ["PagedAnswers", "service_envelope", "smallest", "sorted_nulls_last"]


class PagedAnswers:
    """The page sizes, envelopes and service rules a sandbox's listings answer by."""

    def __init__(self, options: ServerOptions, services: Services) -> None:
        sizes = dict(DEFAULT_PAGE_SIZES)
        sizes.update(options.page_sizes)
        self.sizes = sizes
        self.largest_pages = options.largest_pages
        self.services = services
        self.operations: Mapping[str, Operation[Any]] = GENERATED_SPEC.operations
        """The operations of the spec served (``Endpoints.routes`` sets them)."""
        self.envelopes: Mapping[str, tuple[str, ...]] = {}
        """The fields of each listing's envelope, in its schema's order."""

    def pagination(self, operation: str) -> Pagination:
        """How ``operation`` pages, as the spec served says (the items under ``results`` with
        ``count``/``next`` links, ``?page=N``, if it does not page)."""
        found = self.operations.get(operation)
        if found is None or found.pagination is None:
            return Pagination(page_model=dict, item_type=Any)
        return found.pagination

    def page(self, call: Call, operation: str, count: int, listing: str, size_param: str) -> PageSlice:
        """The page asked for, by the page and size parameters of ``operation``'s pagination
        (``size_param`` when the spec names none: the service accepts it all the same)."""
        pagination = self.pagination(operation)
        return requested_page(
            call.query,
            count,
            pagination=pagination,
            default_size=self.sizes[listing],
            size_param=pagination.size_param or size_param,
            page_param=pagination.page_param or "page",
            max_size=smallest(pagination.max_size, self.largest_pages.get(listing)),
            max_given=self.services.max_page_size(operation),
            fallback=self.services.page_size_fallback(operation),
        )

    def paged(
        self,
        call: Call,
        operation: str,
        page: PageSlice,
        items: list[Any],
        *,
        head: Mapping[str, Any] | None = None,
        **extra: Any,
    ) -> Reply:
        """A page of ``items`` in the envelope ``operation``'s pagination describes, with the
        operation's own fields ``head`` and ``extra`` (dropped from a bare list), in the order
        of the envelope's schema."""
        pagination = self.pagination(operation)
        links = page_links(
            page,
            origin=call.origin,
            path=call.path,
            query=list(call.query.items()),
            page_param=pagination.page_param or "page",
        )
        items = self.services.emitted(operation, items)  # the serializer's fields, no more
        envelope = self.services.rules(operation).get("envelope")
        if envelope is not None and pagination.items is not None:
            fields = {**(head or {}), **extra}
            return Reply(service_envelope(envelope, pagination.items, page, items, links, fields))
        body = page_envelope(
            pagination, items, count=page.count, pages=page.pages, size=page.size, links=links
        )
        if not isinstance(body, dict):
            return Reply(body)
        order = {name: rank for rank, name in enumerate(self.envelopes.get(operation, ()))}
        fields = {**(head or {}), **body, **extra}
        return Reply(dict(sorted(fields.items(), key=lambda field: order.get(field[0], len(order)))))


def service_envelope(
    envelope: Sequence[str],
    items_field: str,
    page: PageSlice,
    items: list[Any],
    links: tuple[str | None, str | None],
    extra: Mapping[str, Any],
) -> dict[str, Any]:
    """A page in the envelope a service writes (``x-sdk-service`` ``envelope``: its fields in
    order, e.g. edx-drf-extensions' DefaultPagination ``next, previous, count, num_pages,
    current_page, start, results``), and no other field."""
    values = {
        "next": links[0],
        "previous": links[1],
        "count": page.count,
        "num_pages": page.pages,
        "current_page": page.number,
        "start": page.start,
        items_field: items,
        **extra,
    }
    return {name: values[name] for name in envelope if name in values}


def smallest(*sizes: int | None) -> int | None:
    given = [size for size in sizes if size is not None]
    return min(given) if given else None


def sorted_nulls_last(rows: list[Any], key: Callable[[Any], Any], *, descending: bool) -> list[Any]:
    """Rows sorted by ``key``, those whose key is None last, as DRF's ordering leaves them."""
    present = [row for row in rows if key(row) is not None]
    missing = [row for row in rows if key(row) is None]
    return sorted(present, key=key, reverse=descending) + missing
