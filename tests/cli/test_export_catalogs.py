"""``export_catalogs`` called directly, against a sandbox the test controls (faults, request log)."""

from __future__ import annotations

import asyncio
import hashlib
from collections import defaultdict
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import aiohttp
import orjson
import pytest

from enterprise_async.cli import CatalogOutcome, export_catalogs
from enterprise_async.exports._catalogs import catalog_file_name
from enterprise_async.exports._manifest import MANIFEST_NAME
from enterprise_async.models import Catalog, ContentItem, from_dict
from enterprise_async.testing import Fault, Sandbox

CONTENTS = "/enterprise/v2/enterprise-catalogs/{}"


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=0, profile="reference") as running:  # every catalog, both formats
        yield running


def lines_of(directory: Path, uuid: str) -> list[bytes]:
    return (directory / f"{uuid}.jsonl").read_bytes().splitlines()


def files_of(directory: Path, uuid: str) -> list[str]:
    """Every file of a catalog in the directory, complete or partial."""
    return [path.name for path in directory.iterdir() if uuid in path.name]


def completed_in_manifest(directory: Path) -> set[str]:
    manifest = directory / MANIFEST_NAME
    return set(orjson.loads(manifest.read_bytes())["catalogs"]) if manifest.exists() else set()


class Recorder:
    """An ``ExportProgress`` that keeps what it hears, and checks the disk as pages land."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.listed: list[str] = []
        self.totals: dict[str, int | None] = {}
        self.written: dict[str, int] = {}
        self.on_disk: dict[str, list[int]] = {}
        self.finished: list[CatalogOutcome] = []
        self.writing: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)

    def catalogs_listed(self, catalogs: Sequence[Catalog]) -> None:
        self.listed = [catalog.uuid or "" for catalog in catalogs]

    def catalog_started(self, catalog: Catalog, total: int | None) -> None:
        self.totals[catalog.uuid or ""] = total

    def items_written(self, catalog: Catalog, count: int) -> None:
        uuid = catalog.uuid or ""
        self.written[uuid] = self.written.get(uuid, 0) + count
        part = self.directory / f"{uuid}.jsonl.part"
        self.on_disk.setdefault(uuid, []).append(len(part.read_bytes().splitlines()))
        self.writing[uuid].set()

    def catalog_finished(self, outcome: CatalogOutcome) -> None:
        self.finished.append(outcome)


async def test_every_catalog_is_exported_with_one_line_per_item(sandbox: Sandbox, tmp_path: Path) -> None:
    async with sandbox.client() as client:
        summary = await export_catalogs(client, tmp_path)
    assert summary.ok
    for catalog in sandbox.data.catalogs:
        assert len(lines_of(tmp_path, catalog.uuid)) == catalog.item_count
    assert summary.items == sum(catalog.item_count for catalog in sandbox.data.catalogs)


async def test_a_directory_given_as_a_string_is_exported_into_as_a_path_is(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    async with sandbox.client() as client:
        summary = await export_catalogs(client, "out/catalogs")
    assert summary.ok
    for catalog in sandbox.data.catalogs:
        assert len(lines_of(tmp_path / "out" / "catalogs", catalog.uuid)) == catalog.item_count


async def test_exported_lines_read_back_as_the_items_the_api_lists(sandbox: Sandbox, tmp_path: Path) -> None:
    catalog = sandbox.data.catalogs[2]
    async with sandbox.client() as client:
        await export_catalogs(client, tmp_path, page_size=7)
        listed = await client.catalogs.contents(catalog.uuid).to_list()
    exported: list[ContentItem] = [
        from_dict(ContentItem, orjson.loads(line)) for line in lines_of(tmp_path, catalog.uuid)
    ]
    assert exported == listed


async def test_a_failing_catalog_leaves_the_others_complete(sandbox: Sandbox, tmp_path: Path) -> None:
    broken = sandbox.data.catalogs[1]
    sandbox.faults.inject(CONTENTS.format(broken.uuid), Fault.server_error(500), times=None)
    async with sandbox.client(max_retries=0) as client:
        summary = await export_catalogs(client, tmp_path)
    assert not summary.ok
    assert [outcome.uuid for outcome in summary.failed] == [broken.uuid]
    assert "ServerError" in (summary.failed[0].error or "")
    assert not (tmp_path / f"{broken.uuid}.jsonl").exists()
    for catalog in sandbox.data.catalogs:
        if catalog is not broken:
            assert len(lines_of(tmp_path, catalog.uuid)) == catalog.item_count


async def test_a_failed_catalog_is_named_in_the_manifest_until_a_resume_completes_it(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    broken = sandbox.data.catalogs[1]
    sandbox.faults.inject(CONTENTS.format(broken.uuid), Fault.server_error(500), times=None)
    async with sandbox.client(max_retries=0) as client:
        await export_catalogs(client, tmp_path)
    failed = orjson.loads((tmp_path / MANIFEST_NAME).read_bytes())["failed"]
    assert list(failed) == [broken.uuid]
    assert "ServerError" in failed[broken.uuid]["reason"]
    sandbox.faults.clear()
    async with sandbox.client() as client:
        summary = await export_catalogs(client, tmp_path, resume=True)
    assert summary.ok
    assert [outcome.uuid for outcome in summary.outcomes if outcome.status == "complete"] == [broken.uuid]
    assert orjson.loads((tmp_path / MANIFEST_NAME).read_bytes())["failed"] == {}


async def test_a_catalog_failing_after_its_first_page_keeps_it_in_a_partial_file_only(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    broken = sandbox.data.catalogs[0]
    sandbox.faults.inject(CONTENTS.format(broken.uuid), Fault.server_error(500), times=None, skip=1)
    async with sandbox.client(max_retries=0) as client:
        summary = await export_catalogs(client, tmp_path, page_size=20)  # several pages, not one of 100
    (failed,) = summary.failed
    assert failed.items == 20  # page 1 was written, and is kept for a resume
    assert files_of(tmp_path, broken.uuid) == [f"{broken.uuid}.jsonl.part"]


async def test_resume_skips_the_catalogs_already_complete(sandbox: Sandbox, tmp_path: Path) -> None:
    broken = sandbox.data.catalogs[3]
    sandbox.faults.inject(CONTENTS.format(broken.uuid), Fault.server_error(503), times=None)
    async with sandbox.client(max_retries=0) as client:
        await export_catalogs(client, tmp_path)
        sandbox.faults.clear()
        sandbox.requests.clear()
        summary = await export_catalogs(client, tmp_path, resume=True)
    contents_requested = {entry.path for entry in sandbox.requests.find("GET", CONTENTS.format("*"))}
    assert contents_requested == {CONTENTS.format(broken.uuid)}
    assert [outcome.uuid for outcome in summary.completed] == [broken.uuid]
    assert len(summary.skipped) == len(sandbox.data.catalogs) - 1
    assert summary.ok
    for catalog in sandbox.data.catalogs:
        assert len(lines_of(tmp_path, catalog.uuid)) == catalog.item_count


async def test_without_resume_every_catalog_is_exported_again(sandbox: Sandbox, tmp_path: Path) -> None:
    async with sandbox.client() as client:
        await export_catalogs(client, tmp_path)
        summary = await export_catalogs(client, tmp_path)
    assert len(summary.completed) == len(sandbox.data.catalogs)
    assert not summary.skipped


async def test_resume_exports_again_a_catalog_whose_file_was_changed(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    edited = sandbox.data.catalogs[0]
    async with sandbox.client() as client:
        await export_catalogs(client, tmp_path)
        with (tmp_path / f"{edited.uuid}.jsonl").open("ab") as file:
            file.write(b'{"not": "an item"}\n')
        summary = await export_catalogs(client, tmp_path, resume=True)
    assert [outcome.uuid for outcome in summary.completed] == [edited.uuid]
    assert len(lines_of(tmp_path, edited.uuid)) == edited.item_count


async def test_resume_exports_again_a_catalog_modified_since(sandbox: Sandbox, tmp_path: Path) -> None:
    changed = sandbox.data.catalogs[4]
    async with sandbox.client() as client:
        await export_catalogs(client, tmp_path)
        manifest = orjson.loads((tmp_path / MANIFEST_NAME).read_bytes())
        manifest["catalogs"][changed.uuid]["content_last_modified"] = "2001-01-01T00:00:00+00:00"
        (tmp_path / MANIFEST_NAME).write_bytes(orjson.dumps(manifest))
        summary = await export_catalogs(client, tmp_path, resume=True)
    assert [outcome.uuid for outcome in summary.completed] == [changed.uuid]


async def test_an_unreadable_manifest_means_exporting_everything(sandbox: Sandbox, tmp_path: Path) -> None:
    async with sandbox.client() as client:
        await export_catalogs(client, tmp_path)
        (tmp_path / MANIFEST_NAME).write_text("{ truncated")
        summary = await export_catalogs(client, tmp_path, resume=True)
    assert len(summary.completed) == len(sandbox.data.catalogs)


async def test_the_manifest_describes_each_complete_file(sandbox: Sandbox, tmp_path: Path) -> None:
    async with sandbox.client() as client:
        await export_catalogs(client, tmp_path)
    entries = orjson.loads((tmp_path / MANIFEST_NAME).read_bytes())["catalogs"]
    assert set(entries) == {catalog.uuid for catalog in sandbox.data.catalogs}
    for catalog in sandbox.data.catalogs:
        entry = entries[catalog.uuid]
        data = (tmp_path / entry["file"]).read_bytes()
        assert (entry["items"], entry["bytes"]) == (catalog.item_count, len(data))
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()


async def test_an_interrupted_export_leaves_no_file_that_looks_complete(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    slow = sandbox.data.catalogs[0]
    sandbox.faults.inject(CONTENTS.format(slow.uuid), Fault.latency(30), times=None, skip=1)
    recorder = Recorder(tmp_path)
    async with sandbox.client() as client:
        export = asyncio.ensure_future(export_catalogs(client, tmp_path, page_size=20, progress=recorder))
        await asyncio.wait_for(recorder.writing[slow.uuid].wait(), 30)  # page 1 is on disk
        export.cancel()
        with pytest.raises(asyncio.CancelledError):
            await export
    assert files_of(tmp_path, slow.uuid) == [f"{slow.uuid}.jsonl.part"]  # kept for a resume, and no more
    assert slow.uuid not in completed_in_manifest(tmp_path)


async def test_each_page_is_on_disk_before_the_next_is_reported(sandbox: Sandbox, tmp_path: Path) -> None:
    recorder = Recorder(tmp_path)
    async with sandbox.client() as client:
        await export_catalogs(client, tmp_path, page_size=10, progress=recorder)
    for catalog in sandbox.data.catalogs:
        sizes = recorder.on_disk[catalog.uuid]
        assert sizes == [min(10 * page, catalog.item_count) for page in range(1, len(sizes) + 1)]
        assert sizes[-1] == catalog.item_count


async def test_progress_hears_of_every_catalog_and_item(sandbox: Sandbox, tmp_path: Path) -> None:
    recorder = Recorder(tmp_path)
    async with sandbox.client() as client:
        await export_catalogs(client, tmp_path, progress=recorder)
    uuids = [catalog.uuid for catalog in sandbox.data.catalogs]
    assert recorder.listed == uuids
    assert recorder.totals == {catalog.uuid: catalog.item_count for catalog in sandbox.data.catalogs}
    assert recorder.written == recorder.totals
    assert sorted(outcome.uuid for outcome in recorder.finished) == sorted(uuids)


async def test_catalogs_and_pages_are_fetched_concurrently_under_max_concurrency(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    # Each request is held 0.2 s, so requests of several catalogs and pages overlap if and only if
    # the export runs them concurrently: counted as they go out and come back, never timed.
    sandbox.faults.inject(CONTENTS.format("*"), Fault.latency(0.2), times=None)
    in_flight = InFlight()
    async with (
        aiohttp.ClientSession(trace_configs=[in_flight.trace_config()]) as session,
        sandbox.client(max_concurrency=6, session=session) as client,
    ):
        summary = await export_catalogs(client, tmp_path)
    assert summary.ok
    assert in_flight.peak == 6


class InFlight:
    """Requests in flight, seen by an aiohttp ``TraceConfig``: the most at any moment."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0

    def trace_config(self) -> aiohttp.TraceConfig:
        config = aiohttp.TraceConfig()

        async def started(*_: object) -> None:
            self.now += 1
            self.peak = max(self.peak, self.now)

        async def ended(*_: object) -> None:
            self.now -= 1

        config.on_request_start.append(started)
        config.on_request_end.append(ended)
        config.on_request_exception.append(ended)
        return config


def test_catalog_file_names_stay_inside_the_directory() -> None:
    assert (
        catalog_file_name("efb212ab-95eb-45c2-ac7f-ea5f3e39cbc5")
        == "efb212ab-95eb-45c2-ac7f-ea5f3e39cbc5.jsonl"
    )
    name = catalog_file_name("../../etc/passwd")
    assert "/" not in name
    assert not name.startswith(".")
