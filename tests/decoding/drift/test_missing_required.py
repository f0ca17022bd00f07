"""An answer that lacks a field the spec calls required is an error, in a listing too, and the
drift report counts it as its own kind (``missing_required``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from enterprise_async import IncompleteListingError, ResponseDecodeError
from enterprise_async.models import Catalog
from enterprise_async.testing import Sandbox

CUSTOMER = "4f2ad1b8-9c6e-4c1a-8f0e-3b7d2e5a9c11"


def catalog(number: int) -> dict[str, Any]:
    return {
        "uuid": f"00000000-0000-4000-8000-{number:012d}",
        "title": f"C{number}",
        "enterprise_customer": CUSTOMER,
    }


def page(
    items: list[dict[str, Any]], count: int | None = None, next_page: int | None = None
) -> dict[str, Any]:
    link = f"http://testserver/enterprise/v2/enterprise-catalogs?page={next_page}" if next_page else None
    return {"count": len(items) if count is None else count, "next": link, "previous": None, "results": items}


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=0) as running:
        yield running


@pytest.mark.parametrize("response_format", ["json", "xml"])
async def test_an_item_without_its_identity_ends_the_listing_naming_page_and_item(
    sandbox: Sandbox, response_format: str
) -> None:
    lacking = {"title": "No uuid", "enterprise_customer": CUSTOMER}
    sandbox.canned.add(
        "catalogs.list",
        page([catalog(1), catalog(2)], count=5, next_page=2),
        page([catalog(3), lacking, catalog(5)], count=5),
    )
    async with sandbox.client(response_format=response_format, max_concurrency=1) as client:
        received: list[Catalog] = []

        async def read() -> None:
            async for item in client.catalogs.list():
                received.append(item)

        with pytest.raises(IncompleteListingError) as raised:
            await read()
        report = client.drift()
    error = raised.value
    assert [item.uuid for item in received] == [catalog(1)["uuid"], catalog(2)["uuid"]]
    assert (error.page, error.item) == (2, 1)
    assert [item.uuid for item in error.items] == [catalog(3)["uuid"]]  # the item before it is given
    assert "item 1" in str(error)
    assert "Catalog.uuid is required and was left out" in str(error)
    cause = error.__cause__
    assert isinstance(cause, ResponseDecodeError)
    assert "results[1]" in str(cause)
    (entry,) = report.of_kind("missing_required")
    assert (entry.model, entry.field, entry.count, entry.sent) == ("Catalog", "uuid", 1, ("absent",))
    assert entry.example == "catalogs.list > results[1].uuid"


async def test_a_single_answer_sent_null_where_null_is_not_allowed_raises(sandbox: Sandbox) -> None:
    sandbox.canned.add("catalogs.list", page([{**catalog(1), "title": None}]))
    async with sandbox.client() as client:
        with pytest.raises(IncompleteListingError) as raised:
            await client.catalogs.list().to_list()
        (entry,) = client.drift().of_kind("missing_required")
    assert raised.value.page == 1
    assert raised.value.items == []
    assert "Catalog.title is required and was sent as null" in str(raised.value.__cause__)
    assert entry.sent == ("null",)
