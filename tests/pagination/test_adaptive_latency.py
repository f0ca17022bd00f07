"""``max_concurrency="auto"`` judges latency only against its own concurrency: latency that grows
with the page asked for leaves the limit alone, latency that grows with the requests in flight
brings it down, and 429s still halve it whatever the latency.

The sandbox answers through a loopback front (``tests/latency_front.py``) that shapes the latency;
the assertions are on the limit and on the requests in flight (counted by a middleware), never on
seconds.
"""

from __future__ import annotations

import asyncio
import statistics
from typing import Any

from enterprise_async._request.options import ClientOptions
from enterprise_async.testing import DataSize, Fault, Sandbox
from tests.conftest import InFlight
from tests.latency_front import Crowded, LatencyFront, PageDepth

CATALOGS = "/enterprise/v2/enterprise-catalogs"
PAGES = 160
"""Pages of one item each: the last takes 5 ms + 159 ms, 32 times the first."""
AUTO = ClientOptions(max_concurrency="auto", concurrency_bounds=(1, 32))


def catalog_of(pages: int) -> Sandbox:
    return Sandbox(size=DataSize(customers=1, catalogs_per_customer=1, catalog_items=pages), log_limit=0)


async def read_catalog(client: Any, sandbox: Sandbox) -> int:
    contents = client.catalogs.contents(sandbox.data.catalogs[0].uuid, page_size=1)
    return len(await contents.to_list())


class Limits:
    """A middleware noting the limit each attempt is sent under, in order."""

    def __init__(self) -> None:
        self.seen: list[int] = []
        self.client: Any = None

    async def __call__(self, request: Any, send: Any) -> Any:
        self.seen.append(self.client.concurrency.limit)
        return await send(request)


async def test_latency_that_grows_with_the_page_leaves_the_limit_alone() -> None:
    counted = InFlight()
    async with (
        catalog_of(PAGES) as sandbox,
        LatencyFront(sandbox, PageDepth(first=0.005, per_page=0.001)) as front,
        front.client(options=AUTO, middleware=[counted]) as client,
    ):
        assert await read_catalog(client, sandbox) == PAGES
        # A loaded machine's own queue (this process serves and reads) may cost one halving at 32.
        assert client.concurrency.decreases <= 1
        assert client.concurrency.limit >= 16
        assert counted.most >= 24  # the listing reads ahead 32 pages; the limit let most out


async def test_latency_that_grows_with_requests_in_flight_brings_the_limit_down() -> None:
    limits = Limits()
    async with (
        catalog_of(1) as sandbox,
        LatencyFront(sandbox, Crowded(per_request=0.025)) as front,
        front.client(options=AUTO.evolve(concurrency_bounds=(1, 8)), middleware=[limits]) as client,
    ):
        limits.client = client
        await asyncio.gather(*(client.catalogs.list().first_page() for _ in range(200)))
        assert client.concurrency.decreases >= 1  # a queue at 8, seen by two probes in a row
        assert min(limits.seen) <= 4  # down to where fewer in flight no longer answer faster
        assert statistics.median(limits.seen[len(limits.seen) // 2 :]) < 8  # and mostly below 8


async def test_a_latency_climb_at_the_same_concurrency_is_no_congestion() -> None:
    async with Sandbox() as sandbox, sandbox.client(options=AUTO) as client:
        for _ in range(12):
            await client.catalogs.list().first_page()
        sandbox.faults.inject(CATALOGS, Fault.latency(0.1), times=None)
        for _ in range(10):  # one at a time: far slower, and not for anything the client did
            await client.catalogs.list().first_page()
        assert client.concurrency.decreases == 0
        assert client.concurrency.limit >= 8


async def test_429s_still_halve_the_limit_when_latency_grows_with_the_page(no_sleep: list[float]) -> None:
    async with (
        catalog_of(PAGES) as sandbox,
        LatencyFront(sandbox, PageDepth(first=0.005, per_page=0.001)) as front,
        front.client(options=AUTO) as client,
    ):
        sandbox.faults.inject(f"{CATALOGS}/*", Fault.rate_limited(0), times=1, skip=60)
        assert await read_catalog(client, sandbox) == PAGES
        assert client.concurrency.decreases >= 1
        assert client.concurrency.limit < 32
