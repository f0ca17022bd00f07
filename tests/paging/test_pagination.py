"""AsyncPager: items in server order, later pages fetched concurrently under max_concurrency,
next links followed where the page count is unknown, other hosts never contacted."""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
from typing import Any

import attrs
import pytest
from aiohttp import web

from enterprise_async import (
    AsyncPager,
    IncompleteListingError,
    NotFoundError,
    OutgoingRequest,
    RawResponse,
    ResponseDecodeError,
    Send,
    ServerError,
)
from enterprise_async._generated import operations
from enterprise_async._spec import Operation, Outcome, Pagination, Param, Rule
from enterprise_async.models import (
    Assignment,
    AssignmentPage,
    Catalog,
    CatalogPage,
    LearnerSummary,
    SubsidyAccessPolicy,
)
from tests.conftest import ScriptedAPI
from tests.openapi_spec import required

CATALOGS = "/enterprise/v2/enterprise-catalogs"
POLICIES = "/enterprise/v1/subsidy-access-policies/"
CONFIG = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
ASSIGNMENTS = f"/enterprise/v1/assignment-configurations/{CONFIG}/admin/assignments/"
CUSTOMER = "4f2ad1b8-9c6e-4c1a-8f0e-3b7d2e5a9c11"
LEARNERS = f"/enterprise/v3/enterprise-customer/{CUSTOMER}/learner-summary"
OTHER_HOST = "http://backend.internal:8000"


def catalogs(total: int) -> list[dict[str, Any]]:
    return [
        {"uuid": f"catalog-{number:04d}", "title": f"Catalog {number}", "enterprise_customer": CUSTOMER}
        for number in range(total)
    ]


TOGETHER_GUARD = 10.0
"""Seconds a page held by ``Together`` waits at most (a client that never sends that many at once)."""


@attrs.define
class Together:
    """Pages are held until ``count`` requests are in flight at once, or ``TOGETHER_GUARD``
    seconds; but the first request (a listing's first page goes alone: it tells how many follow).
    Once reached, none is held any more, until ``rearm`` (for a listing that starts again). The
    most in flight then says how many the client sends together, not how many a loaded machine let
    overlap: with a plain latency, a pause of this process while the window's connections open
    lets the first page end before the last arrives."""

    api: ScriptedAPI
    count: int
    opened: bool = False
    reached: asyncio.Event = attrs.field(factory=asyncio.Event)

    async def hold(self) -> None:
        if not self.opened:
            self.opened = True
            return
        if self.api.in_flight >= self.count:
            self.reached.set()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.reached.wait(), TOGETHER_GUARD)

    def rearm(self) -> None:
        self.opened = False
        self.reached = asyncio.Event()


def serve_pages(
    api: ScriptedAPI,
    path: str,
    items: list[dict[str, Any]],
    *,
    size: int,
    style: str = "count",
    host: str | None = None,
    latency: float = 0.0,
    together: Together | None = None,
) -> None:
    """Pages of ``items`` at ``path``: style ``count`` (count/next), ``policy`` (num_pages),
    ``assignment`` (page_count/page_size), ``offset`` (limit/offset links) or ``opaque`` (no count);
    after ``together``'s hold, when given."""

    async def handler(request: web.Request) -> web.StreamResponse:
        if together is not None:
            await together.hold()
        await asyncio.sleep(latency)
        # at most ``size`` a page, as a service's max_page_size caps what to_list() asks for
        per_page = min(size, int(request.query.get("page_size") or request.query.get("limit") or size))
        if style == "offset":
            start = int(request.query.get("offset", 0))
            number = start // per_page + 1
        else:
            number = int(request.query.get("page", 1))
            start = (number - 1) * per_page
        pages = max(1, math.ceil(len(items) / per_page))
        if number > pages:
            return web.json_response({"detail": "Invalid page."}, status=404)
        base = f"{host or api.base_url}{path}"
        if style == "offset":
            following = f"{base}?limit={per_page}&offset={start + per_page}"
        elif style == "opaque":
            following = f"{base}?page={number + 1}"
        else:
            following = f"{base}?page={number + 1}&page_size={per_page}"
        body: dict[str, Any] = {
            "count": len(items),
            "next": following if number < pages else None,
            "previous": None,
            "results": items[start : start + per_page],
        }
        if style == "policy":
            body |= {"num_pages": pages, "current_page": number, "start": start}
        if style == "assignment":
            body |= {
                "page_count": pages,
                "page_size": per_page,
                "current_page": number,
                "learner_state_counts": [],
            }
        if style == "opaque":
            del body["count"]
        return web.json_response(body)

    api.routes[("GET", path)] = handler


async def test_items_come_in_server_order_across_pages(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(95), size=10)
    async with api.client() as client:
        items = [catalog.uuid async for catalog in client.catalogs.list()]
    assert items == [f"catalog-{number:04d}" for number in range(95)]


async def test_pages_after_the_first_are_fetched_concurrently_up_to_max_concurrency(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(200), size=5, latency=0.02, together=Together(api, 4))
    async with api.client(max_concurrency=4) as client:
        items = await client.catalogs.list().to_list()
    assert len(items) == 200
    assert api.max_in_flight == 4


async def test_max_concurrency_bounds_every_listing_of_a_client_together(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(60), size=3, latency=0.02)
    async with api.client(max_concurrency=3) as client:
        results = await asyncio.gather(*(client.catalogs.list().to_list() for _ in range(4)))
    assert [len(items) for items in results] == [60] * 4
    assert api.max_in_flight <= 3


async def test_next_links_naming_another_host_are_requested_against_base_url(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(25), size=10, host=OTHER_HOST)
    async with api.client() as client:
        items = await client.catalogs.list().to_list()
    assert len(items) == 25
    requested = [call.query.get("page") for call in api.calls("GET", CATALOGS)]
    assert requested[0] is None  # page 1, then pages 2 and 3 together (in either order of arrival)
    assert sorted(requested[1:], key=str) == ["2", "3"]
    assert all(call.headers["Authorization"].startswith("JWT ") for call in api.calls("GET", CATALOGS))


async def test_policy_pages_are_planned_from_num_pages(api: ScriptedAPI) -> None:
    policies = [{**required(SubsidyAccessPolicy), "uuid": f"p{number}"} for number in range(23)]
    serve_pages(api, POLICIES, policies, size=10, style="policy", host=OTHER_HOST)
    async with api.client() as client:
        items = await client.policies.list(CUSTOMER, page_size=4).to_list()
    assert [item.uuid for item in items] == [f"p{number}" for number in range(23)]
    assert sorted(int(call.query.get("page", 1)) for call in api.calls("GET", POLICIES)) == list(range(1, 7))


async def test_assignment_pages_carry_learner_state_counts(api: ScriptedAPI) -> None:
    serve_pages(
        api,
        ASSIGNMENTS,
        [{**required(Assignment), "uuid": f"a{number}"} for number in range(7)],
        size=3,
        style="assignment",
    )
    async with api.client() as client:
        pages = [page async for page in client.assignments.list(CONFIG).pages()]
    assert all(isinstance(page, AssignmentPage) for page in pages)
    assert [page.current_page for page in pages] == [1, 2, 3]
    assert all(page.learner_state_counts == [] for page in pages)


async def test_offset_links_are_planned_by_the_offset_parameter_the_spec_names(api: ScriptedAPI) -> None:
    catalogs_list = operations.CATALOGS_LIST
    assert catalogs_list.pagination is not None
    by_offset = attrs.evolve(
        catalogs_list, pagination=attrs.evolve(catalogs_list.pagination, offset_param="offset")
    )
    serve_pages(api, CATALOGS, catalogs(31), size=10, style="offset", latency=0.02, together=Together(api, 3))
    async with api.client(max_concurrency=4) as client:
        items = await client.paginate(by_offset, {}).to_list()
    assert len(items) == 31
    offsets = sorted(int(call.query.get("offset", "0")) for call in api.calls("GET", CATALOGS))
    assert offsets == [0, 10, 20, 30]
    assert api.max_in_flight == 3


async def test_offset_links_are_followed_one_by_one_where_the_spec_names_no_offset_parameter(
    api: ScriptedAPI,
) -> None:
    serve_pages(api, CATALOGS, catalogs(31), size=10, style="offset", latency=0.01)
    async with api.client() as client:
        items = await client.catalogs.list().to_list()
    assert len(items) == 31
    assert api.max_in_flight == 1


async def test_without_a_count_pages_are_followed_one_by_one(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(12), size=5, style="opaque", latency=0.01)
    async with api.client() as client:
        items = await client.catalogs.list().to_list()
    assert len(items) == 12
    assert api.max_in_flight == 1


async def test_an_empty_or_missing_next_ends_the_listing(api: ScriptedAPI) -> None:
    api.json("GET", CATALOGS, {"count": 2, "next": "", "previous": None, "results": catalogs(2)})
    async with api.client() as client:
        assert len(await client.catalogs.list().to_list()) == 2
    assert len(api.calls("GET", CATALOGS)) == 1


async def test_a_next_link_that_ends_short_of_the_count_raises_with_the_items(api: ScriptedAPI) -> None:
    api.json("GET", CATALOGS, {"count": 100, "next": "", "previous": None, "results": catalogs(2)})
    async with api.client() as client:
        with pytest.raises(IncompleteListingError) as raised:
            await client.catalogs.list().to_list()
    assert (raised.value.page, raised.value.received, raised.value.expected_items) == (2, 2, 100)
    assert [catalog.uuid for catalog in raised.value.items] == ["catalog-0000", "catalog-0001"]


@pytest.mark.parametrize(
    ("envelope", "refused"),
    [
        ({"count": 2, "next": None, "results": "catalog-0001"}, "results must be a list"),
        (
            {"count": 2, "next": {"page": 2}, "results": catalogs(1)},
            "next must be a link or null",
        ),
    ],
)
async def test_an_envelope_the_pager_cannot_follow_is_refused(
    api: ScriptedAPI, envelope: dict[str, Any], refused: str
) -> None:
    # Kept as sent, a string would be iterated as characters and a number would end the listing early.
    api.json("GET", CATALOGS, envelope)
    async with api.client() as client:
        where = re.escape(f"CatalogPage of GET {api.base_url}{CATALOGS}: ")
        with pytest.raises(ResponseDecodeError, match=f"{where}{refused}"):
            await client.catalogs.list().first_page()


async def test_a_next_link_that_loops_ends_the_listing(api: ScriptedAPI) -> None:
    api.json(
        "GET",
        CATALOGS,
        {"next": f"{api.base_url}{CATALOGS}?cursor=same", "previous": None, "results": catalogs(1)},
    )
    async with api.client() as client:
        items = await client.catalogs.list().to_list()
    assert len(items) == 2  # page 1, then the looping page once


async def test_a_page_beyond_the_end_of_a_shrinking_listing_ends_it(api: ScriptedAPI) -> None:
    items = catalogs(30)

    async def handler(request: web.Request) -> web.StreamResponse:
        number = int(request.query.get("page", 1))
        if number == 1:
            return web.json_response(
                {
                    "count": 30,
                    "next": f"{api.base_url}{CATALOGS}?page=2",
                    "previous": None,
                    "results": items[:10],
                }
            )
        if number == 2:
            return web.json_response({"count": 20, "next": None, "previous": None, "results": items[10:20]})
        return web.json_response({"detail": "Invalid page."}, status=404)

    api.routes[("GET", CATALOGS)] = handler
    async with api.client() as client:
        listed = await client.catalogs.list().to_list()
    assert len(listed) == 20


async def test_a_404_on_the_first_page_is_an_error(api: ScriptedAPI) -> None:
    api.json("GET", CATALOGS, {"detail": "Not found."}, 404)
    async with api.client() as client:
        with pytest.raises(NotFoundError):
            await client.catalogs.list().to_list()


async def test_first_page_fetches_one_page(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(50), size=10)
    async with api.client() as client:
        page = await client.catalogs.list().first_page()
    assert isinstance(page, CatalogPage)
    assert (page.count, len(page.results)) == (50, 10)
    assert len(api.calls("GET", CATALOGS)) == 1


async def test_the_pager_is_returned_at_once_and_requests_nothing_until_iterated(api: ScriptedAPI) -> None:
    async with api.client() as client:
        pager = client.catalogs.list()
        assert isinstance(pager, AsyncPager)
    assert api.requests == []


async def test_a_bare_list_response_is_one_page(api: ScriptedAPI) -> None:
    api.json(
        "GET",
        LEARNERS,
        [
            {**required(LearnerSummary), "user_email": "ada@acme.example"},
            {**required(LearnerSummary), "user_email": "grace@acme.example"},
        ],
    )
    async with api.client() as client:
        pager = client.learner_summary.list(CUSTOMER, ordering="user_email")
        rows = await pager.to_list()
        page = await pager.first_page()
    assert [row.user_email for row in rows] == ["ada@acme.example", "grace@acme.example"]
    assert all(isinstance(row, LearnerSummary) for row in rows)
    assert page.count == 2
    # to_list() asks for the service's largest page (1000, issue 33)
    assert api.calls("GET", LEARNERS)[0].query == {"ordering": "user_email", "page_size": "1000"}


async def test_an_enveloped_learner_summary_is_paged(api: ScriptedAPI) -> None:
    learners = [{**required(LearnerSummary), "user_email": f"l{number}@acme.example"} for number in range(25)]
    serve_pages(api, LEARNERS, learners, size=10)
    async with api.client() as client:
        rows = await client.learner_summary.list(CUSTOMER).to_list()
    assert len(rows) == 25


async def test_breaking_out_cancels_in_flight_pages_and_leaks_no_task(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(400), size=2, latency=0.05)
    async with api.client(max_concurrency=8) as client:
        pager = client.catalogs.list()
        async for catalog in pager:
            if catalog.uuid == "catalog-0004":
                break
        for _ in range(5):
            await asyncio.sleep(0)
        others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        assert [task for task in others if "AsyncPager" in repr(task.get_coro())] == []
    assert len(api.calls("GET", CATALOGS)) < 20


async def test_cancelling_the_consumer_cancels_in_flight_pages(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(200), size=2, latency=0.05)
    serve, in_flight = api.routes[("GET", CATALOGS)], asyncio.Event()

    async def noting_arrivals(request: web.Request) -> web.StreamResponse:
        if len(api.calls("GET", CATALOGS)) >= 2:
            in_flight.set()
        return await serve(request)

    api.routes[("GET", CATALOGS)] = noting_arrivals
    async with api.client(max_concurrency=8) as client:
        consumer = asyncio.ensure_future(client.catalogs.list().to_list())
        await in_flight.wait()  # pages are in flight
        consumer.cancel()
        with pytest.raises(asyncio.CancelledError):
            await consumer
        for _ in range(5):
            await asyncio.sleep(0)
        leftovers = [task for task in asyncio.all_tasks() if "AsyncPager" in repr(task.get_coro())]
        assert leftovers == []


async def test_memory_holds_only_the_pages_in_flight(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(300), size=3)
    seen_pages: list[int] = []
    async with api.client(max_concurrency=4) as client:
        async for page in client.catalogs.list().pages():
            seen_pages.append(len(page.results))
            # while the consumer holds this page, at most the window of later pages has been requested
            assert len(api.calls("GET", CATALOGS)) <= len(seen_pages) + 4
    assert sum(seen_pages) == 300


async def test_items_are_models(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(3), size=10)
    async with api.client() as client:
        items = await client.catalogs.list().to_list()
    assert all(isinstance(item, Catalog) for item in items)


# ---------------------------------------------------------------------- envelopes of other shapes
# An operation of the table's own kind, whose x-sdk-pagination names other fields: the pager must
# read whatever the spec names (the maintainer test drives the same through a regenerated spec).

TRANSACTIONS = "/enterprise/v1/transactions/"


@attrs.define(kw_only=True)
class TransactionPage:
    """``{page, per_page, total, total_pages, data}``: page-number numbering, no links."""

    page: int | None = None
    per_page: int | None = None
    total: int | None = None
    total_pages: int | None = None
    data: list[Catalog] = attrs.field(factory=list)
    extra: dict[str, Any] = attrs.field(factory=dict)
    _sdk_wire: Any = attrs.field(default=None, init=False, eq=False, repr=False)  # as generated models have


def listing(pagination: Pagination, page_model: Any) -> Operation[Any]:
    return Operation(
        name="transactions.list",
        method="GET",
        path=TRANSACTIONS,
        params=(
            Param("page", "query", Rule("integer")),
            Param("offset", "query", Rule("integer")),
            Param("per_page", "query", Rule("integer")),
        ),
        outcomes={200: Outcome(200, page_model)},
        pagination=pagination,
    )


PAGE_NUMBERED = Pagination(
    TransactionPage,
    Catalog,
    items="data",
    next_field=None,
    count_field="total",
    pages_field="total_pages",
    size_field="per_page",
    page_param="page",
    size_param="per_page",
)


def serve_numbered(
    api: ScriptedAPI,
    items: list[dict[str, Any]],
    *,
    size: int,
    counts: bool = True,
    latency: float = 0.0,
    together: Together | None = None,
) -> None:
    """``{page, per_page, total, total_pages, data}`` pages numbered by ``page`` or ``offset``;
    without ``counts`` the envelope says neither the total nor the page count; beyond the end: 404.
    Pages wait for ``together``'s hold, when given."""

    async def handler(request: web.Request) -> web.StreamResponse:
        if together is not None:
            await together.hold()
        await asyncio.sleep(latency)
        per_page = int(request.query.get("per_page", size))
        start = int(request.query.get("offset", 0)) or (int(request.query.get("page", 1)) - 1) * per_page
        if start and start >= len(items):
            return web.json_response({"detail": "Invalid page."}, status=404)
        body: dict[str, Any] = {"page": start // per_page + 1, "per_page": per_page}
        if counts:
            body |= {"total": len(items), "total_pages": math.ceil(len(items) / per_page)}
        return web.json_response(body | {"data": items[start : start + per_page]})

    api.routes[("GET", TRANSACTIONS)] = handler


async def numbered_items(api: ScriptedAPI, *, max_concurrency: int = 8, **query: Any) -> list[Any]:
    """Every item of the page-numbered listing at ``TRANSACTIONS``, through a client of ``api``."""
    async with api.client(max_concurrency=max_concurrency) as client:
        return await client.paginate(listing(PAGE_NUMBERED, TransactionPage), query).to_list()


def requested_pages(api: ScriptedAPI) -> list[str]:
    return sorted((call.query.get("page", "1") for call in api.calls("GET", TRANSACTIONS)), key=int)


async def test_a_page_number_envelope_without_links_is_planned_from_its_page_count(api: ScriptedAPI) -> None:
    serve_numbered(api, catalogs(23), size=5, latency=0.02, together=Together(api, 3))
    items = await numbered_items(api, max_concurrency=3)
    assert [item.uuid for item in items] == [catalog["uuid"] for catalog in catalogs(23)]
    assert requested_pages(api) == ["1", "2", "3", "4", "5"]
    assert api.max_in_flight == 3


async def test_without_counts_or_links_pages_are_requested_until_a_short_page(api: ScriptedAPI) -> None:
    serve_numbered(api, catalogs(12), size=5, counts=False)
    items = await numbered_items(api, max_concurrency=1)
    assert len(items) == 12
    assert requested_pages(api) == ["1", "2", "3"]


async def test_without_counts_or_links_a_404_ends_the_listing(api: ScriptedAPI) -> None:
    serve_numbered(api, catalogs(10), size=5, counts=False)
    items = await numbered_items(api, max_concurrency=1)
    assert len(items) == 10
    assert requested_pages(api) == ["1", "2", "3"]


async def test_a_user_page_size_sets_the_numbering_of_a_linkless_listing(api: ScriptedAPI) -> None:
    serve_numbered(api, catalogs(9), size=5, counts=False)
    items = await numbered_items(api, per_page=4)
    assert len(items) == 9


async def test_an_offset_envelope_without_links_is_driven_by_the_offset_parameter(api: ScriptedAPI) -> None:
    by_offset = attrs.evolve(PAGE_NUMBERED, page_param=None, offset_param="offset", pages_field=None)
    serve_numbered(api, catalogs(31), size=10)
    async with api.client() as client:
        items = await client.paginate(listing(by_offset, TransactionPage), {}).to_list()
    assert len(items) == 31
    offsets = sorted(int(call.query.get("offset", "0")) for call in api.calls("GET", TRANSACTIONS))
    assert offsets == [0, 10, 20, 30]


async def test_a_bare_list_listing_is_paged_until_an_empty_page(api: ScriptedAPI) -> None:
    bare = Pagination(list, Catalog, items=None, next_field=None, count_field=None, page_param="page")
    rows = catalogs(10)

    async def handler(request: web.Request) -> web.StreamResponse:
        number = int(request.query.get("page", 1))
        return web.json_response(rows[(number - 1) * 5 : number * 5])

    api.routes[("GET", TRANSACTIONS)] = handler
    async with api.client(max_concurrency=1) as client:
        pager: AsyncPager[Catalog, list[Catalog]] = client.paginate(listing(bare, list[Catalog]), {})
        pages = [page async for page in pager.pages()]
    assert [len(page) for page in pages] == [5, 5]
    assert requested_pages(api) == ["1", "2", "3"]


async def test_a_bare_list_that_ignores_the_page_parameter_is_read_once(api: ScriptedAPI) -> None:
    bare = Pagination(list, Catalog, items=None, next_field=None, count_field=None, page_param="page")
    api.json("GET", TRANSACTIONS, catalogs(4))
    async with api.client(max_concurrency=1) as client:
        items = await client.paginate(listing(bare, list[Catalog]), {}).to_list()
    assert len(items) == 4


# ---------------------------------------------------------------------- completeness
# Only the service's answer to a page past the last one (404 "Invalid page.", the spec's
# past_last_status and past_last_detail) ends a listing early; every other shortfall raises
# IncompleteListingError holding what arrived.


def serve_failing_page(
    api: ScriptedAPI, *, total: int, size: int, failing: int, status: int, body: Any, count: int | None = None
) -> None:
    """Catalog pages with count/next links, of which page ``failing`` always answers ``status``."""
    items = catalogs(total)
    pages = math.ceil(total / size)

    async def handler(request: web.Request) -> web.StreamResponse:
        number = int(request.query.get("page", 1))
        if number == failing:
            return web.json_response(body, status=status)
        following = f"{api.base_url}{CATALOGS}?page={number + 1}" if number < pages else None
        start = (number - 1) * size
        page = {"count": total if count is None else count, "next": following, "previous": None}
        return web.json_response(page | {"results": items[start : start + size]})

    api.routes[("GET", CATALOGS)] = handler


def uuids(items: list[Any]) -> list[str]:
    return [item.uuid for item in items]


async def test_a_middle_page_that_fails_raises_with_every_item_received_and_the_page(
    api: ScriptedAPI,
) -> None:
    serve_failing_page(api, total=50, size=10, failing=3, status=404, body={"detail": "Not found."})
    async with api.client() as client:
        with pytest.raises(IncompleteListingError) as raised:
            await client.catalogs.list().to_list()
    error = raised.value
    assert error.page == 3
    assert isinstance(error.__cause__, NotFoundError)
    assert error.item_pages == (1, 2, 4, 5)
    assert uuids(error.items) == [c["uuid"] for c in catalogs(50)[:20] + catalogs(50)[30:]]
    assert (error.received, error.expected_items) == (40, 50)
    assert "page 3 failed after 20 items of 50: NotFoundError" in str(error)


async def test_iterating_hands_over_the_pages_fetched_after_a_failed_one(api: ScriptedAPI) -> None:
    serve_failing_page(api, total=50, size=10, failing=3, status=404, body={"detail": "Not found."})
    given: list[Any] = []

    async def consume(pager: AsyncPager[Any, Any]) -> None:
        async for catalog in pager:
            given.append(catalog)

    async with api.client() as client:
        with pytest.raises(IncompleteListingError) as raised:
            await consume(client.catalogs.list())
    assert len(given) == 20
    assert raised.value.item_pages == (4, 5)
    assert uuids(raised.value.items) == [c["uuid"] for c in catalogs(50)[30:]]


async def test_an_invalid_page_answer_inside_the_count_is_a_failure_not_the_end(api: ScriptedAPI) -> None:
    serve_failing_page(api, total=50, size=10, failing=3, status=404, body={"detail": "Invalid page."})
    async with api.client() as client:
        with pytest.raises(IncompleteListingError) as raised:
            await client.catalogs.list().to_list()
    assert raised.value.page == 3
    assert isinstance(raised.value.__cause__, NotFoundError)
    assert raised.value.item_pages == (1, 2, 4, 5)


async def test_a_middle_page_failing_past_its_retries_raises(api: ScriptedAPI) -> None:
    serve_failing_page(api, total=30, size=10, failing=2, status=503, body={"detail": "down"})
    async with api.client(max_retries=1) as client:
        with pytest.raises(IncompleteListingError) as raised:
            await client.catalogs.list().to_list()
    assert raised.value.page == 2
    assert isinstance(raised.value.__cause__, ServerError)
    assert len([call for call in api.calls("GET", CATALOGS) if call.query.get("page") == "2"]) == 2


async def test_a_first_page_that_fails_raises_its_own_error(api: ScriptedAPI) -> None:
    serve_failing_page(api, total=30, size=10, failing=1, status=503, body={"detail": "down"})
    async with api.client(max_retries=0) as client:
        with pytest.raises(ServerError):
            await client.catalogs.list().to_list()


async def test_an_empty_first_page_under_a_count_raises(api: ScriptedAPI) -> None:
    api.json("GET", CATALOGS, {"count": 7, "next": None, "previous": None, "results": []})
    async with api.client() as client:
        with pytest.raises(IncompleteListingError, match="0 of 7 items"):
            await client.catalogs.list().to_list()


async def test_a_page_count_the_links_do_not_reach_raises(api: ScriptedAPI) -> None:
    policies = [{**required(SubsidyAccessPolicy), "uuid": f"p{number}"} for number in range(10)]

    async def handler(request: web.Request) -> web.StreamResponse:
        second = request.query.get("cursor") == "b"
        following = (
            None if second else f"{api.base_url}{POLICIES}?cursor=b&enterprise_customer_uuid={CUSTOMER}"
        )
        results = policies[5:] if second else policies[:5]
        return web.json_response({"num_pages": 4, "next": following, "previous": None, "results": results})

    api.routes[("GET", POLICIES)] = handler
    async with api.client() as client:
        with pytest.raises(IncompleteListingError, match="2 of 4 pages") as raised:
            await client.policies.list(CUSTOMER).to_list()
    assert (raised.value.page, raised.value.expected_pages, len(raised.value.items)) == (3, 4, 10)


async def test_an_invalid_page_answer_inside_the_page_count_is_a_failure(api: ScriptedAPI) -> None:
    policies = [{**required(SubsidyAccessPolicy), "uuid": f"p{number}"} for number in range(10)]

    async def handler(request: web.Request) -> web.StreamResponse:
        number = int(request.query.get("page", 1))
        if number > 2:
            return web.json_response({"detail": "Invalid page."}, status=404)
        following = f"{api.base_url}{POLICIES}?page={number + 1}&enterprise_customer_uuid={CUSTOMER}"
        start = (number - 1) * 5
        return web.json_response(
            {"num_pages": 4, "next": following, "previous": None, "results": policies[start : start + 5]}
        )

    api.routes[("GET", POLICIES)] = handler
    async with api.client() as client:
        with pytest.raises(IncompleteListingError, match="page 3 failed after 10 items") as raised:
            await client.policies.list(CUSTOMER).to_list()
    assert (raised.value.page, raised.value.expected_pages, len(raised.value.items)) == (3, 4, 10)


async def test_without_counts_or_links_a_404_of_another_kind_is_a_failure(api: ScriptedAPI) -> None:
    serve_numbered(api, catalogs(20), size=5, counts=False)
    numbered = api.routes[("GET", TRANSACTIONS)]

    async def gone_at_page_3(request: web.Request) -> web.StreamResponse:
        if request.query.get("page") == "3":
            return web.json_response({"detail": "Not found."}, status=404)
        return await numbered(request)

    api.routes[("GET", TRANSACTIONS)] = gone_at_page_3
    with pytest.raises(IncompleteListingError) as raised:
        await numbered_items(api, max_concurrency=1)
    assert raised.value.page == 3
    assert len(raised.value.items) == 10


async def test_the_answer_past_the_last_page_is_read_from_the_spec(api: ScriptedAPI) -> None:
    uncounted = attrs.evolve(PAGE_NUMBERED, count_field=None, pages_field=None, past_last_detail="No page.")
    items = catalogs(10)

    async def handler(request: web.Request) -> web.StreamResponse:
        number = int(request.query.get("page", 1))
        if number > 2:
            return web.json_response({"detail": "No page."}, status=404)
        return web.json_response({"per_page": 5, "data": items[(number - 1) * 5 : number * 5]})

    api.routes[("GET", TRANSACTIONS)] = handler
    async with api.client(max_concurrency=1) as client:
        listed = await client.paginate(listing(uncounted, TransactionPage), {}).to_list()
    assert len(listed) == 10


async def test_the_next_page_is_requested_before_the_page_in_hand_is_decoded(api: ScriptedAPI) -> None:
    # Decoding a page takes the event loop for a while; the request that refills the window goes
    # out first, so no connection waits for it (two pages in flight: page 4 is on its way by the
    # time page 2 is handed over).
    serve_pages(api, CATALOGS, catalogs(40), size=10)
    sent: list[int | None] = []

    async def record(request: OutgoingRequest, send: Send) -> RawResponse:
        sent.append(request.trace.page)
        return await send(request)

    sent_when_given: list[list[int | None]] = []
    async with api.client(max_concurrency=2, middleware=[record]) as client:
        async for _ in client.catalogs.list().pages():
            sent_when_given.append(sorted(sent, key=str))
    assert sent_when_given == [[1], [1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]]
