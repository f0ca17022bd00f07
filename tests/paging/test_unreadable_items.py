"""A listing that goes on past the items it cannot read (``with_unreadable()``): every item the
service sent arrives in its place, an ``UnreadableItem`` (the item as sent, its typed error, its
page and place) for each one that breaks a promise of the spec, through iteration, ``to_list()``,
``pages()``, cursors and XML alike; by default such an item still ends the listing, naming it."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from typing import Any

import pytest

from enterprise_async import (
    EnterpriseClient,
    IncompleteListingError,
    ListingPage,
    ResponseDecodeError,
    UnreadableItem,
)
from enterprise_async.models import CatalogContentsPage, ContentItem, to_dict
from enterprise_async.testing import Sandbox

PAGE = 10
BROKEN = {13: "key", 31: "key"}
"""Places of the catalog whose item is served without a field its type requires."""


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=0) as running:
        yield running


async def break_items(sandbox: Sandbox, client: EnterpriseClient) -> tuple[str, list[dict[str, Any]]]:
    """Serve the first catalog's courses at ``BROKEN`` without their key; the items as served."""
    catalog = sandbox.data.catalogs[0].uuid
    served = [to_dict(item) for item in await client.catalogs.contents(catalog).to_list()]
    for place, field in BROKEN.items():
        assert served[place]["content_type"] == "course"
        broken = {name: value for name, value in served[place].items() if name != field}
        sandbox.edits.remove(catalog, place)
        sandbox.edits.create(catalog, broken, at=place)
    path = f"/enterprise/v2/enterprise-catalogs/{catalog}"
    pages = [
        await client.request("GET", path, params={"page_size": PAGE, "page": page}) for page in range(1, 6)
    ]
    return catalog, [item for page in pages for item in page["results"]]


def sent_as(item: Any) -> dict[str, Any]:
    return copy.deepcopy(item.raw) if isinstance(item, UnreadableItem) else to_dict(item)


async def test_by_default_an_unreadable_item_ends_the_listing_naming_it(sandbox: Sandbox) -> None:
    async with sandbox.client() as client:
        catalog, served = await break_items(sandbox, client)
        with pytest.raises(IncompleteListingError) as raised:
            await client.catalogs.contents(catalog, page_size=PAGE).to_list()
    error = raised.value
    assert (error.page, error.item) == (2, 3)
    assert [to_dict(item) for item in error.items[:13]] == served[:13]  # the items before it
    assert "Course.key is required and was left out" in str(error)
    assert isinstance(error.__cause__, ResponseDecodeError)


async def test_every_item_arrives_in_its_place_the_unreadable_ones_as_sent_with_their_error(
    sandbox: Sandbox,
) -> None:
    async with sandbox.client() as client:
        catalog, served = await break_items(sandbox, client)
        pager = client.catalogs.contents(catalog, page_size=PAGE).with_unreadable()
        items = [item async for item in pager]
        listed = await client.catalogs.contents(catalog, page_size=PAGE).with_unreadable().to_list()
    assert [sent_as(item) for item in items] == served  # nothing skipped, nothing moved
    assert [sent_as(item) for item in listed] == served
    unreadable = [item for item in items if isinstance(item, UnreadableItem)]
    assert [(item.page, item.index) for item in unreadable] == [(2, 3), (4, 1)]
    for item in unreadable:
        assert isinstance(item.error, ResponseDecodeError)
        assert item.error.item == item.index
        assert f"catalogs.contents page {item.page}, item {item.index}" in item.reason
        assert f"results[{item.index}]: Course.key is required and was left out" in item.reason
    assert all(isinstance(item, ContentItem) for item in items if not isinstance(item, UnreadableItem))


async def test_pages_hold_every_item_and_an_envelope_of_the_readable_ones(sandbox: Sandbox) -> None:
    async with sandbox.client() as client:
        catalog, served = await break_items(sandbox, client)
        pages = [
            page async for page in client.catalogs.contents(catalog, page_size=PAGE).with_unreadable().pages()
        ]
    assert [page.number for page in pages] == [1, 2, 3, 4, 5]
    assert all(isinstance(page, ListingPage) for page in pages)
    assert [sent_as(item) for page in pages for item in page.items] == served
    second = pages[1]
    assert isinstance(second.envelope, CatalogContentsPage)
    assert second.envelope.count == len(served)
    assert len(second.envelope.results) == PAGE - 1
    assert [item.index for item in second.unreadable] == [3]
    assert all(not isinstance(item, UnreadableItem) for item in second.envelope.results)


async def test_a_cursor_past_an_unreadable_item_resumes_after_it_each_item_once(sandbox: Sandbox) -> None:
    async with sandbox.client() as client:
        catalog, served = await break_items(sandbox, client)
        pager = client.catalogs.contents(catalog, page_size=PAGE).with_unreadable()
        first: list[Any] = []
        async for item in pager:
            first.append(item)
            if len(first) == 14:  # just past the first unreadable item, mid-page
                break
        cursor = str(pager.cursor)
        rest = [
            item
            async for item in client.catalogs.contents(catalog, page_size=PAGE)
            .with_unreadable()
            .resume(cursor)
        ]
        on_the_boundary = client.catalogs.contents(catalog, page_size=PAGE).with_unreadable()
        head: list[Any] = []
        async for item in on_the_boundary:
            head.append(item)
            if len(head) == 20:
                break
        tail = await on_the_boundary.resume(on_the_boundary.cursor).to_list()
    assert [sent_as(item) for item in first + rest] == served
    assert isinstance(first[13], UnreadableItem)
    assert [sent_as(item) for item in head + tail] == served


async def test_xml_gives_the_same_items_and_the_same_unreadable_ones(sandbox: Sandbox) -> None:
    async with sandbox.client() as client, sandbox.client(response_format="xml") as xml:
        catalog, _ = await break_items(sandbox, client)
        from_json = await client.catalogs.contents(catalog, page_size=PAGE).with_unreadable().to_list()
        from_xml = await xml.catalogs.contents(catalog, page_size=PAGE).with_unreadable().to_list()
    assert len(from_xml) == len(from_json)
    places = [(item.page, item.index) for item in from_xml if isinstance(item, UnreadableItem)]
    assert places == [(2, 3), (4, 1)]
    for json_item, xml_item in zip(from_json, from_xml, strict=True):
        if isinstance(json_item, UnreadableItem):
            assert isinstance(xml_item, UnreadableItem)
            assert xml_item.raw["uuid"] == json_item.raw["uuid"]
            assert "key" not in xml_item.raw
        else:
            assert xml_item == json_item


async def test_the_drift_report_counts_each_broken_promise_by_model_and_field(sandbox: Sandbox) -> None:
    async with sandbox.client() as client:
        catalog, _ = await break_items(sandbox, client)
        await client.catalogs.contents(catalog, page_size=PAGE).with_unreadable().to_list()
        report = client.drift()
    [entry] = report.of_kind("missing_required")
    assert (entry.model, entry.field, entry.count) == ("Course", "key", len(BROKEN))
    assert entry.example == "catalogs.contents > results[3].key"


async def test_a_listing_with_nothing_unreadable_reads_the_same_either_way(sandbox: Sandbox) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        plain = await client.catalogs.contents(catalog, page_size=PAGE).to_list()
        going_on = await client.catalogs.contents(catalog, page_size=PAGE).with_unreadable().to_list()
        first = await client.catalogs.contents(catalog, page_size=PAGE).with_unreadable().first_page()
    assert going_on == plain
    assert first.number == 1
    assert first.items == plain[:PAGE]
    assert first.unreadable == []
