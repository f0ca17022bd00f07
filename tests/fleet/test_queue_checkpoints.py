"""Queue workers checkpoint each page beside the partial file: a worker killed mid-catalog leaves
its catalog to continue mid-catalog on another worker, every item in the file exactly once."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import orjson

from enterprise_async.exports._catalogs import export_catalogs
from enterprise_async.exports._lock import file_lock_path, read_holder
from enterprise_async.fleet._queue import export_via_queue
from enterprise_async.testing import DataSize, Sandbox

from ._fleet import enqueued, reaped
from .test_export_queue import ITEMS, WAIT_STEPS, files, start_workers

CONTENTS = "/enterprise/v2/enterprise-catalogs/{}"
CHECKPOINTED_PAGES = 3


def checkpointed_writer(directory: Path, workers: list[asyncio.subprocess.Process]) -> tuple[int, str] | None:
    """A live worker writing a catalog whose checkpoint records at least ``CHECKPOINTED_PAGES``
    pages: its index and the catalog's uuid."""
    pids = {worker.pid: index for index, worker in enumerate(workers) if worker.returncode is None}
    for sidecar in directory.glob("*.jsonl.part.checkpoint"):
        try:
            checkpoint = orjson.loads(sidecar.read_bytes())
            final = directory / sidecar.name.removesuffix(".part.checkpoint")
            holder = read_holder(file_lock_path(final).read_bytes())
        except (FileNotFoundError, orjson.JSONDecodeError):
            continue
        if holder is not None and holder.pid in pids and checkpoint["pages"] >= CHECKPOINTED_PAGES:
            return pids[holder.pid], checkpoint["uuid"]
    return None


async def kill_one_past_its_checkpoint(
    workers: list[asyncio.subprocess.Process], directory: Path
) -> tuple[str, int]:
    """Kill a worker once its checkpoint records ``CHECKPOINTED_PAGES``: the catalog's uuid, and
    the pages its checkpoint records once it is dead (it may have written more before the kill)."""
    for _ in range(WAIT_STEPS):
        if (found := checkpointed_writer(directory, workers)) is not None:
            index, catalog = found
            workers[index].kill()
            await workers[index].wait()
            checkpoint = orjson.loads((directory / f"{catalog}.jsonl.part.checkpoint").read_bytes())
            return catalog, int(checkpoint["pages"])
        await asyncio.sleep(0.01)
    raise AssertionError("no worker was ever seen past a checkpoint")


async def test_a_killed_workers_catalog_continues_mid_catalog_on_another_worker_every_item_once(
    redis_url: str, tmp_path: Path
) -> None:
    queued, local = tmp_path / "queued", tmp_path / "local"
    queued.mkdir()
    async with Sandbox(seed=0, size=DataSize(catalog_items=ITEMS)) as sandbox, sandbox.client() as client:
        export = asyncio.ensure_future(export_via_queue(client, queued, redis_url, page_size=20))
        await enqueued(redis_url, len(await client.catalogs.list().to_list()))
        workers = await start_workers(sandbox, redis_url)
        async with reaped(workers):
            catalog, checkpointed = await kill_one_past_its_checkpoint(workers, queued)
            summary = await export
        pages = Counter(
            int(dict(entry.query).get("page", "1"))
            for entry in sandbox.requests.find("GET", CONTENTS.format(catalog))
        )
        await export_catalogs(client, local, page_size=20)
    assert summary.ok, [outcome.error for outcome in summary.failed]
    assert pages[1] == 1  # the second worker did not start the catalog again
    # Every page the checkpoint records was read once, but its last: the resume reads that one
    # again to check that the listing has not moved (pages after it the dead worker may have read).
    assert all(pages[page] == 1 for page in range(1, checkpointed))
    assert pages[checkpointed] == 2
    assert files(queued) == files(local)
    lines = (queued / f"{catalog}.jsonl").read_bytes().splitlines()
    assert len(lines) == len(set(lines)) == ITEMS
    assert not list(queued.glob("*.part*"))
