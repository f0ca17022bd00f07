"""Exports you can trust: resume checks content, one run per directory, signals leave nothing
that looks finished."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from enterprise_async.cli import cli, export_catalogs
from enterprise_async.exports._lock import DIRECTORY_LOCK_NAME, DirectoryLock, DirectoryLockedError
from tests.hostile.lost_server import Listing, LostServer, items, serving

COMMAND = (sys.executable, "-m", "enterprise_async")
CATALOG = "c0ffee00-0000-4000-8000-000000000001"
OTHER = "c0ffee00-0000-4000-8000-000000000002"


@pytest.fixture
def server() -> Iterator[LostServer]:
    with serving() as running:
        yield running


def run_command(server: LostServer, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    for name, value in server.environment.items():
        monkeypatch.setenv(name, value)
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def statuses(stdout: str) -> dict[str, str]:
    return {entry["uuid"]: entry["status"] for entry in orjson.loads(stdout)["catalogs"]}


def test_resume_exports_again_a_file_whose_bytes_changed_in_place(
    server: LostServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server.catalog(CATALOG, Listing(items(30)))
    server.catalog(OTHER, Listing(items(30, "other")))
    assert run_command(server, monkeypatch, "catalogs", "export", "--out", str(tmp_path)).exit_code == 0
    file = tmp_path / f"{CATALOG}.jsonl"
    exported = file.read_bytes()
    file.write_bytes(exported.replace(b'{"', b'["', 1))  # same size, first line no longer JSON

    ran = run_command(server, monkeypatch, "catalogs", "export", "--out", str(tmp_path), "--resume", "--json")
    assert ran.exit_code == 0
    assert statuses(ran.stdout) == {CATALOG: "complete", OTHER: "skipped"}
    assert file.read_bytes() == exported


def test_a_second_export_into_a_directory_in_use_fails_naming_the_holder(
    server: LostServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server.catalog(CATALOG, Listing(items(30)))
    with DirectoryLock(tmp_path, run_id="nightly-run"):
        ran = run_command(server, monkeypatch, "catalogs", "export", "--out", str(tmp_path))
    assert ran.exit_code == 1
    (error,) = ran.stderr.splitlines()  # the error alone: no progress bar of an export not begun
    assert "DirectoryLockedError" in error
    assert f"run nightly-run (pid {os.getpid()}" in error
    assert not list(tmp_path.glob("*.jsonl*"))  # nothing was written


async def test_export_catalogs_refuses_a_directory_in_use_and_releases_its_own(
    server: LostServer, tmp_path: Path
) -> None:
    server.catalog(CATALOG, Listing(items(5)))
    async with server.client() as client:
        with DirectoryLock(tmp_path, run_id="other"), pytest.raises(DirectoryLockedError) as raised:
            await export_catalogs(client, tmp_path)
        assert raised.value.holder is not None
        assert raised.value.holder.run_id == "other"
        summary = await export_catalogs(client, tmp_path)
    assert summary.ok
    assert not (tmp_path / DIRECTORY_LOCK_NAME).exists()


# ---------------------------------------------------------------------- signals


def start_export(server: LostServer, directory: Path) -> subprocess.Popen[str]:
    """An export in a child process, one page at a time, so that a signal finds it mid-way."""
    return subprocess.Popen(
        [*COMMAND, "catalogs", "export", "--out", str(directory), "--max-concurrency", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | server.environment | {"COLUMNS": "160"},
    )


def wait_for_a_written_page(process: subprocess.Popen[str], directory: Path) -> None:
    """Until a catalog's partial file holds a page (or the process ended, which the test reports)."""
    while process.poll() is None:
        if any(part.stat().st_size for part in directory.glob("*.part")):
            return
        time.sleep(0.05)


@pytest.mark.parametrize(("stop", "exit_code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_mid_export_exits_with_its_code_and_nothing_looks_finished(
    server: LostServer, tmp_path: Path, stop: signal.Signals, exit_code: int
) -> None:
    server.catalog(CATALOG, Listing(items(60), latency=0.3))
    server.catalog(OTHER, Listing(items(60, "other"), latency=0.3))
    process = start_export(server, tmp_path)
    wait_for_a_written_page(process, tmp_path)
    process.send_signal(stop)
    _, stderr = process.communicate(timeout=60)

    assert process.returncode == exit_code
    assert f"Error: interrupted by {stop.name}" in stderr
    assert "Traceback" not in stderr
    assert list(tmp_path.glob("*.part"))  # partial files kept, for --resume
    assert not list(tmp_path.glob("*.jsonl"))  # and none looks complete
    assert not (tmp_path / DIRECTORY_LOCK_NAME).exists()
    overall = next(line for line in stderr.splitlines() if "all catalogs" in line)
    assert "interrupted" in overall
    done, total = re.findall(r"(\d+)/(\d+|\?)", overall)[0]
    assert total == "?" or int(done) < int(total)  # a total not yet known, or not reached
