"""Start a fleet of ``tests.fleet._process`` processes against a sandbox, and wait for them."""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import orjson
import redis

from enterprise_async.fleet._queue import QUEUE_NAME
from enterprise_async.testing import Sandbox

from ._process import READY

ROOT = Path(__file__).resolve().parents[2]
ENQUEUE_DEADLINE = 60.0
"""Seconds an export may take to enqueue its jobs."""


def wait_until_enqueued(redis_url: str, jobs: int) -> None:
    """Block until ``jobs`` export jobs wait in the queue: a ``worker --burst`` started before them
    would find the queue empty and stop at once."""
    deadline = time.monotonic() + ENQUEUE_DEADLINE
    with redis.Redis.from_url(redis_url) as client:
        while client.zcard(QUEUE_NAME) < jobs:
            assert time.monotonic() < deadline, f"{jobs} jobs were never enqueued"
            time.sleep(0.01)


async def enqueued(redis_url: str, jobs: int) -> None:
    """``wait_until_enqueued`` without blocking the event loop."""
    await asyncio.to_thread(wait_until_enqueued, redis_url, jobs)


def worker_command(redis_url: str, *options: str) -> list[str]:
    """``enterprise-async worker --burst`` on the queue at ``redis_url``, with ``options``."""
    return [sys.executable, "-m", "enterprise_async", "worker", "--queue", redis_url, "--burst", *options]


async def start_workers(
    count: int, redis_url: str, environment: dict[str, str], *options: str
) -> list[asyncio.subprocess.Process]:
    """``count`` worker processes (``worker_command``), their output discarded."""
    return [
        await asyncio.create_subprocess_exec(
            *worker_command(redis_url, *options),
            cwd=ROOT,
            env=environment,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=None if os.environ.get("FLEET_DEBUG") else asyncio.subprocess.DEVNULL,
        )
        for _ in range(count)
    ]


@asynccontextmanager
async def reaped(processes: list[asyncio.subprocess.Process]) -> AsyncIterator[None]:
    """Every process still running when the block ends (a failed assertion, a burst worker not yet
    out of work) is killed, and every one is waited for: none outlives its test's event loop."""
    try:
        yield
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
        for process in processes:
            await process.wait()


def sandbox_environment(sandbox: Sandbox, base_url: str | None = None) -> dict[str, str]:
    """The environment of a fleet process: the sandbox's credentials, as a deployment would give
    them (the API at ``base_url``, a relay in front of the sandbox, when given)."""
    return {
        **os.environ,
        "ENTERPRISE_CLIENT_ID": sandbox.client_id,
        "ENTERPRISE_CLIENT_SECRET": sandbox.client_secret,
        "ENTERPRISE_BASE_URL": base_url or sandbox.base_url,
        "ENTERPRISE_AUTH_URL": sandbox.auth_url,
    }


async def start(
    sandbox: Sandbox, processes: int, *arguments: str, base_url: str | None = None
) -> list[asyncio.subprocess.Process]:
    """Start ``processes`` fleet processes named 0..n-1 with the same ``arguments``, and let them
    make their calls once every one of them is ready (see ``_process``); their API requests go to
    ``base_url`` when given (a relay in front of the sandbox)."""
    started: list[asyncio.subprocess.Process] = []
    try:
        for number in range(processes):
            started.append(
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "tests.fleet._process",
                    "--name",
                    str(number),
                    *arguments,
                    cwd=ROOT,
                    env=sandbox_environment(sandbox, base_url),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                )
            )
        for process in started:
            assert process.stdout is not None
            assert await process.stdout.readline() == READY, "a fleet process failed to start"
        for process in started:
            assert process.stdin is not None
            process.stdin.write(b"go\n")
            await process.stdin.drain()
    except BaseException:
        async with reaped(started):
            raise
    return started


async def stop(started: list[asyncio.subprocess.Process]) -> None:
    """Tell processes started with ``--until-stopped`` to end after their round of calls."""
    for process in started:
        assert process.stdin is not None
        process.stdin.write(b"stop\n")
        await process.stdin.drain()


async def finish(started: list[asyncio.subprocess.Process]) -> list[dict[str, Any]]:
    """Wait for every process; what each printed, or an error naming the one that failed."""
    reports = []
    async with reaped(started):
        for process in started:
            out, _ = await process.communicate()
            if process.returncode != 0:
                raise AssertionError(f"a fleet process exited with {process.returncode}")
            reports.append(orjson.loads(out))
    return reports


@contextmanager
def no_long_collections() -> Iterator[None]:
    """Keep this process's garbage collector from walking everything the test session holds while
    the sandbox in it stamps arrivals: a long collection would hold requests back and then stamp
    them together, as if they had arrived in a burst."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


async def run(
    sandbox: Sandbox, processes: int, *arguments: str, base_url: str | None = None
) -> list[dict[str, Any]]:
    """Start a fleet and wait for it."""
    with no_long_collections():
        return await finish(await start(sandbox, processes, *arguments, base_url=base_url))
