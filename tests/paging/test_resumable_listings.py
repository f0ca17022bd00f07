"""Resumable listings: a pager's cursor, taken anywhere (mid-page included), resumes the listing with
every item exactly once and in order, for every pagination shape ``x-sdk-pagination`` describes; a
cursor of another listing is refused before anything is sent."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

import attrs
import orjson
import pytest
from aiohttp import web

from enterprise_async import (
    AsyncPager,
    EnterpriseClient,
    IncompleteListingError,
    ListingCursor,
    ListingCursorError,
)
from enterprise_async._generated import operations
from enterprise_async._paging import take
from enterprise_async._spec import Operation, Pagination
from enterprise_async.models import Assignment, Catalog, SubsidyAccessPolicy, to_dict
from enterprise_async.testing import DataSize, Fault, Sandbox
from tests.conftest import ScriptedAPI
from tests.openapi_spec import required
from tests.paging.test_pagination import (
    ASSIGNMENTS,
    CATALOGS,
    CONFIG,
    CUSTOMER,
    PAGE_NUMBERED,
    POLICIES,
    TRANSACTIONS,
    Together,
    TransactionPage,
    catalogs,
    listing,
    serve_numbered,
    serve_pages,
)

Listing = Callable[[EnterpriseClient], AsyncPager[Any, Any]]


def key(item: Any) -> str:
    return str(item.uuid)


# ---------------------------------------------------------------------- every shape


def _by_offset_links(client: EnterpriseClient) -> AsyncPager[Any, Any]:
    catalogs_list = operations.CATALOGS_LIST
    assert catalogs_list.pagination is not None
    pagination = attrs.evolve(catalogs_list.pagination, offset_param="offset")
    return client.paginate(attrs.evolve(catalogs_list, pagination=pagination), {})


def _bare(api: ScriptedAPI) -> Listing:
    rows = catalogs(23)

    async def handler(request: web.Request) -> web.StreamResponse:
        number = int(request.query.get("page", 1))
        return web.json_response(rows[(number - 1) * 5 : number * 5])

    api.routes[("GET", TRANSACTIONS)] = handler
    bare = Pagination(list, Catalog, items=None, next_field=None, count_field=None, page_param="page")
    return lambda client: client.paginate(listing(bare, list[Catalog]), {})


def serve_shape(api: ScriptedAPI, shape: str) -> Listing:
    """Serve 23 items in one of the shapes the spec can describe; the listing method that reads them."""
    rows = catalogs(23)
    if shape in ("count", "offset", "opaque"):
        serve_pages(api, CATALOGS, rows, size=5, style=shape)
        return _by_offset_links if shape == "offset" else lambda client: client.catalogs.list(page_size=5)
    if shape == "policy":
        rows = [{**required(SubsidyAccessPolicy), **row} for row in rows]
        serve_pages(api, POLICIES, rows, size=5, style="policy")
        return lambda client: client.policies.list(CUSTOMER, page_size=5)
    if shape == "assignment":
        rows = [{**required(Assignment), **row} for row in rows]
        serve_pages(api, ASSIGNMENTS, rows, size=5, style="assignment")
        return lambda client: client.assignments.list(CONFIG, page_size=5)
    if shape == "bare":
        return _bare(api)
    serve_numbered(api, rows, size=5, counts=shape != "numbered-uncounted")
    pagination = PAGE_NUMBERED
    if shape == "offset-numbered":
        pagination = attrs.evolve(PAGE_NUMBERED, page_param=None, offset_param="offset", pages_field=None)
    return lambda client: client.paginate(listing(pagination, TransactionPage), {})


SHAPES = ["count", "offset", "opaque", "policy", "assignment", "numbered", "numbered-uncounted"]
SHAPES += ["offset-numbered", "bare"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("given", [1, 3, 5, 12, 22, 23])
async def test_a_listing_resumed_from_its_cursor_gives_every_later_item_once_in_order(
    api: ScriptedAPI, shape: str, given: int
) -> None:
    pager_of = serve_shape(api, shape)
    async with api.client(max_concurrency=3) as client:
        everything = [key(item) async for item in pager_of(client)]
        pager = pager_of(client)
        first = [key(item) async for item in take(pager, given)]
        cursor = ListingCursor.from_json(pager.cursor.to_json())
        rest = [key(item) async for item in pager_of(client).resume(cursor)]
    assert len(everything) == 23
    assert first + rest == everything


@pytest.mark.parametrize("shape", SHAPES)
async def test_the_cursor_of_a_pager_not_yet_iterated_resumes_from_the_first_item(
    api: ScriptedAPI, shape: str
) -> None:
    pager_of = serve_shape(api, shape)
    async with api.client() as client:
        everything = [key(item) async for item in pager_of(client)]
        cursor = pager_of(client).cursor
        assert [key(item) async for item in pager_of(client).resume(cursor)] == everything


@pytest.mark.parametrize("shape", SHAPES)
async def test_a_cursor_taken_at_the_end_resumes_to_nothing_without_a_request(
    api: ScriptedAPI, shape: str
) -> None:
    pager_of = serve_shape(api, shape)
    async with api.client() as client:
        pager = pager_of(client)
        await pager.to_list()
        cursor = pager.cursor
        before = len(api.requests)
        assert [item async for item in pager_of(client).resume(cursor)] == []
    assert cursor.done
    assert len(api.requests) == before


async def test_a_cursor_taken_mid_page_resumes_with_that_page_fetched_again_and_only_its_later_items(
    api: ScriptedAPI,
) -> None:
    serve_pages(api, CATALOGS, catalogs(30), size=10)
    async with api.client() as client:
        pager = client.catalogs.list(page_size=10)
        given = [key(item) async for item in take(pager, 14)]
        cursor = pager.cursor
        del api.requests[:]
        rest = [key(item) async for item in client.catalogs.list(page_size=10).resume(cursor)]
    assert (cursor.page, cursor.skip) == (2, 4)
    assert given + rest == [row["uuid"] for row in catalogs(30)]
    assert sorted(call.query.get("page", "1") for call in api.calls("GET", CATALOGS)) == ["2", "3"]


async def test_pages_from_a_mid_page_cursor_start_with_the_items_not_yet_given(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(30), size=10)
    async with api.client() as client:
        pager = client.catalogs.list(page_size=10)
        async for _ in take(pager, 14):
            pass
        resumed = client.catalogs.list(page_size=10).resume(pager.cursor)
        pages = [page async for page in resumed.pages()]
    assert [len(page.results) for page in pages] == [6, 10]
    assert pages[0].count == 30
    assert pages[0].results[0].uuid == "catalog-0014"


async def test_a_resumed_listing_fetches_its_later_pages_concurrently(api: ScriptedAPI) -> None:
    together = Together(api, 4)
    serve_pages(api, CATALOGS, catalogs(200), size=5, latency=0.02, together=together)
    async with api.client(max_concurrency=4) as client:
        pager = client.catalogs.list(page_size=5)
        given = [key(item) async for item in take(pager, 52)]
        api.max_in_flight = 0
        together.rearm()
        rest = [key(item) async for item in client.catalogs.list(page_size=5).resume(pager.cursor)]
    assert given + rest == [row["uuid"] for row in catalogs(200)]
    assert api.max_in_flight == 4


async def test_the_cursor_of_a_pages_iteration_stands_after_the_last_page_given(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(30), size=10)
    async with api.client() as client:
        pager = client.catalogs.list(page_size=10)
        async for _ in take(pager.pages(), 2):
            pass
        rest = [key(item) async for item in client.catalogs.list(page_size=10).resume(str(pager.cursor))]
    assert rest == [row["uuid"] for row in catalogs(30)[20:]]


async def test_a_resumed_listing_still_checks_the_count_its_envelopes_promise(api: ScriptedAPI) -> None:
    rows = catalogs(30)
    serve_pages(api, CATALOGS, rows, size=10)
    async with api.client() as client:
        pager = client.catalogs.list(page_size=10)
        async for _ in take(pager, 12):
            pass
        cursor = pager.cursor

        async def lying(request: web.Request) -> web.StreamResponse:
            number = int(request.query.get("page", 1))
            following = f"{api.base_url}{CATALOGS}?page={number + 1}&page_size=10" if number < 2 else None
            page = {"count": 30, "next": following, "previous": None}
            return web.json_response(page | {"results": rows[(number - 1) * 10 : number * 10]})

        api.routes[("GET", CATALOGS)] = lying
        with pytest.raises(IncompleteListingError) as raised:
            await client.catalogs.list(page_size=10).resume(cursor).to_list()
    assert (raised.value.received, raised.value.expected_items) == (20, 30)


# ---------------------------------------------------------------------- refused cursors


async def test_a_cursor_of_another_operation_is_refused_before_anything_is_sent(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(30), size=10)
    async with api.client() as client:
        pager = client.catalogs.list(page_size=10)
        async for _ in take(pager, 12):
            pass
        sent = len(api.requests)
        with pytest.raises(ListingCursorError, match=r"catalogs\.list, not in policies\.list"):
            client.policies.list(CUSTOMER).resume(pager.cursor)
    assert len(api.requests) == sent


@pytest.mark.parametrize("other", [{"page_size": 20}, {"page_size": 10, "active": True}])
async def test_a_cursor_of_the_same_operation_with_other_arguments_is_refused(
    api: ScriptedAPI, other: dict[str, Any]
) -> None:
    serve_pages(
        api,
        POLICIES,
        [{**required(SubsidyAccessPolicy), **row} for row in catalogs(30)],
        size=10,
        style="policy",
    )
    async with api.client() as client:
        pager = client.policies.list(CUSTOMER, page_size=10)
        async for _ in take(pager, 12):
            pass
        with pytest.raises(ListingCursorError, match="other arguments"):
            client.policies.list(CUSTOMER, **other).resume(pager.cursor)


async def test_a_cursor_of_another_catalog_is_refused(enterprise_sandbox: Sandbox) -> None:
    first, second = (catalog.uuid for catalog in enterprise_sandbox.data.catalogs[:2])
    async with enterprise_sandbox.client() as client:
        pager = client.catalogs.contents(first)
        async for _ in take(pager, 3):
            pass
        with pytest.raises(ListingCursorError, match="other arguments"):
            client.catalogs.contents(second).resume(pager.cursor)


@pytest.mark.parametrize(
    "text",
    ["", "not json", "[]", '{"version": 99}', '{"version": 1, "listing": "x"}'],
)
def test_text_that_is_no_cursor_is_refused_with_a_typed_error(text: str) -> None:
    with pytest.raises(ListingCursorError):
        ListingCursor.from_json(text)


def test_a_cursor_survives_its_json_text() -> None:
    query = (("page", "4"),)
    cursor = ListingCursor("catalogs.contents", "abc", page=4, query=query, skip=3, before=30, size=10)
    assert ListingCursor.from_json(cursor.to_json()) == cursor
    assert ListingCursor.from_json(str(cursor)) == cursor


# ---------------------------------------------------------------------- against the sandbox, with faults


@pytest.fixture
async def big_sandbox() -> AsyncIterator[Sandbox]:
    size = DataSize(customers=1, catalogs_per_customer=1, catalog_items=437)
    async with Sandbox(seed=3, size=size) as running:
        yield running


async def test_a_listing_broken_by_a_failing_page_resumes_from_its_cursor_with_every_item_once(
    big_sandbox: Sandbox,
) -> None:
    catalog = big_sandbox.data.catalogs[0].uuid
    async with big_sandbox.client(max_concurrency=4, max_retries=0) as client:
        everything = [key_of(item) async for item in client.catalogs.contents(catalog)]
        big_sandbox.faults.inject(f"*{catalog}*", Fault.server_error(503), skip=17, times=None)
        pager = client.catalogs.contents(catalog)
        given: list[str] = []

        async def consume() -> None:
            async for item in pager:
                given.append(key_of(item))

        with pytest.raises(IncompleteListingError):
            await consume()
        big_sandbox.faults.clear()
        rest = [key_of(item) async for item in client.catalogs.contents(catalog).resume(pager.cursor)]
    assert len(everything) == 437
    assert 0 < len(given) < 437
    assert given + rest == everything


async def test_a_cancelled_listing_resumes_from_its_cursor_mid_page_with_every_item_once(
    big_sandbox: Sandbox,
) -> None:
    catalog = big_sandbox.data.catalogs[0].uuid
    async with big_sandbox.client(max_concurrency=4) as client:
        everything = [key_of(item) async for item in client.catalogs.contents(catalog)]
        pager = client.catalogs.contents(catalog)
        given: list[str] = []
        enough = asyncio.Event()
        never = asyncio.Event()

        async def consume() -> None:
            async for item in pager:
                given.append(key_of(item))
                if len(given) == 137:
                    enough.set()
                    await never.wait()  # the consumer is busy with this item when it is cancelled

        task = asyncio.ensure_future(consume())
        await enough.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        cursor = ListingCursor.from_json(str(pager.cursor))
        rest = [key_of(item) async for item in client.catalogs.contents(catalog).resume(cursor)]
    assert (cursor.page, cursor.skip) == (14, 7)
    assert given + rest == everything


def key_of(item: Any) -> str:
    """A content item's identity, whatever its type (course, run, program)."""
    for name in ("key", "uuid", "content_key"):
        value = getattr(item, name, None)
        if value:
            return str(value)
    raise AssertionError(f"no key on {item!r}")


# ---------------------------------------------------------------------- every generated list method

SMALL_PAGES = {
    "policies": 2,
    "assignments": 7,
    "subscriptions": 1,
    "catalogs": 4,
    "contents": 10,
    "learner_summary": 8,
}


def generated_listings(sandbox: Sandbox) -> dict[str, Listing]:
    """Every list method of the client, called with arguments the sandbox's data answers."""
    data = sandbox.data
    customer = data.customers[0].uuid
    configuration = data.assignment_configurations[0]
    return {
        "policies.list": lambda client: client.policies.list(customer),
        "assignments.list": lambda client: client.assignments.list(configuration),
        "subscriptions.list": lambda client: client.subscriptions.list(enterprise_customer_uuid=customer),
        "catalogs.list": lambda client: client.catalogs.list(),
        "catalogs.contents": lambda client: client.catalogs.contents(data.catalogs[0].uuid),
        "learner_summary.list": lambda client: client.learner_summary.list(customer),
    }


GENERATED_LISTINGS = (
    "policies.list",
    "assignments.list",
    "subscriptions.list",
    "catalogs.list",
    "catalogs.contents",
    "learner_summary.list",
)


def test_the_sandbox_test_covers_every_list_method_of_the_spec() -> None:
    table = [value for value in vars(operations).values() if isinstance(value, Operation)]
    listed = {operation.name for operation in table if operation.pagination}
    assert listed == set(GENERATED_LISTINGS)


def wire(item: Any) -> bytes:
    return orjson.dumps(to_dict(item))


@pytest.mark.parametrize(
    ("name", "shape"),
    [(name, "paginated") for name in GENERATED_LISTINGS] + [("learner_summary.list", "list")],
)
async def test_every_generated_list_method_resumes_from_any_cursor_with_every_item_once(
    name: str, shape: Literal["paginated", "list"]
) -> None:
    # catalogs: the catalog list shows the token's customer's only, so it holds more than 2 of them
    size = DataSize(plans_per_customer=3, catalogs_per_customer=4)
    async with Sandbox(seed=2, size=size, page_sizes=SMALL_PAGES, learner_summary=shape) as sandbox:
        pager_of = generated_listings(sandbox)[name]
        async with sandbox.client(max_concurrency=3) as client:
            everything = [wire(item) async for item in pager_of(client)]
            assert len(everything) > 2
            for given in (1, len(everything) // 2, len(everything) - 1):
                pager = pager_of(client)
                first = [wire(item) async for item in take(pager, given)]
                resumed = pager_of(client).resume(str(pager.cursor))
                assert first + [wire(item) async for item in resumed] == everything, given
