"""``demo``, ``sandbox`` and the two ways in (``python -m enterprise_async``, the console script)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from .conftest import CommandLine

STEPS = (
    "Subsidy access policies",
    "created: 2, updated: 0, no_change: 0",
    "created: 0, updated: 0, no_change: 2",
    "Learner state counts",
    "remind: done",
    "cancel: done",
    "License assignments",
    "partial result (207)",
    "Catalog contents",
    "bulk enrollment job",
    "exported 60 items from 2 catalogs",
)
"""The demo's token is tied to the first customer, whose 2 catalogs are all enterprise-catalog lists
to it (enterprise_catalog/apps/api/v1/views/enterprise_catalog_crud.py, get_queryset)."""


@pytest.mark.usefixtures("no_credentials")
def test_demo_tours_every_resource_without_credentials(cli: CommandLine, tmp_path: Path) -> None:
    ran = cli("demo", "--catalog-items", "30", "--out", str(tmp_path))
    assert ran.exit_code == 0, ran.stderr
    for step in STEPS:
        assert step in ran.stdout
    assert re.search(r"Export: exported 60 items from 2 catalogs in [0-9.]+ s", ran.stdout)
    assert (
        sorted(path.suffix for path in tmp_path.iterdir()) == [".json"] + [".jsonl"] * 4
    )  # exports, changes
    assert "Stark Industries Business Catalog: 1 created, 1 updated, 1 removed, 28 unchanged" in ran.stdout
    assert "changes: 1 created, 1 updated, 1 removed, 58 unchanged" in ran.stdout  # the other: unchanged
    assert "  created course:DemoX+SYNC.1x" in ran.stdout


@pytest.mark.usefixtures("no_credentials")
def test_demo_exports_to_a_temporary_directory_it_removes(cli: CommandLine) -> None:
    ran = cli("demo", "--catalog-items", "5", "--format", "xml")
    assert ran.exit_code == 0
    match = re.search(r"Export to (\S+)", ran.stdout)
    assert match is not None
    assert not Path(match.group(1)).exists()


def test_python_dash_m_runs_the_command_line() -> None:
    finished = subprocess.run(
        [sys.executable, "-m", "enterprise_async", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert finished.stdout.startswith("enterprise-async, version ")


def test_console_script_lists_every_command() -> None:
    script = Path(sys.executable).with_name("enterprise-async")
    finished = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60, check=True)
    for command in (
        "policies",
        "assignments",
        "subscriptions",
        "enrollments",
        "bulk",
        "catalogs",
        "learners",
        "demo",
        "sandbox",
    ):
        assert f"  {command} " in finished.stdout


def test_sandbox_serves_with_the_credentials_it_prints(
    cli: CommandLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "enterprise_async", "sandbox", "--port", "0", "--seed", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = [process.stdout.readline() for _ in range(6)]
        settings = dict(re.findall(r"^export (ENTERPRISE_[A-Z_]+)=(\S+)$", "".join(banner), re.MULTILINE))
        assert all(line.startswith(("export ", "# ")) for line in banner)
        sourced = subprocess.run(
            ["sh", "-c", "".join(banner) + 'echo "$ENTERPRISE_CLIENT_ID"'],
            capture_output=True, text=True, timeout=30, check=True,
        )  # fmt: skip
        assert sourced.stdout == "sandbox-client-3\n"  # a shell sources the lines as printed
        assert settings["ENTERPRISE_BASE_URL"].startswith("http://127.0.0.1:")
        assert settings["ENTERPRISE_CLIENT_ID"] == "sandbox-client-3"
        for name, value in settings.items():
            monkeypatch.setenv(name, value)
        cli.secrets.add(settings["ENTERPRISE_CLIENT_SECRET"])
        ran = cli("catalogs", "list", "--json")
        assert ran.exit_code == 0
        # The token's customer's catalogs only (enterprise-catalog enterprise_catalog_crud.py, get_queryset).
        assert len([orjson.loads(line) for line in ran.stdout.splitlines()]) == 2
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    assert process.returncode == 0
