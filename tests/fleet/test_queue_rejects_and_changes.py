"""The fleet's queued exports write what a local export writes: the rejects file of a catalog
holding an item that cannot be read, and, with changes, each catalog's changes file and counts; a
resume of either fetches nothing for the rejected item; a worker killed mid-catalog leaves the
changes a run never stopped writes."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import orjson

from enterprise_async.exports import ExportSummary, export_catalogs
from enterprise_async.fleet._queue import export_via_queue
from enterprise_async.testing import DataSize, Sandbox

from ._fleet import enqueued, reaped, sandbox_environment, start_workers
from .test_export_queue import ITEMS
from .test_export_queue import start_workers as three_workers
from .test_queue_checkpoints import kill_one_past_its_checkpoint

PAGE = 10
CONTENTS = "/enterprise/v2/enterprise-catalogs/{}"


def files(directory: Path) -> dict[str, Any]:
    """The files of an export; a rejects file's lines without their reason, which names the
    request id of the answer that held the item."""
    found: dict[str, Any] = {}
    for path in directory.iterdir():
        if path.name.endswith(".rejects.jsonl"):
            rejects = [orjson.loads(line) for line in path.read_bytes().splitlines()]
            found[path.name] = [{**reject, "reason": None} for reject in rejects]
        elif path.name != "manifest.json":
            found[path.name] = path.read_bytes()
    return found


def counts(directory: Path) -> dict[str, Any]:
    """Each catalog's entry in the manifest, as a run writes it whoever wrote the files."""
    document = orjson.loads((directory / "manifest.json").read_bytes())
    entries = {}
    for uuid, entry in document["catalogs"].items():
        del entry["completed_at"]
        if entry["changes"] is not None:
            del entry["changes"]["run"]
        entries[uuid] = entry
    return entries


async def queued(
    sandbox: Sandbox, redis_url: str, directory: Path, jobs: int, **options: Any
) -> ExportSummary:
    """An export through the queue, served by two burst workers started once its ``jobs`` wait."""
    async with sandbox.client() as client:
        if not jobs:
            return await export_via_queue(client, directory, redis_url, page_size=PAGE, **options)
        export = asyncio.ensure_future(
            export_via_queue(client, directory, redis_url, page_size=PAGE, **options)
        )
        await enqueued(redis_url, jobs)
        workers = await start_workers(2, redis_url, sandbox_environment(sandbox))
        async with reaped(workers):
            summary = await export
            for worker in workers:
                await worker.wait()
    return summary


async def local(sandbox: Sandbox, directory: Path, **options: Any) -> ExportSummary:
    async with sandbox.client() as client:
        return await export_catalogs(client, directory, page_size=PAGE, **options)


async def test_queued_exports_write_the_rejects_and_the_changes_a_local_export_writes(
    redis_url: str, tmp_path: Path
) -> None:
    through_queue, here = tmp_path / "queued", tmp_path / "local"
    through_queue.mkdir()
    size = DataSize(customers=1, catalogs_per_customer=2, catalog_items=35)
    async with Sandbox(seed=3, size=size) as sandbox:
        catalog = sandbox.data.catalogs[0].uuid
        async with sandbox.client() as client:
            path = CONTENTS.format(catalog)
            sent = (await client.request("GET", path, params={"page_size": 100}))["results"]
        broken = {name: value for name, value in sent[17].items() if name != "key"}
        sandbox.edits.remove(catalog, 17)
        served = sandbox.edits.create(catalog, broken, at=17)  # a course without its content key
        first = await queued(sandbox, redis_url, through_queue, 2, changes=True)
        await local(sandbox, here, changes=True)
        sandbox.edits.update(catalog, 3, title="Renamed")
        sandbox.edits.remove(catalog, 30)
        second = await queued(sandbox, redis_url, through_queue, 1, changes=True)
        await local(sandbox, here, changes=True)
        sandbox.requests.clear()
        resumed = await queued(sandbox, redis_url, through_queue, 0, resume=True)  # nothing to queue
        asked = sandbox.requests.find("GET", CONTENTS.format(catalog))
    assert [outcome.state for outcome in first.outcomes if outcome.uuid == catalog] == [
        "complete, 1 rejected"
    ]
    [reject] = [
        orjson.loads(line) for line in (through_queue / f"{catalog}.rejects.jsonl").read_bytes().splitlines()
    ]
    assert reject["item"] == served  # as sent
    assert "is required and was left out" in reject["reason"]
    assert files(through_queue) == files(here)
    assert counts(through_queue) == counts(here)
    changed = next(outcome.changes for outcome in second.outcomes if outcome.uuid == catalog)
    assert changed is not None
    assert (changed.updated, changed.removed, changed.unchanged) == (1, 1, 32)
    assert [outcome.state for outcome in resumed.outcomes if outcome.uuid == catalog] == [
        "skipped, 1 rejected"
    ]
    assert asked == []  # a resume fetches nothing for the rejected item


async def test_a_worker_killed_mid_catalog_leaves_the_changes_of_a_run_never_stopped(
    redis_url: str, tmp_path: Path
) -> None:
    through_queue, here = tmp_path / "queued", tmp_path / "local"
    through_queue.mkdir()
    async with Sandbox(seed=0, size=DataSize(catalog_items=ITEMS)) as sandbox, sandbox.client() as client:
        catalogs = [catalog.uuid or "" for catalog in await client.catalogs.list().to_list()]
        options = {"page_size": 20, "changes": True}
        baseline = asyncio.ensure_future(export_via_queue(client, through_queue, redis_url, **options))
        await enqueued(redis_url, len(catalogs))
        workers = await three_workers(sandbox, redis_url)
        async with reaped(workers):
            assert (await baseline).ok
        shutil.copytree(through_queue, here)
        for catalog in catalogs:
            sandbox.edits.update(catalog, 5, title="Early")
            sandbox.edits.update(catalog, 150, title="Late")
            sandbox.edits.remove(catalog, 100)
        sandbox.requests.clear()
        second = asyncio.ensure_future(export_via_queue(client, through_queue, redis_url, **options))
        await enqueued(redis_url, len(catalogs))
        workers = await three_workers(sandbox, redis_url)
        async with reaped(workers):
            killed, _ = await kill_one_past_its_checkpoint(workers, through_queue)
            summary = await second
        firsts = [
            entry
            for entry in sandbox.requests.find("GET", CONTENTS.format(killed))
            if dict(entry.query).get("page_size") == "20" and dict(entry.query).get("page", "1") == "1"
        ]
        await export_catalogs(client, here, **options)
    assert summary.ok, [outcome.error for outcome in summary.failed]
    assert len(firsts) == 1  # the killed worker's catalog continued mid-catalog on another worker
    for catalog in catalogs:
        name = f"{catalog}.changes.jsonl"
        assert (through_queue / name).read_bytes() == (here / name).read_bytes()
    kinds = [
        orjson.loads(line)["change"]
        for line in (through_queue / f"{killed}.changes.jsonl").read_bytes().splitlines()
    ]
    assert kinds == ["updated", "updated", "removed"]
    assert counts(through_queue) == counts(here)
