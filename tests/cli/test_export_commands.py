"""``catalogs export`` through the command line, against a served sandbox with faults."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from enterprise_async.testing import Fault, Sandbox

from .conftest import CommandLine

CONTENTS = "/enterprise/v2/enterprise-catalogs/{}"


def line_counts(directory: Path) -> dict[str, int]:
    return {path.stem: len(path.read_bytes().splitlines()) for path in directory.glob("*.jsonl")}


def test_export_counts_equal_the_catalog_sizes(cli: CommandLine, served: Sandbox, tmp_path: Path) -> None:
    ran = cli("catalogs", "export", "--out", str(tmp_path))
    assert ran.exit_code == 0
    assert line_counts(tmp_path) == {catalog.uuid: catalog.item_count for catalog in served.data.catalogs}
    total = sum(catalog.item_count for catalog in served.data.catalogs)
    assert f"exported {total:,} items from {len(served.data.catalogs)} catalogs" in ran.stdout


def test_export_json_summary_parses(cli: CommandLine, served: Sandbox, tmp_path: Path) -> None:
    ran = cli(
        "catalogs", "export", "--out", str(tmp_path), "--json", "--limit", "9", "--max-concurrency", "3"
    )
    summary = orjson.loads(ran.stdout)
    assert summary["ok"] is True
    assert summary["items"] == sum(catalog.item_count for catalog in served.data.catalogs)
    assert {entry["uuid"]: entry["status"] for entry in summary["catalogs"]} == {
        catalog.uuid: "complete" for catalog in served.data.catalogs
    }


def test_a_failing_catalog_exits_3_and_the_others_complete(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    broken = served.data.catalogs[2]
    served.faults.inject(CONTENTS.format(broken.uuid), Fault.server_error(500), times=None)
    ran = cli("catalogs", "export", "--out", str(tmp_path), "--max-retries", "0")
    assert ran.exit_code == 3
    assert line_counts(tmp_path) == {
        catalog.uuid: catalog.item_count for catalog in served.data.catalogs if catalog is not broken
    }
    (error,) = [line for line in ran.error_lines if line.startswith("Error:")]
    assert broken.uuid in error
    assert "1 of 6 catalogs failed" in error


def test_resume_skips_finished_catalogs(cli: CommandLine, served: Sandbox, tmp_path: Path) -> None:
    broken = served.data.catalogs[5]
    served.faults.inject(CONTENTS.format(broken.uuid), Fault.server_error(502), times=None)
    assert cli("catalogs", "export", "--out", str(tmp_path), "--max-retries", "0").exit_code == 3
    served.faults.clear()
    served.requests.clear()
    ran = cli("catalogs", "export", "--out", str(tmp_path), "--resume", "--json")
    assert ran.exit_code == 0
    requested = {entry.path for entry in served.requests.find("GET", CONTENTS.format("*"))}
    assert requested == {CONTENTS.format(broken.uuid)}
    statuses = {entry["uuid"]: entry["status"] for entry in orjson.loads(ran.stdout)["catalogs"]}
    assert statuses.pop(broken.uuid) == "complete"
    assert set(statuses.values()) == {"skipped"}
    assert line_counts(tmp_path) == {catalog.uuid: catalog.item_count for catalog in served.data.catalogs}


@pytest.mark.usefixtures("no_credentials")
def test_export_runs_against_the_embedded_sandbox(cli: CommandLine, tmp_path: Path) -> None:
    ran = cli("catalogs", "export", "--out", str(tmp_path), "--sandbox", "--format", "xml")
    assert ran.exit_code == 0
    data = Sandbox(seed=0).data  # the token's customer's catalogs: all enterprise-catalog lists to it
    expected = {catalog.uuid: catalog.item_count for catalog in data.catalogs_of(data.customers[0].uuid)}
    assert line_counts(tmp_path) == expected
