"""B9, B12: ``max_concurrency="auto"`` against fixed bounds, with and without a throttle.

B9: the sandbox runs in a process of its own (``_remote``), throttles every API request at
``18/second`` (429 with ``Retry-After`` beyond it, as the services do per user) and answers each
page of a catalog's contents after ``LATENCY`` seconds. Each contender reads the whole catalog,
pages of ``PAGE_SIZE``, with retries enough to get every page; the contenders alternate within a
round. Counted by the client: the 429s it was answered (every one retried) and items/s.

B12: no throttle, and a latency that grows with the page only (``DEEP_FIRST`` seconds for the
first page, ``DEEP_PER_PAGE`` more for each page after it, whatever the requests in flight: an
offset scan on the server). Nothing is congested, so "auto" should read as fast as the best fixed
bound; it once took the deeper pages' latency for congestion and fell to 1-2 in flight.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from enterprise_async import EnterpriseClient
from enterprise_async._request.options import ClientOptions

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
DEEP_FIRST = 0.05
DEEP_PER_PAGE = 0.003
DEEP_ITEMS = 1_500
"""150 pages of ``PAGE_SIZE``: the last takes 50 ms + 447 ms."""
DEEP_CONTENDERS: tuple[int | str, ...] = ("auto", 8, 16, 32)
"""32 is auto's upper bound (``concurrency_bounds``' default): the best a fixed bound does here."""


async def _read(address: SandboxAddress, concurrency: Any, settle: float = 1.0) -> dict[str, float]:
    options = ClientOptions(max_concurrency=concurrency, max_retries=RETRIES)
    async with EnterpriseClient(
        client_id=address.client_id,
        client_secret=address.client_secret,
        base_url=address.base_url,
        options=options,
        trust_env=False,
    ) as client:
        await client.catalogs.list().first_page()  # the token, outside the timing
        await asyncio.sleep(settle)  # the previous contender's second of the budget runs out
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


async def _deep_round(address: SandboxAddress) -> dict[Any, dict[str, float]]:
    return {concurrency: await _read(address, concurrency, settle=0.0) for concurrency in DEEP_CONTENDERS}


def run_deep(rounds: int) -> list[Row]:
    options = RemoteSandbox(catalog_items=DEEP_ITEMS, latency=DEEP_FIRST, per_page=DEEP_PER_PAGE)
    with remote_sandbox(options) as address:
        results = [asyncio.run(_deep_round(address)) for _ in range(rounds)]
    if any(result[key]["items"] != DEEP_ITEMS for result in results for key in DEEP_CONTENDERS):
        raise AssertionError("a contender did not read every item")
    fixed = [key for key in DEEP_CONTENDERS if key != "auto"]
    rates = {key: median([result[key]["items_per_second"] for result in results]) for key in DEEP_CONTENDERS}
    best = max(fixed, key=lambda key: rates[key])
    ratio = median([_rate(result, "auto") / _rate(result, best) for result in results])
    auto = {name: median([result["auto"][name] for result in results]) for name in results[0]["auto"]}
    pages = DEEP_ITEMS // PAGE_SIZE
    return [
        Row(
            "B12",
            f"catalog of {DEEP_ITEMS:,} items (pages of {PAGE_SIZE}), no throttle, each page "
            f"{DEEP_FIRST * 1000:.0f} ms + {DEEP_PER_PAGE * 1000:.0f} ms per page before it: items/s, "
            f'`max_concurrency="auto"` / the best fixed bound ({", ".join(map(str, fixed))})',
            f"{ratio:.2f}x (fixed {best})",
            ">= 0.9x",
            ratio >= 0.9,
            (
                f"items/s: auto {rates['auto']:.0f}, "
                + ", ".join(f"fixed {key} {rates[key]:.0f}" for key in fixed)
                + f". The last of the {pages} pages takes "
                f"{(DEEP_FIRST + DEEP_PER_PAGE * (pages - 1)) * 1000:.0f} ms, whatever the requests in "
                f"flight; auto ended at {auto['limit']:.0f} (at most {auto['most_in_flight']:.0f} in "
                "flight). Median of the rounds, the ratio taken within each round.",
            ),
        )
    ]


def _rate(result: dict[Any, dict[str, float]], contender: Any) -> float:
    return result[contender]["items_per_second"]
