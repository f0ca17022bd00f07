"""Any exception while a listing fetches a page after the first, a middleware's own included,
arrives as ``IncompleteListingError`` with the exception as its ``__cause__``; a cancellation
stays a cancellation."""

from __future__ import annotations

import pytest

from enterprise_async import IncompleteListingError, OutgoingRequest, RawResponse, Send
from tests.conftest import ScriptedAPI
from tests.paging.test_pagination import CATALOGS, catalogs, serve_pages


class AuditDownError(Exception):
    """A middleware's own failure."""


async def audit(request: OutgoingRequest, send: Send) -> RawResponse:
    if "page=2" in str(request.url):
        raise AuditDownError("the audit log is unreachable")
    return await send(request)


async def test_a_middleware_exception_on_a_later_page_arrives_as_an_incomplete_listing(
    api: ScriptedAPI,
) -> None:
    serve_pages(api, CATALOGS, catalogs(30), size=10)
    async with api.client(middleware=[audit], max_concurrency=1) as client:
        with pytest.raises(IncompleteListingError) as raised:
            await client.catalogs.list(page_size=10).to_list()
    assert isinstance(raised.value.__cause__, AuditDownError)
    assert (raised.value.page, len(raised.value.items)) == (2, 10)
