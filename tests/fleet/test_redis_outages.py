"""The token cache and the rate budget when Redis is down, frozen or killed: they do without it
(each process on its own, with a WARNING), never raise a raw Redis error, never hang, and share
again once Redis is back."""

from __future__ import annotations

import asyncio
import logging

import pytest

from enterprise_async import RateLimiter, RedisTokenCache
from enterprise_async._transport.rate_limit import budget_key, parse_rate_limit
from enterprise_async.testing import Sandbox

from ._redis_server import RedisProcess

QUICK = {"retry_window": 0.5, "recheck": 0.2, "redis_timeout": 2.0}
"""Small windows, so that a test meets the fallback and the return to Redis in a moment; but two
seconds for a call to a Redis that is up, which a machine whose every core is busy may answer late
(one taken for an outage would count as one)."""


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]


async def test_a_token_cache_on_a_redis_that_is_down_fetches_tokens_directly(
    faulty_redis: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    faulty_redis.kill()
    async with (
        Sandbox(seed=0, profile="reference") as sandbox,
        RedisTokenCache(faulty_redis.url, **QUICK) as cache,
        sandbox.client(token_cache=cache) as client,
    ):
        catalogs = await client.catalogs.list().to_list()
    assert len(catalogs) == len(sandbox.data.catalogs)
    assert sandbox.tokens_issued == 1
    assert any(
        "token cache: Redis at 127.0.0.1" in line and "is away" in line for line in warnings_of(caplog)
    )


async def test_a_token_cache_on_a_frozen_redis_does_not_hang(
    faulty_redis: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    faulty_redis.freeze()
    async with (
        Sandbox(seed=0, profile="reference") as sandbox,
        RedisTokenCache(faulty_redis.url, **QUICK) as cache,
        sandbox.client(token_cache=cache) as client,
    ):
        catalogs = await client.catalogs.list().to_list()
    faulty_redis.thaw()
    assert len(catalogs) == len(sandbox.data.catalogs)
    assert any("is away" in line for line in warnings_of(caplog))


async def test_a_token_refresh_while_redis_is_killed_is_fetched_directly_and_shared_again_after(
    faulty_redis: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    async with (
        Sandbox(seed=0, profile="reference") as sandbox,
        RedisTokenCache(faulty_redis.url, **QUICK) as cache,
        sandbox.client(token_cache=cache) as client,
    ):
        await client.catalogs.list().to_list()
        faulty_redis.kill()
        sandbox.expire_tokens()
        await client.catalogs.list().to_list()  # a 401, a refresh without Redis, a retry
        during_outage = sandbox.tokens_issued
        faulty_redis.start()
        await asyncio.sleep(QUICK["recheck"])  # the cache looks at Redis again after this
        sandbox.expire_tokens()
        await client.catalogs.list().to_list()
        shared = await cache.get(client_token_key(sandbox))
    assert during_outage == 2
    assert shared is not None  # the token after the outage went to Redis again
    assert cache.fallback.outages == 1
    assert any("is back" in line for line in warnings_of(caplog))


def client_token_key(sandbox: Sandbox) -> str:
    from enterprise_async._transport.auth import token_cache_key

    return token_cache_key(sandbox.auth_url, sandbox.client_id)


async def test_a_rate_budget_without_redis_keeps_this_processs_share_of_the_limit(
    faulty_redis: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    key = budget_key("acme-sync")
    limits = parse_rate_limit("10/minute")
    async with (
        RateLimiter(faulty_redis.url, **QUICK) as mine,
        RateLimiter(faulty_redis.url, **QUICK) as other,
    ):
        await other.draw(limits, key)
        assert (await mine.draw(limits, key))[0]  # both drew on Redis: two processes share the budget
        faulty_redis.kill()
        granted = 0
        while (await mine.draw(limits, key))[0]:
            granted += 1
    assert granted == 5  # half of 10, as two processes were seen drawing on it
    assert any("rate budget: Redis at 127.0.0.1" in line for line in warnings_of(caplog))


async def test_a_rate_limited_client_goes_on_while_redis_is_frozen(faulty_redis: RedisProcess) -> None:
    async with (
        Sandbox(seed=0, profile="reference") as sandbox,
        RateLimiter(faulty_redis.url, **QUICK) as limiter,
        RedisTokenCache(faulty_redis.url, **QUICK) as cache,
        sandbox.client(token_cache=cache, rate_limit="100/second", rate_limiter=limiter) as client,
    ):
        faulty_redis.freeze()
        catalogs = await client.catalogs.list().to_list()
        faulty_redis.thaw()
    assert len(catalogs) == len(sandbox.data.catalogs)
    assert limiter.fallback is not None
    assert limiter.fallback.outages == 1
