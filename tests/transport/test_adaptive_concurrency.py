"""``max_concurrency="auto"``: the limit grows while answers are healthy, halves on a 429, a 5xx or
no answer, never leaves its bounds, and is one limit for a client and its views (what latency does
to it: ``test_adaptive_latency.py``).

Requests in flight are counted by a middleware of the test (every attempt passes it while on the
wire), not taken from the limiter's word; no test looks at the clock.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from enterprise_async import ClientValidationError, NotFoundError, RateLimiter, RateLimitError
from enterprise_async._request.options import ClientOptions
from enterprise_async._transport.middleware import OutgoingRequest
from enterprise_async.testing import Fault, Sandbox
from tests.conftest import Backoffs, InFlight

CATALOGS = "/enterprise/v2/enterprise-catalogs"
UNKNOWN_CATALOG = "00000000-0000-4000-8000-000000000000"
SLOW = 0.2
"""Seconds every answer takes in tests that need requests to overlap (no latency climb: the same for all)."""


class Together:
    """A middleware holding attempts, once armed, until ``count`` of them are in flight, then
    sending them all (before it is armed, attempts pass)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.armed = False
        self.arrived = 0
        self.all_in = asyncio.Event()

    async def __call__(self, request: OutgoingRequest, send: Any) -> Any:
        if not self.armed:
            return await send(request)
        self.arrived += 1
        if self.arrived >= self.count:
            self.all_in.set()
        await self.all_in.wait()
        return await send(request)


async def first_pages(client: Any, calls: int) -> None:
    await asyncio.gather(*(client.catalogs.list().first_page() for _ in range(calls)))


async def sequential_pages(client: Any, calls: int) -> None:
    for _ in range(calls):
        await client.catalogs.list().first_page()


def answered(sandbox: Sandbox, status: int) -> list[Any]:
    return [entry for entry in sandbox.requests.find(path=CATALOGS) if entry.status == status]


def auto(bounds: tuple[int, int] = (1, 32), **changes: Any) -> ClientOptions:
    return ClientOptions(max_concurrency="auto", concurrency_bounds=bounds, **changes)


async def test_auto_starts_at_the_default_and_grows_while_answers_are_healthy() -> None:
    counted = InFlight()
    async with Sandbox() as sandbox, sandbox.client(options=auto(), middleware=[counted]) as client:
        assert client.concurrency.limit == 8
        sandbox.faults.inject(CATALOGS, Fault.latency(SLOW), times=None)
        await first_pages(client, 120)
        assert client.concurrency.limit > 8
        assert counted.most > 8
        assert client.concurrency.decreases == 0


async def test_a_fixed_bound_never_grows() -> None:
    counted = InFlight()
    async with Sandbox() as sandbox, sandbox.client(max_concurrency=8, middleware=[counted]) as client:
        sandbox.faults.inject(CATALOGS, Fault.latency(SLOW), times=None)
        await first_pages(client, 40)
        assert (client.concurrency.limit, counted.most) == (8, 8)


async def test_a_429_halves_the_limit(no_sleep: Backoffs) -> None:
    async with Sandbox() as sandbox, sandbox.client(options=auto(retry=no_sleep.policy)) as client:
        sandbox.faults.inject(CATALOGS, Fault.rate_limited(0), times=1)
        assert (await client.catalogs.list().first_page()).results
        assert client.concurrency.limit == 4


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_a_5xx_halves_the_limit(no_sleep: Backoffs, status: int) -> None:
    async with Sandbox() as sandbox, sandbox.client(options=auto(retry=no_sleep.policy)) as client:
        sandbox.faults.inject(CATALOGS, Fault.server_error(status), times=1)
        assert (await client.catalogs.list().first_page()).results
        assert client.concurrency.limit == 4


async def test_an_attempt_without_an_answer_halves_the_limit(no_sleep: Backoffs) -> None:
    async with Sandbox() as sandbox, sandbox.client(options=auto(retry=no_sleep.policy)) as client:
        sandbox.faults.inject(CATALOGS, Fault.drop(), times=2)  # aiohttp resends a GET once
        assert (await client.catalogs.list().first_page()).results
        assert client.concurrency.limit == 4


async def test_a_client_error_is_no_sign_of_overload() -> None:
    async with Sandbox() as sandbox, sandbox.client(options=auto(max_retries=0)) as client:
        await client.catalogs.list().first_page()
        with pytest.raises(NotFoundError):  # an unknown catalog is looked up before the permission check
            await client.catalogs.contents(UNKNOWN_CATALOG).first_page()
        assert (client.concurrency.limit, client.concurrency.decreases) == (8, 0)


async def test_429s_to_requests_sent_together_halve_the_limit_once() -> None:
    together = Together(8)
    async with (
        Sandbox() as sandbox,
        sandbox.client(options=auto(max_retries=0), middleware=[together]) as client,
    ):
        together.armed = True  # every attempt of the storm is in flight before any is answered
        sandbox.faults.inject(CATALOGS, Fault.rate_limited(0), times=8)
        calls = (client.catalogs.list().first_page() for _ in range(8))
        refused = await asyncio.gather(*calls, return_exceptions=True)
        assert all(isinstance(error, RateLimitError) for error in refused)
        assert client.concurrency.limit == 4
        assert client.concurrency.decreases == 1


async def test_growth_slows_where_the_last_overload_came(no_sleep: Backoffs) -> None:
    async with Sandbox() as sandbox, sandbox.client(options=auto(retry=no_sleep.policy)) as client:
        sandbox.faults.inject(CATALOGS, Fault.rate_limited(0), times=1)
        await client.catalogs.list().first_page()  # 429 at 8: halved to 4; its retry is 1 answer of 4
        await sequential_pages(client, 3 + 5 + 6)
        assert client.concurrency.limit == 7  # a round trip's answers per step, below 8
        await sequential_pages(client, 20)
        assert client.concurrency.limit == 7  # the step to 8: three round trips' answers (21)
        await sequential_pages(client, 1)
        assert client.concurrency.limit == 8


async def test_the_limit_never_grows_past_its_maximum() -> None:
    counted = InFlight()
    async with Sandbox() as sandbox, sandbox.client(options=auto((2, 10)), middleware=[counted]) as client:
        sandbox.faults.inject(CATALOGS, Fault.latency(SLOW), times=None)
        await first_pages(client, 100)
        assert client.concurrency.limit == 10
        assert counted.most == 10


async def test_the_limit_never_falls_below_its_minimum(no_sleep: Backoffs) -> None:
    async with (
        Sandbox() as sandbox,
        sandbox.client(options=auto((3, 10), max_retries=6, retry=no_sleep.policy)) as client,
    ):
        sandbox.faults.inject(CATALOGS, Fault.rate_limited(0), times=6)
        assert (await client.catalogs.list().first_page()).results  # six 429s in a row, each its own
        assert client.concurrency.decreases == 6
        assert client.concurrency.limit == 3


async def test_retry_after_is_still_honoured(no_sleep: Backoffs) -> None:
    async with Sandbox() as sandbox, sandbox.client(options=auto(retry=no_sleep.policy)) as client:
        sandbox.faults.inject(CATALOGS, Fault.rate_limited(3), times=1)
        assert (await client.catalogs.list().first_page()).results
        assert no_sleep == [3.0]


async def test_views_share_the_adaptive_limit_of_their_client(no_sleep: Backoffs) -> None:
    async with Sandbox() as sandbox, sandbox.client(options=auto(retry=no_sleep.policy)) as client:
        view = client.with_options(timeout=5, max_retries=3)
        assert view.concurrency is client.concurrency
        sandbox.faults.inject(CATALOGS, Fault.rate_limited(0), times=1)
        await view.catalogs.list().first_page()
        assert client.concurrency.limit == 4


async def test_a_view_with_a_fixed_bound_has_its_own() -> None:
    async with Sandbox() as sandbox, sandbox.client(options=auto()) as client:
        view = client.with_options(max_concurrency=2)
        assert view.concurrency is not client.concurrency
        assert (view.concurrency.limit, view.concurrency.adaptive) == (2, False)
        assert (await view.catalogs.list().first_page()).results


async def test_views_hold_requests_in_flight_within_the_one_limit() -> None:
    counted = InFlight()
    async with Sandbox() as sandbox, sandbox.client(options=auto((1, 4)), middleware=[counted]) as client:
        sandbox.faults.inject(CATALOGS, Fault.latency(SLOW), times=None)
        views = [client.with_options(timeout=10 + index, middleware=[counted]) for index in range(3)]
        await asyncio.gather(first_pages(client, 10), *(first_pages(view, 10) for view in views))
        assert counted.most == 4


async def test_clients_sharing_a_rate_limiter_adapt_one_limit(no_sleep: Backoffs) -> None:
    async with Sandbox() as sandbox, RateLimiter() as limiter:
        one = sandbox.client(
            options=auto(retry=no_sleep.policy), rate_limit="1000/second", rate_limiter=limiter
        )
        other = sandbox.client(
            options=auto(retry=no_sleep.policy), rate_limit="1000/second", rate_limiter=limiter
        )
        async with one, other:
            sandbox.faults.inject(CATALOGS, Fault.rate_limited(0), times=1)
            await one.catalogs.list().first_page()
            assert one.concurrency.limit == 4
            for _ in range(8):  # the other's next step of its own finds the shared limit halved
                await other.catalogs.list().first_page()
            assert other.concurrency.limit == 4
            assert other.concurrency.decreases == 0


async def test_a_listing_reads_ahead_as_far_as_the_limit_may_grow() -> None:
    async with Sandbox() as sandbox, sandbox.client(options=auto((1, 12))) as client:
        pager = client.catalogs.list()
        assert "window=12" in repr(pager)
        assert await pager.to_list()


def test_auto_options_travel_as_json() -> None:
    options = auto((2, 16))
    assert ClientOptions.from_json(options.to_json()) == options
    assert options.overrides() == {"max_concurrency": "auto", "concurrency_bounds": [2, 16]}
    assert ClientOptions().merged(options.overrides()) == options


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"max_concurrency": "fast"}, "max_concurrency"),
        ({"max_concurrency": "auto", "concurrency_bounds": [0, 8]}, "concurrency_bounds"),
        ({"max_concurrency": "auto", "concurrency_bounds": [9, 8]}, "concurrency_bounds"),
        ({"max_concurrency": "auto", "concurrency_bounds": [1, 8, 9]}, "concurrency_bounds"),
        ({"max_concurrency": "auto", "concurrency_bounds": "1-8"}, "concurrency_bounds"),
    ],
)
def test_bad_adaptive_settings_are_refused_by_name(data: dict[str, object], field: str) -> None:
    with pytest.raises(ClientValidationError) as refused:
        ClientOptions.from_json(data)
    assert refused.value.field == field


async def test_the_sandboxs_throttle_also_counts_and_refuses_slow_answers() -> None:
    async with Sandbox(rate_limit="3/minute") as sandbox, sandbox.client(max_retries=0) as client:
        sandbox.faults.inject(CATALOGS, Fault.latency(0.01), times=None)
        outcomes = await asyncio.gather(
            *(client.catalogs.list().first_page() for _ in range(5)), return_exceptions=True
        )
        assert sum(isinstance(outcome, RateLimitError) for outcome in outcomes) == 2
        assert sandbox.throttle is not None
        assert sandbox.throttle.throttled == 2


async def test_the_bounds_are_an_option_of_the_client_and_of_its_views() -> None:
    async with (
        Sandbox() as sandbox,
        sandbox.client(max_concurrency="auto", concurrency_bounds=(2, 16)) as client,
    ):
        assert client.concurrency.bounds == (2, 16)
        narrower = client.with_options(concurrency_bounds=(1, 4))
        assert narrower.concurrency is not client.concurrency
        assert (narrower.concurrency.bounds, narrower.concurrency.limit) == ((1, 4), 4)
        with pytest.raises(ClientValidationError, match="concurrency_bounds"):
            sandbox.client(max_concurrency="auto", concurrency_bounds=(0, 4))
