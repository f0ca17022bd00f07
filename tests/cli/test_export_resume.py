"""``catalogs export --resume`` after a process killed mid-catalog (SIGKILL: nothing of it runs any
more): the catalog it was writing continues from the page its manifest checkpointed, the partial
file cut back to that checkpoint, and every item is in the file exactly once, in order."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from enterprise_async.cli._export_views import export_totals
from enterprise_async.exports import export_catalogs
from enterprise_async.exports._manifest import MANIFEST_NAME, CatalogCheckpoint, Manifest
from enterprise_async.models import Catalog
from enterprise_async.testing import DataSize, Fault, Sandbox
from tests.cli.conftest import ENVIRONMENT

COMMAND = (sys.executable, "-m", "enterprise_async", "catalogs", "export", "--page-size", "20")
CONTENTS = "/enterprise/v2/enterprise-catalogs/{}"
ITEMS = 240


class Served:
    """A sandbox serving from its own thread (so that a child process and the test's own event
    loops can both talk to it), with every catalog page slowed down so a kill lands mid-catalog."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="resume-sandbox", daemon=True)
        size = DataSize(customers=1, catalogs_per_customer=2, catalog_items=ITEMS)
        self.sandbox = Sandbox(seed=5, size=size)

    def __enter__(self) -> Served:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.sandbox.start(), self.loop).result(timeout=30)
        return self

    def __exit__(self, *_: object) -> None:
        asyncio.run_coroutine_threadsafe(self.sandbox.stop(), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=30)
        self.loop.close()

    @property
    def environment(self) -> dict[str, str]:
        sandbox = self.sandbox
        values = (sandbox.client_id, sandbox.client_secret, sandbox.base_url, sandbox.auth_url)
        return dict(zip(ENVIRONMENT, values, strict=True))

    def export(self, directory: Path, *extra: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*COMMAND, "--out", str(directory), "--max-concurrency", "1", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ | self.environment,
        )

    def export_in_process(self, directory: Path, *, resume: bool = False) -> Any:
        async def run() -> Any:
            async with self.sandbox.client(max_concurrency=1) as client:
                return await export_catalogs(client, directory, resume=resume, page_size=20)

        return asyncio.run(run())


@pytest.fixture
def served() -> Iterator[Served]:
    with Served() as running:
        yield running


def checkpoints(directory: Path) -> dict[str, Any]:
    try:
        document = orjson.loads((directory / MANIFEST_NAME).read_bytes())
    except (FileNotFoundError, orjson.JSONDecodeError):
        return {}
    found: dict[str, Any] = document.get("checkpoints", {})
    return found


def kill_mid_catalog(served: Served, directory: Path) -> dict[str, Any]:
    """Run an export in a child process, SIGKILL it once a catalog has three pages checkpointed,
    and give the furthest checkpoint (the catalogs are written together: others may have one)."""
    served.sandbox.faults.inject("/enterprise/v2/enterprise-catalogs/*", Fault.latency(0.05), times=None)
    process = served.export(directory)
    try:
        while process.poll() is None:
            written = [entry for entry in checkpoints(directory).values() if entry["pages"] >= 3]
            if written:
                process.send_signal(signal.SIGKILL)
                break
            time.sleep(0.01)
    finally:
        process.kill()
        process.communicate(timeout=60)
    served.sandbox.faults.clear()
    assert process.returncode == -signal.SIGKILL, "the export ended before it was killed"
    checkpoint: dict[str, Any] = max(checkpoints(directory).values(), key=lambda entry: entry["pages"])
    assert checkpoint["pages"] >= 3
    return checkpoint


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def assert_same_files(resumed: Path, fresh: Path) -> None:
    names = sorted(path.name for path in fresh.glob("*.jsonl"))
    assert sorted(path.name for path in resumed.glob("*.jsonl")) == names
    assert not list(resumed.glob("*.part"))
    for name in names:
        assert lines(resumed / name) == lines(fresh / name)  # every item once, in order
        assert len(set(lines(resumed / name))) == ITEMS


def pages_requested(served: Served, uuid: str) -> list[int]:
    entries = served.sandbox.requests.find("GET", CONTENTS.format(uuid))
    return sorted(int(dict(entry.query).get("page", "1")) for entry in entries)


def test_a_killed_export_resumed_by_the_command_continues_mid_catalog_with_every_item_once(
    served: Served, tmp_path: Path
) -> None:
    killed, fresh = tmp_path / "killed", tmp_path / "fresh"
    checkpoint = kill_mid_catalog(served, killed)
    assert (killed / checkpoint["file"]).stat().st_size >= checkpoint["bytes"]
    served.sandbox.requests.clear()
    resumed = served.export(killed, "--resume")
    _, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    requested = pages_requested(served, checkpoint["uuid"])
    assert requested[0] >= checkpoint["pages"]  # not page 1: at most the last page written, checked
    assert checkpoint["pages"] + 1 in requested
    served.export_in_process(fresh)
    assert_same_files(killed, fresh)
    assert checkpoints(killed) == {}


def test_a_page_half_written_when_the_export_was_killed_is_cut_back_and_written_once(
    served: Served, tmp_path: Path
) -> None:
    killed, fresh = tmp_path / "killed", tmp_path / "fresh"
    checkpoint = kill_mid_catalog(served, killed)
    taken = checkpoints(killed)
    with (killed / checkpoint["file"]).open("ab") as partial:
        partial.write(b'{"key": "half of a line')  # what a kill in the middle of a page leaves
    summary = served.export_in_process(killed, resume=True)
    served.export_in_process(fresh)
    assert summary.ok
    assert_same_files(killed, fresh)
    # the rate counts this run's own items: not those the checkpoint already had on disk
    for outcome in summary.completed:
        assert outcome.resumed == taken.get(outcome.uuid, {}).get("items", 0)
    assert summary.items_this_run == summary.items - sum(entry["items"] for entry in taken.values())
    assert summary.to_dict()["items_this_run"] == summary.items_this_run
    shown = export_totals(summary)
    assert f"{summary.items_this_run:,} of them in this run" in shown
    rate = summary.items_this_run / summary.seconds
    assert f"({rate:,.0f} items/s)" in shown


def test_a_partial_file_that_is_not_its_checkpoints_is_exported_again_from_the_start(
    served: Served, tmp_path: Path
) -> None:
    killed, fresh = tmp_path / "killed", tmp_path / "fresh"
    checkpoint = kill_mid_catalog(served, killed)
    partial = killed / checkpoint["file"]
    partial.write_bytes(b"X" + partial.read_bytes()[1:])  # the same size, another beginning
    served.sandbox.requests.clear()
    served.export_in_process(killed, resume=True)
    served.export_in_process(fresh)
    assert pages_requested(served, checkpoint["uuid"])[0] == 1
    assert_same_files(killed, fresh)


def test_a_resume_in_another_page_size_exports_the_catalog_again_from_the_start(
    served: Served, tmp_path: Path
) -> None:
    killed, fresh = tmp_path / "killed", tmp_path / "fresh"
    checkpoint = kill_mid_catalog(served, killed)
    served.sandbox.requests.clear()
    resumed = served.export(killed, "--resume", "--page-size", "50")
    _, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    assert pages_requested(served, checkpoint["uuid"])[0] == 1
    served.export_in_process(fresh)
    assert_same_files(killed, fresh)


@pytest.mark.parametrize(
    "tampered",
    [{"bytes": "12"}, {"items": -1}, {"cursor": 5}, {"unknown": 1}],
)
def test_a_checkpoint_not_as_written_is_not_continued_from(tmp_path: Path, tampered: dict[str, Any]) -> None:
    entry = {
        "uuid": "c1",
        "file": "c1.jsonl.part",
        "cursor": "{}",
        "items": 20,
        "pages": 1,
        "bytes": 100,
        "sha256": "0" * 64,
        "content_last_modified": None,
        "written_at": "2026-11-24T00:00:00+00:00",
    }
    document = {"version": 1, "catalogs": {}, "failed": {}, "checkpoints": {"c1": entry | tampered}}
    (tmp_path / MANIFEST_NAME).write_bytes(orjson.dumps(document))
    manifest = Manifest(tmp_path)
    assert manifest.checkpoint_of(Catalog(uuid="c1", title="One", enterprise_customer="e1")) is None


def test_a_checkpoint_as_written_is_read_back(tmp_path: Path) -> None:
    written = CatalogCheckpoint("c1", "c1.jsonl.part", "{}", 20, 1, 100, "0" * 64, None, "now")
    Manifest(tmp_path).checkpoint(written)
    assert (
        Manifest(tmp_path).checkpoint_of(Catalog(uuid="c1", title="One", enterprise_customer="e1")) == written
    )
