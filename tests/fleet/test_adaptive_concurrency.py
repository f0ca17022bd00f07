"""``max_concurrency="auto"`` across a fleet: the limit is kept on Redis next to the rate budget,
so every process drawing on the budget adapts one limit, and one 429 storm halves it once.

Each ``RateLimiter`` below has its own connections to a real redis-server, as each process of a
fleet has; a queued job's options bring ``"auto"`` to a worker's client.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio

from enterprise_async import RateLimiter, RateLimitError
from enterprise_async._request.options import ClientOptions
from enterprise_async._transport.rate_limit import budget_key
from enterprise_async.fleet._worker_clients import WorkerClients
from enterprise_async.testing import Fault, Sandbox
from tests.transport.test_adaptive_concurrency import Together

from ._fleet import sandbox_environment
from ._redis_server import RedisProcess

CATALOGS = "/enterprise/v2/enterprise-catalogs"
BUDGET = "1000/second"
AUTO = ClientOptions(max_concurrency="auto", max_retries=0)


async def kept_limit(url: str, client_id: str) -> tuple[int, int]:
    """The shared ``(limit, generation)`` on Redis."""
    key = budget_key(client_id).replace(":budget:", ":concurrency:")
    async with redis.asyncio.Redis.from_url(url) as connection:
        stored = await connection.hgetall(key)
    return int(stored[b"limit"]), int(stored[b"generation"])


def client_of(sandbox: Sandbox, limiter: RateLimiter, options: ClientOptions = AUTO, **settings: Any) -> Any:
    return sandbox.client(options=options, rate_limit=BUDGET, rate_limiter=limiter, **settings)


async def test_a_429_in_one_process_halves_the_limit_of_every_process(redis_url: str) -> None:
    async with (
        Sandbox() as sandbox,
        RateLimiter(redis_url) as mine,
        RateLimiter(redis_url) as theirs,
        client_of(sandbox, mine) as one,
        client_of(sandbox, theirs) as other,
    ):
        sandbox.faults.inject(CATALOGS, Fault.rate_limited(0), times=1)
        with pytest.raises(RateLimitError):
            await one.catalogs.list().first_page()
        assert one.concurrency.limit == 4
        assert await kept_limit(redis_url, sandbox.client_id) == (4, 1)
        for _ in range(8):  # the other process's next step of its own finds the limit halved
            await other.catalogs.list().first_page()
        assert (other.concurrency.limit, other.concurrency.decreases) == (4, 0)


async def test_429s_seen_by_two_processes_at_once_halve_the_shared_limit_once(redis_url: str) -> None:
    together = Together(8)  # every attempt of the storm is in flight before any is answered
    async with (
        Sandbox() as sandbox,
        RateLimiter(redis_url) as mine,
        RateLimiter(redis_url) as theirs,
        client_of(sandbox, mine, middleware=[together]) as one,
        client_of(sandbox, theirs, middleware=[together]) as other,
    ):
        await one.catalogs.list().first_page()  # a rate-limited client's first attempt goes alone
        await other.catalogs.list().first_page()
        together.armed = True
        sandbox.faults.inject(CATALOGS, Fault.rate_limited(0), times=8)
        calls = [client.catalogs.list().first_page() for client in (one, other) for _ in range(4)]
        refused = await asyncio.gather(*calls, return_exceptions=True)
        assert all(isinstance(error, RateLimitError) for error in refused)
        assert await kept_limit(redis_url, sandbox.client_id) == (4, 1)
        assert (one.concurrency.limit, other.concurrency.limit) == (4, 4)


async def test_growth_is_shared_and_stays_within_the_bounds(redis_url: str) -> None:
    bounded = AUTO.evolve(concurrency_bounds=(2, 9))
    async with (
        Sandbox() as sandbox,
        RateLimiter(redis_url) as mine,
        RateLimiter(redis_url) as theirs,
        client_of(sandbox, mine, bounded) as one,
        client_of(sandbox, theirs, bounded) as other,
    ):
        for _ in range(40):
            await one.catalogs.list().first_page()
        assert await kept_limit(redis_url, sandbox.client_id) == (9, 0)
        for _ in range(9):
            await other.catalogs.list().first_page()
        assert other.concurrency.limit == 9


async def test_a_queued_jobs_auto_reaches_the_workers_client_with_the_shared_limit(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with Sandbox() as sandbox:
        for name, value in sandbox_environment(sandbox).items():
            monkeypatch.setenv(name, value)
        clients = WorkerClients(redis_url, rate_limit=BUDGET)
        try:
            job = ClientOptions(max_concurrency="auto", concurrency_bounds=(2, 12)).overrides()
            client = await clients.environment(job)
            assert client is not None
            assert (client.concurrency.adaptive, client.concurrency.bounds) == (True, (2, 12))
            sandbox.faults.inject(CATALOGS, Fault.rate_limited(0), times=1)
            assert (await client.catalogs.list().first_page()).results
            assert await kept_limit(redis_url, sandbox.client_id) == (4, 1)
        finally:
            await clients.aclose()


async def test_without_redis_each_process_adapts_its_own_limit(faulty_redis: RedisProcess) -> None:
    quick = {"retry_window": 0.5, "recheck": 0.2, "redis_timeout": 2.0}  # a busy machine answers late
    async with (
        Sandbox() as sandbox,
        RateLimiter(faulty_redis.url, **quick) as limiter,
        client_of(sandbox, limiter, AUTO.evolve(max_retries=2)) as client,
    ):
        await client.catalogs.list().first_page()
        faulty_redis.kill()
        sandbox.faults.inject(CATALOGS, Fault.rate_limited(0), times=1)
        assert (await client.catalogs.list().first_page()).results
        assert client.concurrency.limit == 4
