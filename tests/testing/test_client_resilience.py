"""The client against the sandbox's misbehaviours: token expiry, faults, gateways' links."""

from __future__ import annotations

import asyncio
import time

import pytest

from enterprise_async import (
    APIConnectionError,
    APITimeoutError,
    RateLimitError,
    ResponseDecodeError,
    ServerError,
)
from enterprise_async.testing import Fault, Sandbox

CATALOGS = "/enterprise/v2/enterprise-catalogs"


async def test_client_refreshes_once_after_tokens_expire(sandbox: Sandbox) -> None:
    async with sandbox.client() as client:
        await client.catalogs.list().to_list()
        sandbox.expire_tokens()
        catalogs = await client.catalogs.list().to_list()
    assert len(catalogs) == 6
    assert sandbox.tokens_issued == 2
    assert [entry.status for entry in sandbox.requests.find("GET", CATALOGS)] == [200, 401, 200]


async def test_client_reuses_a_two_second_token_for_most_of_its_life() -> None:
    async with Sandbox(token_lifetime=2.0) as sandbox, sandbox.client() as client:
        await client.catalogs.list().first_page()
        issued = time.monotonic()  # the token was issued before this
        calls = 1
        # Calls for the first half of the token's life (the client renews it at 90%): on a loaded
        # machine fewer of them, and only a stall of this task for 0.9 s could push one past 90%.
        while time.monotonic() < issued + 0.9:
            await client.catalogs.list().first_page()
            calls += 1
            await asyncio.sleep(0.1)
        assert sandbox.tokens_issued == 1
        assert calls >= 2
        await asyncio.sleep(max(0.0, issued + 2.0 - time.monotonic()))  # past its life: never early
        await client.catalogs.list().first_page()
        assert sandbox.tokens_issued == 2
        assert all(entry.status == 200 for entry in sandbox.requests.find("GET", CATALOGS))


async def test_concurrent_calls_share_one_token(sandbox: Sandbox) -> None:
    async with sandbox.client() as client:
        await asyncio.gather(*(client.catalogs.list().first_page() for _ in range(10)))
    assert sandbox.tokens_issued == 1


async def test_client_rides_out_server_errors_on_a_get(sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.server_error(503), times=2)
    async with sandbox.client(max_retries=2) as client:
        catalogs = await client.catalogs.list().to_list()
    assert len(catalogs) == 6
    assert sandbox.faults.fired["503"] == 2


async def test_client_gives_up_after_max_retries(sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.server_error(502), times=None)
    async with sandbox.client(max_retries=1) as client:
        with pytest.raises(ServerError) as raised:
            await client.catalogs.list().first_page()
    assert raised.value.status == 502
    assert len(sandbox.requests.find("GET", CATALOGS)) == 2


async def test_client_honours_retry_after(sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.rate_limited(retry_after=0.3))
    async with sandbox.client() as client:
        started = asyncio.get_running_loop().time()
        await client.catalogs.list().first_page()
        assert asyncio.get_running_loop().time() - started >= 0.3


async def test_rate_limit_on_every_try_raises_with_retry_after(sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.rate_limited(retry_after=0), times=None)
    async with sandbox.client(max_retries=1) as client:
        with pytest.raises(RateLimitError) as raised:
            await client.catalogs.list().first_page()
    assert raised.value.retry_after == 0


async def test_dropped_connections_become_a_connection_error(sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.drop(), times=None)
    async with sandbox.client(max_retries=1) as client:
        with pytest.raises(APIConnectionError):
            await client.catalogs.list().first_page()


async def test_a_dropped_post_is_not_sent_twice(sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[0].uuid
    sandbox.faults.inject("*/licenses/assign", Fault.drop())
    async with sandbox.client(max_retries=3) as client:
        with pytest.raises(APIConnectionError):
            await client.subscriptions.assign_licenses(plan, user_emails=["once@example.com"])
    assert len(sandbox.requests.find("POST", f"/enterprise/v1/subscriptions/{plan}/licenses/assign")) == 1


async def test_malformed_body_becomes_a_decode_error(sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.malformed())
    async with sandbox.client(response_format="xml") as client:
        with pytest.raises(ResponseDecodeError):
            await client.catalogs.list().first_page()


async def test_truncated_body_is_retried_on_a_get(sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.truncated())
    async with sandbox.client(max_retries=1) as client:
        page = await client.catalogs.list().first_page()
    assert page.count == 6


async def test_slow_response_becomes_a_timeout(sandbox: Sandbox) -> None:
    async with sandbox.client(max_retries=0) as client:
        # the token first, under the ample timeout: the short one is the slow answer's, not the
        # token request's on a loaded machine
        await client.catalogs.list().first_page()
        sandbox.faults.inject(CATALOGS, Fault.slow(1.0), times=None)  # five times the timeout
        with pytest.raises(APITimeoutError):
            await client.with_options(timeout=0.2).catalogs.list().first_page()
    assert sandbox.tokens_issued == 1


async def test_pager_follows_backend_links_against_the_base_url() -> None:
    backend = "http://backend.internal:8000"
    async with Sandbox(next_host=backend, page_sizes={"catalogs": 2}, profile="reference") as sandbox:
        async with sandbox.client() as client:
            catalogs = await client.catalogs.list().to_list()
        assert len(catalogs) == 6
        assert {entry.query_value("page") for entry in sandbox.requests.find("GET", CATALOGS)} == {
            None,
            "2",
            "3",
        }


async def test_soak_with_random_faults_still_lists_everything() -> None:
    async with Sandbox(page_sizes={"contents": 5}) as sandbox:
        sandbox.faults.random(0.15, seed=3, faults=[Fault.server_error(503), Fault.rate_limited(0)])
        async with sandbox.client(max_retries=6) as client:
            items = await client.catalogs.contents(sandbox.data.catalogs[0].uuid).to_list()
    assert len(items) == 45
    assert sum(sandbox.faults.fired.values()) > 0
