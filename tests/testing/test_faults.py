"""Faults on demand: each kind, matching by pattern and count, and the seeded random mode."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import orjson
import pytest

from enterprise_async.testing import Fault, Sandbox

from .conftest import RawAPI

CATALOGS = "/enterprise/v2/enterprise-catalogs"


async def test_rate_limit_fault_answers_429_with_retry_after(api: RawAPI, sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.rate_limited(retry_after=2))
    answer = await api.get(CATALOGS)
    assert answer.status == 429
    assert answer.headers["Retry-After"] == "2"
    assert "throttled" in answer.data["detail"]


async def test_fault_fires_the_given_number_of_times(api: RawAPI, sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.server_error(503), times=2)
    statuses = [(await api.get(CATALOGS)).status for _ in range(3)]
    assert statuses == [503, 503, 200]
    assert sandbox.faults.fired["503"] == 2


async def test_fault_can_let_requests_through_before_firing(api: RawAPI, sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.server_error(500), skip=1)
    statuses = [(await api.get(CATALOGS)).status for _ in range(3)]
    assert statuses == [200, 500, 200]


async def test_fault_matches_a_glob_pattern_and_method(api: RawAPI, sandbox: Sandbox) -> None:
    sandbox.faults.inject("/enterprise/v2/*", Fault.server_error(502), times=None, method="GET")
    assert (await api.get(CATALOGS)).status == 502
    assert (await api.get(f"{CATALOGS}/{sandbox.data.catalogs[0].uuid}")).status == 502
    assert (await api.get("/enterprise/v1/subscriptions")).status == 200


async def test_gateway_errors_come_as_html(api: RawAPI, sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.server_error(502))
    answer = await api.get(CATALOGS)
    assert answer.headers["Content-Type"].startswith("text/html")
    assert "502 Bad Gateway" in answer.data


async def test_server_error_500_comes_in_the_negotiated_format(api: RawAPI, sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.server_error(500))
    answer = await api.get(CATALOGS, accept="application/xml")
    assert answer.status == 500
    assert answer.data == {"detail": "A server error occurred."}


async def test_fault_happens_before_authentication(api: RawAPI, sandbox: Sandbox) -> None:
    sandbox.faults.inject(CATALOGS, Fault.rate_limited())
    assert (await api.get(CATALOGS, authenticated=False)).status == 429


async def test_latency_delays_a_normal_answer(api: RawAPI, sandbox: Sandbox) -> None:
    await api.fresh_token()
    sandbox.faults.inject(CATALOGS, Fault.latency(0.2))
    started = time.perf_counter()
    answer = await api.get(CATALOGS)
    assert answer.status == 200
    assert time.perf_counter() - started >= 0.2


async def test_dropped_connection_gives_no_response(api: RawAPI, sandbox: Sandbox) -> None:
    # Twice: aiohttp resends an idempotent request once when its connection drops unanswered.
    await api.fresh_token()
    sandbox.faults.inject(CATALOGS, Fault.drop(), times=2)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await api.get(CATALOGS)
    assert (await api.get(CATALOGS)).status == 200
    assert [entry.status for entry in sandbox.requests.find("GET", CATALOGS)] == [None, None, 200]


async def test_dropped_post_is_not_resent_by_aiohttp(api: RawAPI, sandbox: Sandbox) -> None:
    await api.fresh_token()
    plan = sandbox.data.plans[0].uuid
    sandbox.faults.inject("*/licenses/assign", Fault.drop())
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await api.post(
            f"/enterprise/v1/subscriptions/{plan}/licenses/assign", json={"user_emails": ["a@example.com"]}
        )
    assert len(sandbox.requests.find("POST", "/enterprise/v1/subscriptions/*")) == 1


async def test_malformed_body_does_not_parse(api: RawAPI, sandbox: Sandbox) -> None:
    await api.fresh_token()
    sandbox.faults.inject(CATALOGS, Fault.malformed())
    answer = await api.get(CATALOGS)
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "application/json"
    with pytest.raises(orjson.JSONDecodeError):
        _ = answer.data


async def test_truncated_body_ends_the_connection_early(api: RawAPI, sandbox: Sandbox) -> None:
    await api.fresh_token()
    sandbox.faults.inject(CATALOGS, Fault.truncated())
    with pytest.raises(aiohttp.ClientPayloadError):
        await api.get(CATALOGS)


SLOW_BODY = 1.0
"""Seconds a slow answer holds its body after its headers."""


async def test_slow_response_sends_headers_first_and_the_body_late(sandbox: Sandbox) -> None:
    async with aiohttp.ClientSession() as session:
        api = RawAPI(sandbox, session)
        await api.fresh_token()
        sandbox.faults.inject(CATALOGS, Fault.slow(SLOW_BODY))
        headers = {"Authorization": f"JWT {api.token}", "Accept": "application/json"}
        started = time.perf_counter()
        async with session.get(sandbox.base_url + CATALOGS, headers=headers) as response:
            headers_after = time.perf_counter() - started
            body = await response.json()
        # The headers come at once and the body SLOW_BODY later: only a machine that stalls this
        # process for the whole of SLOW_BODY could read the headers that late.
        assert headers_after < SLOW_BODY
        assert time.perf_counter() - started >= SLOW_BODY  # a sleep never ends early
        assert body["count"] == 6


async def test_slow_response_trips_a_client_timeout(api: RawAPI, sandbox: Sandbox) -> None:
    await api.fresh_token()
    sandbox.faults.inject(CATALOGS, Fault.slow(1.0))
    headers = {"Authorization": f"JWT {api.token}", "Accept": "application/json"}
    with pytest.raises(asyncio.TimeoutError):
        async with api.session.get(
            sandbox.base_url + CATALOGS, headers=headers, timeout=aiohttp.ClientTimeout(total=0.2)
        ) as response:
            await response.read()


async def test_random_mode_is_repeatable_for_a_seed(session: aiohttp.ClientSession) -> None:
    async def statuses() -> list[int]:
        async with Sandbox() as sandbox:
            api = RawAPI(sandbox, session)
            await api.fresh_token()
            sandbox.faults.random(0.5, seed=11, faults=[Fault.server_error(503), Fault.rate_limited(0)])
            return [(await api.get(CATALOGS)).status for _ in range(30)]

    first, second = await statuses(), await statuses()
    assert first == second
    assert {200, 503, 429} == set(first)


async def test_random_mode_leaves_unmatched_paths_alone(api: RawAPI, sandbox: Sandbox) -> None:
    await api.fresh_token()
    sandbox.faults.random(1.0, faults=[Fault.server_error(500)], pattern="/enterprise/v1/*")
    assert (await api.get(CATALOGS)).status == 200
    assert (await api.get("/enterprise/v1/subscriptions")).status == 500


async def test_clear_removes_rules_and_random_mode(api: RawAPI, sandbox: Sandbox) -> None:
    await api.fresh_token()
    sandbox.faults.inject(CATALOGS, Fault.server_error(500), times=None)
    sandbox.faults.random(1.0, faults=[Fault.server_error(503)])
    sandbox.faults.clear()
    assert (await api.get(CATALOGS)).status == 200


def test_server_error_must_be_a_5xx() -> None:
    with pytest.raises(ValueError, match="5xx"):
        Fault.server_error(404)


def test_random_rate_must_be_a_share() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        Sandbox().faults.random(1.5)
