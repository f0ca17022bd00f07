"""``catalogs export`` with an item it cannot read (exit 5, the rejects file named) and with
``--changes`` (a line per catalog saying what changed, and the total; a failed catalog saying it
reports nothing; progress bars counting the changes as they grow; an export by customer naming
each catalog after its customer), through the command line."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from enterprise_async.cli._export_views import customers_summary_view
from enterprise_async.cli._failures import EXIT_INCOMPLETE, EXIT_REJECTED
from enterprise_async.cli._progress import OVERALL, CatalogProgressBars
from enterprise_async.exports import CatalogOutcome, ChangeCounts, ExportSummary, export_catalogs
from enterprise_async.exports._outcomes import Status
from enterprise_async.fleet._customer_queue import CustomerOutcome, CustomersSummary
from enterprise_async.models import Catalog
from enterprise_async.testing import DataSize, Fault, Sandbox

from .conftest import CommandLine


def test_an_export_holding_an_unreadable_item_exits_5_naming_its_rejects_file(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    catalog = served.data.catalogs[0]
    served.edits.update(catalog.uuid, 3, key=None)  # a content key sent as null: unreadable
    ran = cli("catalogs", "export", "--out", str(tmp_path))
    assert ran.exit_code == EXIT_REJECTED == 5
    rejects = f"{catalog.uuid}.rejects.jsonl"
    row = next(line for line in ran.stdout.splitlines() if line.startswith(catalog.uuid))
    assert "complete, 1 rejected" in row
    assert f"{catalog.uuid}  1 rejected: {rejects}" in ran.stdout
    assert ran.error_lines[-1] == (
        f"Error: 1 item could not be read; each is in its catalog's rejects file ({rejects}), "
        "every other item is exported"
    )
    assert any(f"{catalog.title} (1 rejected)" in line for line in ran.error_lines)  # its progress bar
    [reject] = (tmp_path / rejects).read_text().splitlines()
    assert json.loads(reject)["item"]["key"] is None  # as sent
    as_json = cli("catalogs", "export", "--out", str(tmp_path / "again"), "--json")
    assert as_json.exit_code == 5
    summary = json.loads(as_json.stdout)
    assert (summary["ok"], summary["rejected"]) == (True, 1)


def test_changes_print_a_line_per_catalog_and_their_total(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    first, second = served.data.catalogs[:2]
    assert cli("catalogs", "export", "--out", str(tmp_path), "--changes").exit_code == 0
    served.edits.update(first.uuid, 2, title="Renamed")
    served.edits.remove(first.uuid, 9)
    served.edits.touch(second.uuid, 4)  # read again: nothing changed
    ran = cli("catalogs", "export", "--out", str(tmp_path), "--changes")
    assert ran.exit_code == 0
    lines = ran.stdout.splitlines()
    assert f"{first.title}: 0 created, 1 updated, 1 removed, 43 unchanged" in lines
    assert f"{second.title}: 0 created, 0 updated, 0 removed, 45 unchanged" in lines
    others = len(served.data.catalogs) - 2
    assert f"changes: 0 created, 1 updated, 1 removed, {43 + 45 * (1 + others):,} unchanged" in lines
    bars = ran.error_lines  # the progress bars count the changes as they grow
    assert any(f"{first.title} (0 created, 1 updated, 1 removed)" in line for line in bars)
    assert any("all catalogs (0 created, 1 updated, 1 removed)" in line for line in bars)
    changes = (tmp_path / f"{first.uuid}.changes.jsonl").read_text().splitlines()
    assert [json.loads(line)["change"] for line in changes] == ["updated", "removed"]


def test_a_catalog_whose_listing_failed_says_it_reports_nothing_removed_and_why(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    first, second = served.data.catalogs[:2]
    assert cli("catalogs", "export", "--out", str(tmp_path), "--changes").exit_code == 0
    earlier = (tmp_path / f"{first.uuid}.changes.jsonl").read_bytes()
    served.edits.remove(first.uuid, 40)
    served.edits.update(second.uuid, 1, title="Renamed")
    contents = f"/enterprise/v2/enterprise-catalogs/{first.uuid}"
    served.faults.inject(contents, Fault.server_error(503), skip=3, times=None)  # its count, pages 1 and 2
    options = ("--out", str(tmp_path), "--changes", "--page-size", "10", "--max-retries", "0")
    ran = cli("catalogs", "export", *options)
    assert ran.exit_code == EXIT_INCOMPLETE == 3
    said = " ".join(ran.stdout.split())  # its line wraps at the console's width
    assert (
        f"{first.title}: no change reported, nothing removed: its listing failed "
        "(page 3: 503 Service Unavailable" in said
    )
    assert "its last complete export stays its baseline" in said
    assert f"{second.title}: 0 created, 1 updated, 0 removed, 44 unchanged" in ran.stdout.splitlines()
    assert "; 1 failed catalog(s) not counted" in said
    assert (tmp_path / f"{first.uuid}.changes.jsonl").read_bytes() == earlier  # nothing new said
    served.faults.clear()
    resumed = cli("catalogs", "export", *options, "--resume")
    assert resumed.exit_code == 0
    assert f"{first.title}: 0 created, 0 updated, 1 removed, 44 unchanged" in resumed.stdout.splitlines()


async def test_the_progress_bars_count_the_changes_as_they_grow(tmp_path: Path) -> None:
    """After each page, the catalog's label and the overall one count what changed so far; the
    removals come once the listing has ended (only then is an item known to be gone)."""
    labels: list[tuple[str, str]] = []

    class Watched(CatalogProgressBars):
        def changes_counted(self, catalog: Catalog, counts: ChangeCounts) -> None:
            super().changes_counted(catalog, counts)
            if catalog.uuid == watched:
                shown = {task.id: task.description for task in self._progress.tasks}
                labels.append((shown[self._bars[watched]], shown[self._overall]))

    async with Sandbox(
        seed=7, size=DataSize(customers=1, catalogs_per_customer=1, catalog_items=45)
    ) as sandbox:
        watched = sandbox.data.catalogs[0].uuid
        title = sandbox.data.catalogs[0].title
        async with sandbox.client(max_concurrency=1) as client:
            await export_catalogs(client, tmp_path, page_size=10, changes=True)
            sandbox.edits.update(watched, 3, title="Early")  # page 1
            sandbox.edits.update(watched, 33, title="Late")  # page 4, once the removal below is made
            sandbox.edits.remove(watched, 20)
            with Watched(Console(file=io.StringIO(), width=200)) as bars:
                await export_catalogs(client, tmp_path, page_size=10, changes=True, progress=bars)
    grown = [(0, 1, 0)] * 3 + [(0, 2, 0)] * 2 + [(0, 2, 1)]  # pages 1 to 5, then the listing's end
    assert labels == [
        (
            f"{title} ({created} created, {updated} updated, {removed} removed)",
            f"{OVERALL} ({created} created, {updated} updated, {removed} removed)",
        )
        for created, updated, removed in grown
    ]


def test_an_export_by_customer_prints_each_catalogs_changes_named_after_its_customer(tmp_path: Path) -> None:
    def outcome(title: str, status: Status, changes: ChangeCounts | None, error: str | None = None) -> Any:
        path = tmp_path / f"{title}.jsonl" if status != "failed" else None
        return CatalogOutcome(title, title, status, 45, path, 0.1, error=error, changes=changes)

    acme = ExportSummary(
        tmp_path / "acme",
        (
            outcome("Business Catalog", "complete", ChangeCounts(1, 2, 3, 39)),
            outcome(
                "Executive Catalog",
                "failed",
                None,
                "page 3: 503 Service Unavailable",
            ),
        ),
        1.0,
    )
    globex = ExportSummary(
        tmp_path / "globex", (outcome("Business Catalog", "complete", ChangeCounts(0, 1, 0, 44)),), 1.0
    )
    summary = CustomersSummary(
        tmp_path,
        (
            CustomerOutcome("acme", acme, 1.0),
            CustomerOutcome("globex", globex, 1.0),
            CustomerOutcome("initech", None, 0.1, "the token request was refused with 401 Unauthorized"),
        ),
        2.0,
    )
    console = Console(file=io.StringIO(), width=300)
    console.print(customers_summary_view(summary, changes=True))
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert "acme / Business Catalog: 1 created, 2 updated, 3 removed, 39 unchanged" in lines
    assert (
        "acme / Executive Catalog: no change reported, nothing removed: its listing failed "
        "(page 3: 503 Service Unavailable); its last complete export stays its baseline"
    ) in lines
    assert "globex / Business Catalog: 0 created, 1 updated, 0 removed, 44 unchanged" in lines
    assert "changes: 1 created, 3 updated, 3 removed, 83 unchanged; 1 failed catalog(s) not counted" in lines
    console = Console(file=io.StringIO(), width=300)
    console.print(customers_summary_view(summary))  # without changes: no such line
    assert "changes:" not in console.file.getvalue()  # type: ignore[attr-defined]
