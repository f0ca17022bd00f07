"""An export that ends early keeps what it fetched: a page failing past its retries, a server
outage, Ctrl-C and SIGTERM all leave each catalog's partial file and page checkpoint, ``--resume``
continues after the last page written, and the result is the same bytes as a fresh export. A resume
that cannot verify a partial file starts that catalog again, and says so."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from enterprise_async.exports import export_catalogs
from enterprise_async.testing import Fault
from tests.cli.test_export_resume import (
    COMMAND,
    CONTENTS,
    Served,
    assert_same_files,
    checkpoints,
    pages_requested,
    served,
)
from tests.cli.test_hints import hint_in

__all__ = ["served"]


def export_failing(served: Served, directory: Path) -> Any:
    """An export of one page size and few retries (the test's faults make a catalog fail)."""

    async def run() -> Any:
        async with served.sandbox.client(max_concurrency=1, max_retries=1) as client:
            return await export_catalogs(client, directory, page_size=20)

    return asyncio.run(run())


@pytest.mark.parametrize(
    "fault", [Fault.server_error(503), Fault.drop()], ids=["page-past-retries", "outage"]
)
def test_a_catalog_that_fails_keeps_its_partial_file_and_resume_continues_after_its_last_page(
    served: Served, tmp_path: Path, fault: Fault
) -> None:
    failed, fresh = tmp_path / "failed", tmp_path / "fresh"
    catalog = served.sandbox.data.catalogs[0].uuid
    served.sandbox.faults.inject(CONTENTS.format(catalog), fault, skip=3, times=None)
    summary = export_failing(served, failed)
    served.sandbox.faults.clear()
    (outcome,) = summary.failed
    assert outcome.uuid == catalog
    checkpoint = checkpoints(failed)[catalog]
    assert checkpoint["pages"] == 3
    assert (failed / checkpoint["file"]).stat().st_size == checkpoint["bytes"]
    served.sandbox.requests.clear()
    assert served.export_in_process(failed, resume=True).ok
    # after the last page written (read once more to find its last item again), not from page 1
    assert pages_requested(served, catalog)[:2] == [3, 4]
    served.export_in_process(fresh)
    assert_same_files(failed, fresh)


@pytest.mark.parametrize(("stop", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stopped_export_keeps_its_partial_files_and_resume_finishes_them_byte_identical(
    served: Served, tmp_path: Path, stop: signal.Signals, code: int
) -> None:
    stopped, fresh = tmp_path / "stopped", tmp_path / "fresh"
    served.sandbox.faults.inject("/enterprise/v2/enterprise-catalogs/*", Fault.latency(0.05), times=None)
    process = served.export(stopped)
    try:
        while not any(entry["pages"] >= 3 for entry in checkpoints(stopped).values()):
            assert process.poll() is None, "the export ended before it was stopped"
            time.sleep(0.01)
        process.send_signal(stop)
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    served.sandbox.faults.clear()
    assert process.returncode == code, stderr
    assert "Traceback" not in stderr
    kept = max(checkpoints(stopped).values(), key=lambda entry: entry["pages"])
    assert (stopped / kept["file"]).stat().st_size >= kept["bytes"]
    # the message says how to go on, every option of the stopped run kept; run as told
    hint = hint_in(stderr.strip().splitlines()[-1])
    options = ["--out", str(stopped), "--page-size", "20", "--max-concurrency", "1", "--resume"]
    assert hint == ["catalogs", "export", *options]
    served.sandbox.requests.clear()
    resumed = subprocess.Popen(
        [*COMMAND[:3], *hint],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | served.environment,
    )
    _, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    assert "starts again" not in stderr
    requested = pages_requested(served, kept["uuid"])
    assert requested[0] >= kept["pages"]  # the last page written is read again to check, no earlier
    assert kept["pages"] + 1 in requested
    served.export_in_process(fresh)
    assert_same_files(stopped, fresh)


def test_a_resume_that_cannot_verify_a_partial_file_starts_the_catalog_again_and_says_so(
    served: Served, tmp_path: Path
) -> None:
    failed, fresh = tmp_path / "failed", tmp_path / "fresh"
    catalog = served.sandbox.data.catalogs[0].uuid
    served.sandbox.faults.inject(CONTENTS.format(catalog), Fault.server_error(503), skip=3, times=None)
    export_failing(served, failed)
    served.sandbox.faults.clear()
    partial = failed / checkpoints(failed)[catalog]["file"]
    partial.write_bytes(b"X" + partial.read_bytes()[1:])  # the same size, another beginning
    served.sandbox.requests.clear()
    resumed = served.export(failed, "--resume")
    _, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    assert f"catalog {catalog} starts again" in stderr
    assert pages_requested(served, catalog)[0] == 1
    served.export_in_process(fresh)
    assert_same_files(failed, fresh)
