"""The pieces of a fleet, one process at a time: the shared cache's lock and keys, the budget's pause."""

from __future__ import annotations

import asyncio
import re
import sys

import pytest
import redis.asyncio
from yarl import URL

from enterprise_async import ClientValidationError, EnterpriseClient, RateLimiter, RedisTokenCache
from enterprise_async._generated.operations import OPERATIONS, SPEC
from enterprise_async._response.responses import RawResponse
from enterprise_async._transport.auth import token_cache_key
from enterprise_async._transport.transport import HTTPRequest, means_pause
from enterprise_async.testing import Fault, Sandbox

from ._fleet import ROOT, sandbox_environment


async def stored(url: str) -> dict[bytes, bytes]:
    """Every string key of the Redis and its value."""
    async with redis.asyncio.from_url(url) as client:
        keys = [key async for key in client.scan_iter()]
        return {key: await client.get(key) for key in keys if await client.type(key) == b"string"}


async def test_a_lock_left_by_a_dead_holder_expires_and_the_token_is_fetched(redis_url: str) -> None:
    async with Sandbox(seed=0) as sandbox:
        key = token_cache_key(sandbox.auth_url, sandbox.client_id)
        async with redis.asyncio.from_url(redis_url) as raw:
            await raw.set(f"{key}:lock", "a process that died", px=300)
        async with RedisTokenCache(redis_url) as cache, sandbox.client(token_cache=cache) as client:
            await client.catalogs.list().to_list()
    assert sandbox.tokens_issued == 1


async def test_the_client_secret_never_reaches_redis(redis_url: str) -> None:
    async with Sandbox(seed=0) as sandbox:
        async with (
            RedisTokenCache(redis_url) as cache,
            RateLimiter(redis_url) as limiter,
            sandbox.client(token_cache=cache, rate_limit="50/second", rate_limiter=limiter) as client,
        ):
            await client.catalogs.list().to_list()
        everything = await stored(redis_url)
    assert everything
    assert not any(sandbox.client_secret.encode() in key + value for key, value in everything.items())


def test_the_repr_of_a_cache_hides_the_password_of_its_url() -> None:
    assert "hunter2" not in repr(RedisTokenCache("rediss://:hunter2@127.0.0.1:6380/0"))


async def test_a_429_pauses_every_request_of_a_rate_limited_client() -> None:
    async with Sandbox(seed=0) as sandbox:
        sandbox.faults.inject("/enterprise/*", Fault.rate_limited(1), times=1)
        async with sandbox.client(rate_limit="100/second") as client:
            await asyncio.gather(*(client.catalogs.list().to_list() for _ in range(20)))
    assert [entry.status for entry in sandbox.requests.find(path="/enterprise/*")].count(429) == 1


def test_an_unreadable_rate_limit_is_refused_before_anything_is_sent() -> None:
    with pytest.raises(ClientValidationError, match="rate_limit"):
        EnterpriseClient(
            client_id="id", client_secret="secret", base_url="http://127.0.0.1:9", rate_limit="often"
        )


async def test_the_readme_fleet_example_runs_as_written(redis_url: str) -> None:
    """The example of enterprise_async/fleet/README.md, run as written against a real Redis."""
    guide = (ROOT / "enterprise_async" / "fleet" / "README.md").read_text(encoding="utf-8")
    section = guide.split("# Running a fleet", 1)[1]
    example = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert example is not None
    async with Sandbox(seed=0) as sandbox:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            example.group(1),
            env={**sandbox_environment(sandbox), "REDIS_URL": redis_url},
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await process.communicate()
    assert process.returncode == 0
    customer = sandbox.tokens.customer_uuid
    listed = [catalog for catalog in sandbox.data.catalogs if catalog.customer_uuid == customer]
    assert out.decode().strip() == f"{len(listed)} catalogs; this process requested 1 tokens"


@pytest.mark.parametrize(("status", "pauses"), [(429, True), (423, False), (503, False)])
def test_only_the_specs_client_wide_statuses_pause_the_client(status: int, pauses: bool) -> None:
    # 423 is license assignment's lock on one subscription plan: that request retries it alone.
    assign = OPERATIONS["subscriptions.assign_licenses"]
    request = HTTPRequest(
        "POST", URL("http://127.0.0.1/assign"), "/assign", {}, retry_statuses=assign.retry_statuses
    )
    answer = RawResponse(status, "", {"Retry-After": "1"}, b"", "POST", "/assign")
    assert 423 in assign.retry_statuses
    assert means_pause(request, answer, SPEC.retry_statuses) is pauses
