"""``max_concurrency="auto"`` judges latency only against its own concurrency: latency that grows
with the page asked for leaves the limit alone, latency that grows with the requests in flight
brings it down, and 429s still halve it whatever the latency.

The latency tests drive the limit on virtual time (``tests/transport/virtual_time.py``) through a simulated
server whose latency is a function of what the test controls, the page asked for or the requests
it holds: what the limit hears is exactly that latency, never a loaded machine's queue, so each
figure is the same on every run. (The same shapes across a real loopback, with seconds measured,
are benchmark B12's.) The other tests go through a sandbox; what they assert does not depend on
how long anything took.
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Callable, Coroutine
from typing import Any

from enterprise_async._request.options import ClientOptions
from enterprise_async._transport.adaptive import AdaptiveConcurrency
from enterprise_async.testing import DataSize, Fault, Sandbox
from tests.transport.latency_front import LatencyFront, PageDepth
from tests.transport.virtual_time import run_on_virtual_time

CATALOGS = "/enterprise/v2/enterprise-catalogs"
PAGES = 160
"""Pages of one item each: the last takes 5 ms + 159 ms, 32 times the first."""
READ_AHEAD = 32
"""Pages a listing asks for ahead of the one it hands out (the pager's read-ahead)."""
AUTO = ClientOptions(max_concurrency="auto", concurrency_bounds=(1, 32))
OPERATION = "catalogs.contents"


def catalog_of(pages: int) -> Sandbox:
    return Sandbox(size=DataSize(customers=1, catalogs_per_customer=1, catalog_items=pages), log_limit=0)


async def read_catalog(client: Any, sandbox: Sandbox) -> int:
    contents = client.catalogs.contents(sandbox.data.catalogs[0].uuid, page_size=1)
    return len(await contents.to_list())


class SimulatedServer:
    """Answers each attempt after ``latency(page, holding)`` seconds of the loop's time, ``holding``
    being the attempts it holds when this one arrives, itself included; the attempt passes the
    limit as the transport's ``admitted`` does (enter, exchange, leave, then observe)."""

    def __init__(self, limit: AdaptiveConcurrency, latency: Callable[[int, int], float]) -> None:
        self.limit = limit
        self.latency = latency
        self.holding = 0
        self.most_holding = 0
        self.limits_sent_under: list[int] = []

    async def attempt(self, page: int) -> None:
        ticket = self.limit.enter_now() or await self.limit.enter()
        self.limits_sent_under.append(self.limit.limit)
        loop = asyncio.get_running_loop()
        sent_at = loop.time()
        self.holding += 1
        self.most_holding = max(self.most_holding, self.holding)
        try:
            await asyncio.sleep(self.latency(page, self.holding))
        finally:
            self.holding -= 1
            self.limit.leave()
        await self.limit.observe(ticket, 200, loop.time() - sent_at, OPERATION)


def on_virtual_time(work: Coroutine[Any, Any, None]) -> None:
    run_on_virtual_time(work)


async def read_pages(server: SimulatedServer, pages: int) -> None:
    """A listing: page after page, ``READ_AHEAD`` of them asked for at once."""
    ahead = asyncio.Semaphore(READ_AHEAD)

    async def page(number: int) -> None:
        async with ahead:
            await server.attempt(number)

    await asyncio.gather(*(page(number) for number in range(1, pages + 1)))


def page_depth(first: float, per_page: float) -> Callable[[int, int], float]:
    """A deep page costs more (an offset scan), however many are in flight."""
    return lambda page, _holding: first + per_page * (page - 1)


def crowded(per_request: float) -> Callable[[int, int], float]:
    """A server whose capacity is spent: twice as many in flight, twice as slow."""
    return lambda _page, holding: per_request * holding


def test_latency_that_grows_with_the_page_leaves_the_limit_alone() -> None:
    limit = AdaptiveConcurrency(AUTO.concurrency_bounds)
    server = SimulatedServer(limit, page_depth(first=0.005, per_page=0.001))
    on_virtual_time(read_pages(server, PAGES))
    assert len(server.limits_sent_under) == PAGES
    assert limit.probes >= 1  # the limit reached the top and its latency was judged
    assert limit.decreases == 0
    assert limit.limit == 32
    assert server.most_holding == READ_AHEAD  # the limit let the whole read-ahead out


def test_latency_that_grows_with_requests_in_flight_brings_the_limit_down() -> None:
    limit = AdaptiveConcurrency((1, 8))
    server = SimulatedServer(limit, crowded(per_request=0.025))

    async def first_pages() -> None:
        await asyncio.gather(*(server.attempt(1) for _ in range(200)))

    on_virtual_time(first_pages())
    seen = server.limits_sent_under
    assert limit.decreases >= 1  # a queue at 8, seen by two probes in a row
    assert min(seen) <= 4  # down to where fewer in flight no longer answer faster
    assert statistics.median(seen[len(seen) // 2 :]) < 8  # and mostly below 8


def test_a_simulated_read_hears_the_same_every_time() -> None:
    """The figures above are the simulation's, not the machine's: two runs hear the same."""
    runs = []
    for _ in range(2):
        limit = AdaptiveConcurrency(AUTO.concurrency_bounds)
        server = SimulatedServer(limit, crowded(per_request=0.025))
        on_virtual_time(read_pages(server, PAGES))
        runs.append((server.limits_sent_under, limit.decreases, limit.probes))
    assert runs[0] == runs[1]


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
