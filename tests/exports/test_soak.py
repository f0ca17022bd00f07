"""Soak: export a large catalog while a tenth of the requests fail and tokens keep expiring.
Every item must arrive exactly once, in order; the run's faults and retries are summarised.

The normal suite runs a short soak; `nox -s soak` runs 20,000 items in JSON and XML
(``ENTERPRISE_SOAK_ITEMS``) and prints the summary.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator

import pytest

from enterprise_async.testing import DataSize, Fault, Sandbox

ITEMS = int(os.environ.get("ENTERPRISE_SOAK_ITEMS", "1500"))
TIMEOUT = 3.0
"""Seconds an attempt may take. The sandbox answers in this process, beside the decoding of up to
8 pages in flight: on a machine whose cores are busy elsewhere, that work can keep an answer
waiting for most of a second; an attempt over the timeout is retried, and enough of them in a
row would fail the soak."""
FAULTS = (
    Fault.rate_limited(0.05),
    Fault.server_error(500),
    Fault.server_error(502),
    Fault.server_error(503),
    Fault.drop(),
    Fault.slow(TIMEOUT * 1.5),  # slower than the client's timeout
)


async def expire_tokens_every(sandbox: Sandbox, seconds: float) -> None:
    while True:
        await asyncio.sleep(seconds)
        sandbox.tokens.expire_all()


@contextlib.asynccontextmanager
async def expiring_tokens(sandbox: Sandbox, seconds: float) -> AsyncIterator[None]:
    task = asyncio.ensure_future(expire_tokens_every(sandbox, seconds))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@pytest.mark.parametrize("response_format", ["json", "xml"])
async def test_every_item_arrives_once_and_in_order_despite_faults_and_expiring_tokens(
    response_format: str, capsys: pytest.CaptureFixture[str]
) -> None:
    size = DataSize(customers=1, catalogs_per_customer=1, catalog_items=ITEMS)
    async with Sandbox(seed=5, size=size, token_lifetime=2.0, log_limit=0, profile="reference") as sandbox:
        catalog = sandbox.data.catalogs[0]
        expected = [
            sandbox.data.item(catalog, index).get("key") or sandbox.data.item(catalog, index).get("uuid")
            for index in range(ITEMS)
        ]
        sandbox.faults.random(rate=0.10, seed=9, faults=FAULTS, pattern="/enterprise/*")
        started = time.perf_counter()
        async with (
            sandbox.client(
                response_format=response_format, max_retries=8, timeout=TIMEOUT, max_concurrency=8
            ) as client,
            expiring_tokens(sandbox, seconds=0.7),
        ):
            received = [
                getattr(item, "key", None) or getattr(item, "uuid", None)
                async for item in client.catalogs.contents(catalog.uuid, limit=50)
            ]
            stats = client.stats
            tokens = client.token_requests
        elapsed = time.perf_counter() - started
    fired = dict(sandbox.faults.fired)
    assert received == expected
    assert sum(fired.values()) > 0
    assert stats.retries > 0
    with capsys.disabled():
        print(
            f"\nsoak [{response_format}]: {len(received)} items in {elapsed:.1f} s; "
            f"faults injected: {dict(sorted(fired.items()))}; client: {stats.summary()}; "
            f"tokens requested: {tokens}"
        )
