"""Soak: export a large catalog while a tenth of the requests fail and tokens keep expiring.
Every item must arrive exactly once, in order; the run's faults and retries are summarised.

The normal suite runs a short soak; `nox -s soak` runs 20,000 items in JSON and XML
(``ENTERPRISE_SOAK_ITEMS``) and prints the summary.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from collections.abc import Iterator
from typing import Any

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


EXPIRE_EVERY = 16
"""Requests the sandbox checks between two expiries of every token. Counted in requests, not
seconds, so that a loaded machine expires no more tokens per request than an idle one; twice the
most requests in flight (8), so that the requests that met an expired token, and went again with
the one refresh they share, arrive before that fresh token is expired in turn (a fresh token
refused at once would say the credentials are at fault)."""


@contextlib.contextmanager
def expiring_tokens(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, every: int) -> Iterator[None]:
    """Every token the sandbox issued so far expires before each ``every``-th request it checks."""
    check = sandbox.tokens.check
    checked = itertools.count(1)

    def check_expiring(authorization: str | None) -> Any:
        if next(checked) % every == 0:
            sandbox.tokens.expire_all()
        return check(authorization)

    with monkeypatch.context() as patch:
        patch.setattr(sandbox.tokens, "check", check_expiring)
        yield


@pytest.mark.parametrize("response_format", ["json", "xml"])
async def test_every_item_arrives_once_and_in_order_despite_faults_and_expiring_tokens(
    response_format: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    size = DataSize(customers=1, catalogs_per_customer=1, catalog_items=ITEMS)
    async with Sandbox(seed=5, size=size, token_lifetime=600.0, log_limit=0, profile="reference") as sandbox:
        catalog = sandbox.data.catalogs[0]
        expected = [
            sandbox.data.item(catalog, index).get("key") or sandbox.data.item(catalog, index).get("uuid")
            for index in range(ITEMS)
        ]
        sandbox.faults.random(rate=0.10, seed=9, faults=FAULTS, pattern="/enterprise/*")
        started = time.perf_counter()
        with expiring_tokens(sandbox, monkeypatch, every=EXPIRE_EVERY):
            async with sandbox.client(
                response_format=response_format, max_retries=8, timeout=TIMEOUT, max_concurrency=8
            ) as client:
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
    assert stats.token_refreshes > 0
    with capsys.disabled():
        print(
            f"\nsoak [{response_format}]: {len(received)} items in {elapsed:.1f} s; "
            f"faults injected: {dict(sorted(fired.items()))}; client: {stats.summary()}; "
            f"tokens requested: {tokens}"
        )
