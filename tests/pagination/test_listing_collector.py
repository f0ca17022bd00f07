"""``to_list()`` defers the garbage collector's full passes while it gathers, and only then.

Each page's handler runs on the test's own event loop, so what it records of
``gc.get_threshold()`` is what the collector had while the listing gathered.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from aiohttp import web

from enterprise_async import IncompleteListingError
from enterprise_async._collector import OUT_OF_REACH
from tests.conftest import ScriptedAPI

CATALOGS = "/enterprise/v2/enterprise-catalogs"
CATALOG = "catalog-0001"
CONTENTS = f"{CATALOGS}/{CATALOG}"
PAGE = 5
THRESHOLDS = (700, 10, 10)


@pytest.fixture(autouse=True)
def known_thresholds() -> Iterator[None]:
    """Every test starts from CPython's default thresholds, and leaves the process's as they were."""
    saved = gc.get_threshold()
    gc.set_threshold(*THRESHOLDS)
    yield
    gc.set_threshold(*saved)


def serve_catalogs(
    api: ScriptedAPI,
    path: str,
    total: int,
    *,
    seen: list[tuple[int, ...]],
    latency: float = 0.0,
    failing_page: int | None = None,
    on_page: dict[int, Callable[[], object]] | None = None,
    item: Callable[[int], dict[str, Any]] = lambda n: {"uuid": f"catalog-{n:04d}", "title": f"Catalog {n}"},
) -> None:
    """Catalogs in pages of ``PAGE``; every page records the collector's thresholds as it is served."""

    async def handler(request: web.Request) -> web.StreamResponse:
        number = int(request.query.get("page", 1))
        if on_page and number in on_page:
            on_page[number]()
        seen.append(gc.get_threshold())
        await asyncio.sleep(latency)
        if number == failing_page:
            return web.json_response({"detail": "Server error."}, status=500)
        start = (number - 1) * PAGE
        results = [item(n) for n in range(start, min(total, start + PAGE))]
        following = f"{api.base_url}{path}?page={number + 1}" if start + PAGE < total else None
        return web.json_response({"count": total, "next": following, "previous": None, "results": results})

    api.routes[("GET", path)] = handler


def course(number: int) -> dict[str, Any]:
    return {"content_type": "course", "key": f"edX+C{number}", "title": f"Course {number}"}


DEFERRED = (THRESHOLDS[0], THRESHOLDS[1], OUT_OF_REACH)


async def test_to_list_defers_only_the_full_passes_while_it_gathers(api: ScriptedAPI) -> None:
    seen: list[tuple[int, ...]] = []
    serve_catalogs(api, CATALOGS, 30, seen=seen)
    async with api.client() as client:
        items = await client.catalogs.list().to_list(page_size=PAGE)
    assert len(items) == 30
    assert seen == [DEFERRED] * 6
    assert gc.get_threshold() == THRESHOLDS


async def test_the_thresholds_come_back_when_the_listing_fails(api: ScriptedAPI) -> None:
    seen: list[tuple[int, ...]] = []
    serve_catalogs(api, CATALOGS, 30, seen=seen, failing_page=3)
    async with api.client(max_retries=0) as client:
        with pytest.raises(IncompleteListingError):
            await client.catalogs.list().to_list(page_size=PAGE)
    assert DEFERRED in seen
    assert gc.get_threshold() == THRESHOLDS


async def test_the_thresholds_come_back_when_the_listing_is_cancelled(api: ScriptedAPI) -> None:
    seen: list[tuple[int, ...]] = []
    started = asyncio.Event()
    serve_catalogs(api, CATALOGS, 30, seen=seen, latency=10, on_page={1: started.set})
    async with api.client() as client:
        listing = asyncio.ensure_future(client.catalogs.list().to_list(page_size=PAGE))
        await started.wait()
        assert gc.get_threshold() == DEFERRED
        listing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await listing
    assert gc.get_threshold() == THRESHOLDS


async def test_the_full_passes_wait_until_the_last_of_concurrent_listings_ends(api: ScriptedAPI) -> None:
    quick: list[tuple[int, ...]] = []
    slow: list[tuple[int, ...]] = []
    serve_catalogs(api, CATALOGS, 5, seen=quick)
    started = asyncio.Event()
    serve_catalogs(api, CONTENTS, 30, seen=slow, latency=0.05, item=course, on_page={1: started.set})
    async with api.client(max_concurrency=1) as client:
        long_listing = asyncio.ensure_future(client.catalogs.contents(CATALOG).to_list(page_size=PAGE))
        await started.wait()
        assert len(await client.catalogs.list().to_list(page_size=PAGE)) == 5
        assert gc.get_threshold() == DEFERRED  # the slow listing still gathers
        assert len(await long_listing) == 30
    assert quick == [DEFERRED]
    assert set(slow) == {DEFERRED}
    assert gc.get_threshold() == THRESHOLDS


async def test_thresholds_a_caller_sets_while_a_listing_gathers_are_kept(api: ScriptedAPI) -> None:
    seen: list[tuple[int, ...]] = []
    serve_catalogs(api, CATALOGS, 30, seen=seen, on_page={3: lambda: gc.set_threshold(500, 5, 5)})
    async with api.client(max_concurrency=1) as client:
        await client.catalogs.list().to_list(page_size=PAGE)
    assert gc.get_threshold() == (500, 5, 5)


async def test_defer_full_collections_false_leaves_the_collector_alone(api: ScriptedAPI) -> None:
    seen: list[tuple[int, ...]] = []
    serve_catalogs(api, CATALOGS, 30, seen=seen)
    async with api.client() as client:
        items = await client.catalogs.list().to_list(page_size=PAGE, defer_full_collections=False)
    assert len(items) == 30
    assert set(seen) == {THRESHOLDS}


async def test_streaming_a_listing_leaves_the_collector_alone(api: ScriptedAPI) -> None:
    seen: list[tuple[int, ...]] = []
    serve_catalogs(api, CATALOGS, 30, seen=seen)
    async with api.client() as client:
        uuids = [catalog.uuid async for catalog in client.catalogs.list(page_size=PAGE)]
    assert len(uuids) == 30
    assert set(seen) == {THRESHOLDS}
