"""B9: ``max_concurrency="auto"`` against a fixed 8, on a sandbox that throttles at 18 requests/s.

The sandbox runs in a process of its own (``_remote``), throttles every API request at
``18/second`` (429 with ``Retry-After`` beyond it, as the services do per user) and answers each
page of a catalog's contents after ``LATENCY`` seconds. Each contender reads the whole catalog,
pages of ``PAGE_SIZE``, with retries enough to get every page; the contenders alternate within a
round. Counted by the client: the 429s it was answered (every one retried) and items/s.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from enterprise_async import EnterpriseClient
from enterprise_async._options import ClientOptions

from ._harness import Row, median
from ._remote import RemoteSandbox, SandboxAddress, remote_sandbox

__all__ = ["run"]

THROTTLE = "18/second"
LATENCY = 0.25
"""Seconds each page takes: a fixed 8 in flight asks for 32 pages/s of a budget of 18."""
ITEMS = 1_500
PAGE_SIZE = 10
RETRIES = 30
"""Enough that no page fails however often it meets a 429 (both contenders alike)."""
CONTENDERS: tuple[int | str, ...] = (8, "auto")


async def _read(address: SandboxAddress, concurrency: Any) -> dict[str, float]:
    options = ClientOptions(max_concurrency=concurrency, max_retries=RETRIES)
    async with EnterpriseClient(
        client_id=address.client_id,
        client_secret=address.client_secret,
        base_url=address.base_url,
        options=options,
        trust_env=False,
    ) as client:
        await client.catalogs.list().first_page()  # the token, outside the timing
        await asyncio.sleep(1.0)  # the previous contender's second of the budget runs out
        before = client.stats.faults["429"]
        started = time.perf_counter()
        items = len(await client.catalogs.contents(address.catalog, page_size=PAGE_SIZE).to_list())
        seconds = time.perf_counter() - started
        limit = client.concurrency
        return {
            "throttled": client.stats.faults["429"] - before,
            "items_per_second": items / seconds,
            "items": items,
            "most_in_flight": limit.most_in_flight,
            "limit": limit.limit,
        }


async def _round(address: SandboxAddress) -> dict[Any, dict[str, float]]:
    return {concurrency: await _read(address, concurrency) for concurrency in CONTENDERS}


def run(rounds: int) -> list[Row]:
    options = RemoteSandbox(catalog_items=ITEMS, latency=LATENCY, rate_limit=THROTTLE)
    with remote_sandbox(options) as address:
        results = [asyncio.run(_round(address)) for _ in range(rounds)]
    if any(result[key]["items"] != ITEMS for result in results for key in CONTENDERS):
        raise AssertionError("a contender did not read every item")
    fixed = {name: median([result[8][name] for result in results]) for name in results[0][8]}
    auto = {name: median([result["auto"][name] for result in results]) for name in results[0]["auto"]}
    return [
        Row(
            "B9",
            f"catalog of {ITEMS:,} items (pages of {PAGE_SIZE}, {LATENCY * 1000:.0f} ms each), sandbox "
            f'throttled at {THROTTLE}: 429s met, `max_concurrency="auto"` / fixed 8',
            f"{auto['throttled']:.0f} / {fixed['throttled']:.0f}",
            "fewer with auto",
            auto["throttled"] < fixed["throttled"],
        ),
        Row(
            "B9",
            "the same reads: items/s, auto / fixed 8",
            f"{auto['items_per_second']:.0f} / {fixed['items_per_second']:.0f}",
            "auto >= fixed",
            auto["items_per_second"] >= fixed["items_per_second"],
            (
                f"{RETRIES} retries each, so every page arrives; Retry-After is honoured by both. The "
                f"fixed bound keeps 8 pages in flight ({8 / LATENCY:.0f}/s asked of 18/s); auto settled "
                f"at {auto['limit']:.0f} in flight (at most {auto['most_in_flight']:.0f}). Counted by the "
                "client (its retried 429s), median of the rounds.",
            ),
        ),
    ]
