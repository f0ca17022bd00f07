"""Retries: GETs on connection errors, timeouts, 429 and 5xx; a POST only on 429 or when it
provably never left. Backoff grows, honours Retry-After, and is capped."""

from __future__ import annotations

import asyncio
import email.utils
import time

import aiohttp
import pytest
from aiohttp import web
from aioresponses import aioresponses
from yarl import URL

from enterprise_async import APIConnectionError, APITimeoutError, RateLimitError, ServerError
from enterprise_async._utils.constants import INITIAL_RETRY_DELAY, MAX_RETRY_AFTER, MAX_RETRY_DELAY
from enterprise_async.models import AllocationResult
from tests.conftest import Backoffs, ScriptedAPI
from tests.fixtures import json_fixture

POLICY = "c3a1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
ALLOCATE = f"/enterprise/v1/policy-allocation/{POLICY}/allocate/"
CATALOGS = "/enterprise/v2/enterprise-catalogs"
PAGE = {"count": 0, "next": None, "previous": None, "results": []}


Failure = tuple[int, dict[str, str]]


def failing_then(
    api: ScriptedAPI, method: str, path: str, failures: list[Failure], body: object, status: int = 200
) -> None:
    """The first calls answer the ``failures`` (status, headers) in turn, the next ones succeed."""
    remaining = list(failures)

    async def handler(request: web.Request) -> web.StreamResponse:
        if remaining:
            failure_status, headers = remaining.pop(0)
            return web.json_response(
                {"detail": f"status {failure_status}"}, status=failure_status, headers=headers
            )
        return web.json_response(body, status=status)

    api.routes[(method, path)] = handler


def error(status: int, **headers: str) -> Failure:
    return status, headers


async def allocate(client: object) -> AllocationResult:
    return await client.policies.allocate(  # type: ignore[attr-defined, no-any-return]
        POLICY, learner_emails=["ada@acme.example"], content_key="HarvardX+CS50", content_price_cents=0
    )


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_get_is_retried_on_5xx(api: ScriptedAPI, no_sleep: Backoffs, status: int) -> None:
    failing_then(api, "GET", CATALOGS, [error(status)], PAGE)
    async with api.client(retry=no_sleep.policy) as client:
        await client.catalogs.list().to_list()
    assert len(api.calls("GET", CATALOGS)) == 2
    assert len(no_sleep) == 1


async def test_get_gives_up_after_max_retries(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    failing_then(api, "GET", CATALOGS, [error(503)] * 5, PAGE)
    async with api.client(retry=no_sleep.policy, max_retries=3) as client:
        with pytest.raises(ServerError):
            await client.catalogs.list().to_list()
    assert len(api.calls("GET", CATALOGS)) == 4


async def test_no_retry_with_max_retries_zero(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    failing_then(api, "GET", CATALOGS, [error(503)], PAGE)
    async with api.client(retry=no_sleep.policy, max_retries=0) as client:
        with pytest.raises(ServerError):
            await client.catalogs.list().to_list()
    assert no_sleep == []


async def test_backoff_doubles_with_jitter_up_to_the_cap(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    failing_then(api, "GET", CATALOGS, [error(503)] * 8, PAGE)
    async with api.client(retry=no_sleep.policy, max_retries=8) as client:
        await client.catalogs.list().to_list()
    for attempt, delay in enumerate(no_sleep):
        ceiling = min(MAX_RETRY_DELAY, INITIAL_RETRY_DELAY * 2**attempt)
        assert ceiling / 2 <= delay <= ceiling


async def test_429_honours_retry_after_in_seconds(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    failing_then(api, "GET", CATALOGS, [error(429, **{"Retry-After": "7"})], PAGE)
    async with api.client(retry=no_sleep.policy) as client:
        await client.catalogs.list().to_list()
    assert no_sleep == [7.0]


async def test_429_honours_retry_after_as_an_http_date(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    failing_then(api, "GET", CATALOGS, [error(429, **{"Retry-After": later})], PAGE)
    async with api.client(retry=no_sleep.policy) as client:
        await client.catalogs.list().to_list()
    assert 25 <= no_sleep[0] <= 31


async def test_retry_after_is_capped(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    failing_then(api, "GET", CATALOGS, [error(429, **{"Retry-After": "86400"})], PAGE)
    async with api.client(retry=no_sleep.policy) as client:
        await client.catalogs.list().to_list()
    assert no_sleep == [MAX_RETRY_AFTER]


async def test_a_429_that_persists_raises_rate_limit_error_with_retry_after(
    api: ScriptedAPI, no_sleep: Backoffs
) -> None:
    failing_then(api, "GET", CATALOGS, [error(429, **{"Retry-After": "3"})] * 3, PAGE)
    async with api.client(retry=no_sleep.policy, max_retries=2) as client:
        with pytest.raises(RateLimitError) as caught:
            await client.catalogs.list().to_list()
    assert caught.value.retry_after == 3.0


async def test_post_is_retried_on_429(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    failing_then(
        api, "POST", ALLOCATE, [error(429, **{"Retry-After": "1"})], json_fixture("allocation_result"), 202
    )
    async with api.client(retry=no_sleep.policy) as client:
        await allocate(client)
    assert len(api.calls("POST", ALLOCATE)) == 2


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_post_is_never_retried_on_5xx(api: ScriptedAPI, no_sleep: Backoffs, status: int) -> None:
    failing_then(api, "POST", ALLOCATE, [error(status)], json_fixture("allocation_result"), 202)
    async with api.client(retry=no_sleep.policy) as client:
        with pytest.raises(ServerError):
            await allocate(client)
    assert len(api.calls("POST", ALLOCATE)) == 1


SLOW_TIMEOUT = 1.0
"""The timeout of the slow-then-fast tests: the first answer is held past it, until the test ends;
the second, a loopback answer of a few milliseconds, has a second, room for a loaded machine."""


def slow_then_fast(
    api: ScriptedAPI, method: str, path: str, body: object, status: int = 200
) -> asyncio.Event:
    """The first request is held until the returned event is set (the test sets it once the
    client gave up on it); the next ones are answered at once."""
    calls = []
    released = asyncio.Event()

    async def handler(request: web.Request) -> web.StreamResponse:
        calls.append(request)
        if len(calls) == 1:
            await released.wait()
        return web.json_response(body, status=status)

    api.routes[(method, path)] = handler
    return released


async def test_get_is_retried_after_a_timeout(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    released = slow_then_fast(api, "GET", CATALOGS, PAGE)
    async with api.client(retry=no_sleep.policy, timeout=SLOW_TIMEOUT) as client:
        await client.catalogs.list().to_list()
    released.set()
    assert len(api.calls("GET", CATALOGS)) == 2


async def test_post_is_not_retried_after_a_timeout(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    released = slow_then_fast(api, "POST", ALLOCATE, json_fixture("allocation_result"), 202)
    async with api.client(retry=no_sleep.policy, timeout=SLOW_TIMEOUT) as client:
        with pytest.raises(APITimeoutError):
            await allocate(client)
    released.set()
    assert len(api.calls("POST", ALLOCATE)) == 1


def dropping_then(api: ScriptedAPI, method: str, path: str, body: object, status: int = 200) -> None:
    calls = []

    async def handler(request: web.Request) -> web.StreamResponse:
        calls.append(request)
        if len(calls) == 1:
            assert request.transport is not None
            request.transport.close()
            await asyncio.sleep(0.05)
        return web.json_response(body, status=status)

    api.routes[(method, path)] = handler


async def test_get_is_retried_after_a_dropped_connection(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    dropping_then(api, "GET", CATALOGS, PAGE)
    async with api.client(retry=no_sleep.policy) as client:
        await client.catalogs.list().to_list()
    assert len(api.calls("GET", CATALOGS)) == 2


async def test_post_is_not_retried_after_a_dropped_connection(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    dropping_then(api, "POST", ALLOCATE, json_fixture("allocation_result"), 202)
    async with api.client(retry=no_sleep.policy) as client:
        with pytest.raises(APIConnectionError):
            await allocate(client)
    assert len(api.calls("POST", ALLOCATE)) == 1


def refused() -> aiohttp.ClientConnectorError:
    key = aiohttp.client_reqrep.ConnectionKey("api.example.test", 443, True, True, None, None, None)
    return aiohttp.ClientConnectorError(key, ConnectionRefusedError(111, "Connection refused"))


async def test_post_is_retried_when_the_connection_was_refused(
    no_sleep: Backoffs, mocked_aiohttp: aioresponses
) -> None:
    mocked = mocked_aiohttp
    from enterprise_async import EnterpriseClient

    base = "https://api.example.test"
    mocked.post(f"{base}/oauth2/v1/access_token", payload={"access_token": "t", "expires_in": "60"})
    mocked.post(f"{base}{ALLOCATE}", exception=refused())
    mocked.post(f"{base}{ALLOCATE}", status=202, payload=json_fixture("allocation_result"))
    async with EnterpriseClient(
        retry=no_sleep.policy, client_id="id", client_secret="secret", base_url=base
    ) as client:
        result = await allocate(client)
    attempts = mocked.requests[("POST", URL(f"{base}{ALLOCATE}"))]
    assert len(result.created) == 1
    assert len(attempts) == 2


async def test_a_refused_connection_that_persists_raises_api_connection_error(
    no_sleep: Backoffs, mocked_aiohttp: aioresponses
) -> None:
    mocked = mocked_aiohttp
    from enterprise_async import EnterpriseClient

    base = "https://api.example.test"
    mocked.post(f"{base}/oauth2/v1/access_token", payload={"access_token": "t", "expires_in": "60"})
    for _ in range(3):
        mocked.post(f"{base}{ALLOCATE}", exception=refused())
    async with EnterpriseClient(
        client_id="id", client_secret="secret", base_url=base, max_retries=2
    ) as client:
        with pytest.raises(APIConnectionError) as caught:
            await allocate(client)
    assert not isinstance(caught.value, APITimeoutError)
    assert f"POST {base}{ALLOCATE}" in str(caught.value)


async def test_stats_count_requests_retries_and_faults(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    failing_then(api, "GET", CATALOGS, [error(503), error(429)], PAGE)
    async with api.client(retry=no_sleep.policy) as client:
        await client.catalogs.list().to_list()
        assert client.stats.retries == 2
        assert client.stats.faults == {"503": 1, "429": 1}
        assert client.stats.requests == 4  # token + three attempts


@pytest.mark.parametrize(
    ("header", "expected"),
    [(None, None), ("", None), ("5", 5.0), ("2.5", 2.5), ("-3", 0.0), ("soon", None)],
)
async def test_a_rate_limit_error_tells_the_wait_its_retry_after_asks_for(
    api: ScriptedAPI, header: str | None, expected: float | None
) -> None:
    failing_then(
        api, "GET", CATALOGS, [error(429) if header is None else error(429, **{"Retry-After": header})], PAGE
    )
    async with api.client(max_retries=0) as client:
        with pytest.raises(RateLimitError) as caught:
            await client.catalogs.list().first_page()
    assert caught.value.retry_after == expected
