"""``catalogs export --queue`` and ``worker`` from the command line, against a served sandbox."""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson
import pytest

from enterprise_async.testing import Sandbox
from tests.cli.conftest import CommandLine, cli, issued_tokens, served  # noqa: F401 (fixtures)

from ._fleet import ROOT, wait_until_enqueued, worker_command


def start_workers_once_enqueued(redis_url: str, jobs: int, count: int) -> list[subprocess.Popen[bytes]]:
    wait_until_enqueued(redis_url, jobs)
    return [
        subprocess.Popen(
            worker_command(redis_url),
            cwd=ROOT,
            env=dict(os.environ),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(count)
    ]


def test_export_through_the_queue_writes_every_catalog_and_the_manifest_in_the_commands_format(
    cli: CommandLine,  # noqa: F811
    served: Sandbox,  # noqa: F811
    redis_url: str,
    tmp_path: Path,
) -> None:
    catalogs = len(served.data.catalogs)
    with ThreadPoolExecutor(1) as background:
        # Workers in --burst start once the jobs are queued: before them, they would find none and stop.
        starting = background.submit(start_workers_once_enqueued, redis_url, catalogs, 2)
        ran = cli(
            "catalogs", "export", "--queue", redis_url, "--out", str(tmp_path), "--json", "--format", "xml"
        )
        workers = starting.result()
    assert [worker.wait(timeout=60) for worker in workers] == [0, 0]
    assert ran.exit_code == 0
    summary = orjson.loads(ran.stdout)
    manifest = orjson.loads((tmp_path / "manifest.json").read_bytes())
    assert summary["completed"] == len(served.data.catalogs) == len(manifest["catalogs"])
    contents = served.requests.find(operation="catalogs.contents")
    assert {entry.headers["Accept"] for entry in contents} == {"application/xml"}  # the command's --format


def test_a_worker_without_credentials_exits_with_a_usage_error(
    cli: CommandLine,  # noqa: F811
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("ENTERPRISE_CLIENT_ID", "ENTERPRISE_CLIENT_SECRET", "ENTERPRISE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    ran = cli("worker", "--queue", redis_url, "--burst")
    assert ran.exit_code == 2
