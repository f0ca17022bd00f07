"""A listing gives the event loop a turn while it decodes a page: the service's other work runs
between the steps of a page's decode (its parse, a few of its XML items at a time, its models),
and the page is the one ``Answer.result()`` gives in one go."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from enterprise_async import IncompleteListingError, ResponseDecodeError
from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async._paging.envelope import Envelope
from enterprise_async._paging.window import Window
from enterprise_async._request.request import Query
from enterprise_async._response.answer import Answer
from enterprise_async._response.responses import RawResponse
from enterprise_async._utils.xml import ITEMS_PER_TURN, render_drf_xml
from enterprise_async.testing import DataSize, Fault, Sandbox

LISTING = OPERATIONS["catalogs.list"]
CATALOGS = "/enterprise/v2/enterprise-catalogs"
ITEMS = 100
PAGE = {
    "count": ITEMS,
    "next": None,
    "previous": None,
    "results": [
        {"uuid": f"catalog-{number:04d}", "title": f"Catalog {number}", "enterprise_customer": "c"}
        for number in range(ITEMS)
    ],
}
BODIES = {"json": ("application/json", orjson.dumps(PAGE)), "xml": ("application/xml", render_drf_xml(PAGE))}


def response(kind: str) -> RawResponse:
    content_type, body = BODIES[kind]
    return RawResponse(200, "OK", {"Content-Type": content_type}, body, "GET", CATALOGS)


class Ticker:
    """Another task of the service: counts the turns the event loop gives it."""

    def __init__(self) -> None:
        self.turns = 0

    async def run(self) -> None:
        while True:
            await asyncio.sleep(0)
            self.turns += 1


async def turns_while_read(kind: str) -> tuple[int, Any]:
    """The turns another task had while the window read one page, and the page."""
    read = Answer(LISTING, response(kind), CONVERSION)

    async def fetch(_: Query) -> Answer:
        return read  # the answer is in: nothing left to wait for but the decode

    assert LISTING.pagination is not None
    window = Window(fetch, Envelope(LISTING.pagination), width=8)
    ticker = Ticker()
    task = asyncio.create_task(ticker.run())
    await asyncio.sleep(0)  # the ticker's first turn
    before = ticker.turns
    page, _ = await window.page(())
    turns = ticker.turns - before
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return turns, page


@pytest.mark.parametrize("kind", ["json", "xml"])
async def test_a_page_is_decoded_in_steps_between_which_other_tasks_run(kind: str) -> None:
    turns, page = await turns_while_read(kind)
    at_least = 2 if kind == "json" else 2 + ITEMS // ITEMS_PER_TURN  # parse, models (XML: items too)
    assert turns >= at_least
    assert page == Answer(LISTING, response(kind), CONVERSION).result()
    assert len(page.results) == ITEMS


async def test_an_xml_page_read_in_steps_equals_its_json_twin() -> None:
    _, from_xml = await turns_while_read("xml")
    _, from_json = await turns_while_read("json")
    assert from_xml == from_json


@pytest.mark.parametrize("kind", ["json", "xml"])
async def test_a_page_cut_short_fails_its_steps_with_a_typed_error(kind: str) -> None:
    """The body read in steps fails as ``Answer.result()`` does: ``ResponseDecodeError``, no data."""
    content_type, body = BODIES[kind]
    cut = RawResponse(200, "OK", {"Content-Type": content_type}, body[: len(body) // 2], "GET", CATALOGS)

    def read_every_step() -> None:
        for _ in Answer(LISTING, cut, CONVERSION).steps():
            pass

    with pytest.raises(ResponseDecodeError) as raised:
        read_every_step()
    assert kind.upper() in str(raised.value)


async def test_an_xml_page_cut_short_mid_listing_ends_in_an_incomplete_listing() -> None:
    """A sandbox page 2 of an XML listing with its body cut in half: the listing stops with the
    first page's items and the decode error as the cause, never a short success."""
    async with (
        Sandbox(seed=0, size=DataSize(catalog_items=250), profile="reference") as sandbox,
        sandbox.client(response_format="xml", max_concurrency=1) as client,
    ):
        catalog = sandbox.data.catalogs[0].uuid
        sandbox.faults.inject(f"/enterprise/v2/enterprise-catalogs/{catalog}", Fault.malformed(), skip=1)
        with pytest.raises(IncompleteListingError) as raised:
            await client.catalogs.contents(catalog, page_size=100).to_list()
    assert isinstance(raised.value.__cause__, ResponseDecodeError)
    assert (raised.value.page, len(raised.value.items)) == (2, 100)
