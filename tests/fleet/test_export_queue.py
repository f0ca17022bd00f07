"""An export spread over arq workers writes what a local export writes, even when a worker dies."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson

from enterprise_async.exports._catalogs import export_catalogs
from enterprise_async.exports._lock import file_lock_path, read_holder
from enterprise_async.fleet._queue import export_via_queue
from enterprise_async.testing import DataSize, Sandbox

from ._fleet import enqueued, reaped, sandbox_environment
from ._fleet import start_workers as fleet_workers

WORKERS = 3
JOB_TIMEOUT = "15"
"""Seconds a catalog may take; the killed worker's catalog is taken up 10 seconds after that."""
WAIT_STEPS = 2000
ITEMS = 200
"""Items per catalog: enough for a worker to be seen mid-catalog, few enough for a loaded machine."""


async def start_workers(sandbox: Sandbox, redis_url: str) -> list[asyncio.subprocess.Process]:
    options = ("--max-jobs", "1", "--job-timeout", JOB_TIMEOUT, "--rate-limit", "60/second")
    return await fleet_workers(WORKERS, redis_url, sandbox_environment(sandbox), *options)


def writer_of_a_partial_file(directory: Path, workers: list[asyncio.subprocess.Process]) -> int | None:
    """The index of a worker writing a catalog now: a ``.part`` file with bytes in it, whose lock
    file names that worker's pid."""
    pids = {worker.pid: index for index, worker in enumerate(workers) if worker.returncode is None}
    for part in directory.glob("*.part"):
        try:
            holder = read_holder(file_lock_path(part.with_suffix("")).read_bytes())
            written = part.stat().st_size
        except FileNotFoundError:
            continue
        if holder is not None and written and holder.pid in pids:
            return pids[holder.pid]
    return None


async def kill_one_mid_catalog(workers: list[asyncio.subprocess.Process], directory: Path) -> int:
    """Kill a worker while it writes a catalog (whichever one is: on a loaded machine the workers
    start at different times); the index of the one killed."""
    for _ in range(WAIT_STEPS):
        if (index := writer_of_a_partial_file(directory, workers)) is not None:
            workers[index].kill()
            return index
        await asyncio.sleep(0.01)
    raise AssertionError("no worker was ever seen writing a catalog")


def manifest_without_times(directory: Path) -> dict[str, object]:
    document = orjson.loads((directory / "manifest.json").read_bytes())
    for entry in document["catalogs"].values():
        del entry["completed_at"]
    return document


def files(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in directory.iterdir() if path.name != "manifest.json"}


async def test_three_workers_one_killed_mid_run_export_every_item_exactly_once(
    redis_url: str, tmp_path: Path
) -> None:
    queued, local = tmp_path / "queued", tmp_path / "local"
    queued.mkdir()
    async with (
        Sandbox(seed=0, size=DataSize(catalog_items=ITEMS), profile="reference") as sandbox,
        sandbox.client() as client,
    ):
        export = asyncio.ensure_future(export_via_queue(client, queued, redis_url, page_size=20))
        await enqueued(redis_url, len(sandbox.data.catalogs))
        workers = await start_workers(sandbox, redis_url)
        async with reaped(workers):
            killed = await kill_one_mid_catalog(workers, queued)
            summary = await export
            for index, worker in enumerate(workers):
                if index != killed:
                    assert await worker.wait() == 0
        await export_catalogs(client, local, page_size=20)
    assert summary.ok, [outcome.error for outcome in summary.failed]
    assert not list(queued.glob("*.part"))
    assert files(queued) == files(local)
    assert manifest_without_times(queued) == manifest_without_times(local)
    for outcome in summary.outcomes:
        assert outcome.path is not None
        lines = outcome.path.read_bytes().splitlines()
        assert len(lines) == len(set(lines)) == outcome.items == ITEMS
