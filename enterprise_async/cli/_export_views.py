"""How an export's outcome looks to people: a record per catalog (or per customer), the totals,
then one line per failure, its cause cut to the page and the reason (``short_cause``); ``--json``
and the manifest keep every whole message.
"""

from __future__ import annotations

import re
from typing import Final

import attrs
from rich.console import Group
from rich.text import Text

from ..exports import ChangeCounts, ExportSummary
from ..fleet._customer_queue import CustomersSummary
from ._record_list import Cell, ListColumn, RecordList, cell

__all__ = ["customers_summary_view", "export_summary_view", "export_totals", "short_cause"]


_STATUS_STYLE = {"complete": "green", "skipped": "dim", "failed": "red"}


EXPORT_COLUMNS: Final = (
    ListColumn("Catalog", identifier=True),
    ListColumn("Title"),
    ListColumn("Status"),
    ListColumn("Items", justify="right"),
    ListColumn("Seconds", justify="right"),
)


def export_summary_view(summary: ExportSummary, *, changes: bool = False) -> Group:
    """A catalog export: each catalog's outcome, the totals, one line per catalog holding items
    that could not be read (its rejects file), then one line per failed catalog: its id and why
    (the whole message is in ``--json`` and the manifest). With changes, one line per catalog
    saying what changed, and their total (``changes``: they were asked for, so that a run whose
    every catalog failed says so too)."""
    rows: list[list[Cell]] = [
        [
            outcome.uuid,
            cell(outcome.title),
            Text(outcome.state, style=_STATUS_STYLE[outcome.status]),
            f"{outcome.items:,}",
            f"{outcome.seconds:.2f}",
        ]
        for outcome in summary.outcomes
    ]
    outcomes = RecordList(
        f"Export to {summary.directory}",
        EXPORT_COLUMNS,
        rows,
        caption="one <catalog>.jsonl per catalog, and manifest.json",
    )
    failures = [_failure_line(outcome.uuid, outcome.error) for outcome in summary.failed]
    rejects = [
        Text.assemble((outcome.uuid, "bold"), f"  {outcome.rejected:,} rejected: ", str(outcome.rejects.name))
        for outcome in summary.outcomes
        if outcome.rejected and outcome.rejects is not None and outcome.status != "failed"
    ]
    return Group(
        outcomes,
        Text(export_totals(summary), style="bold"),
        *rejects,
        *changes_lines(summary, asked=changes),
        *failures,
    )


def changes_lines(summary: ExportSummary, *, asked: bool = False) -> list[Text]:
    """With changes: ``Business Catalog: 12 created, 3 updated, 1 removed, 4,210 unchanged`` per
    catalog (and why nothing was removed where nothing could be), then the total. A catalog whose
    listing failed says that it reports no change, nothing removed, and why; the total says how
    many such catalogs it leaves out."""
    total = summary.changes
    if total is None and not (asked and summary.failed):
        return []
    lines = []
    for outcome in summary.outcomes:
        changes = outcome.changes
        if outcome.status == "failed":
            lines.append(
                Text.assemble(
                    (outcome.title or outcome.uuid, "bold"),
                    ": no change reported, nothing removed: its listing failed "
                    f"({short_cause(outcome.error)}); its last complete export stays its baseline",
                )
            )
            continue
        if changes is None:
            continue
        line = Text.assemble((outcome.title or outcome.uuid, "bold"), f": {changes}")
        if changes.note:
            line.append(f" ({changes.note})", style="dim")
        lines.append(line)
    said = f"changes: {total or ChangeCounts()}"
    if summary.failed:
        said += f"; {len(summary.failed)} failed catalog(s) not counted"
    lines.append(Text(said, style="bold"))
    return lines


def _failure_line(name: str, error: str | None) -> Text:
    """``<id>  failed: <cause>`` on one line: the cause is cut at the console's edge, the id never."""
    return Text.assemble((name, "bold"), "  failed: ", short_cause(error), no_wrap=True, overflow="ellipsis")


_NOISE: Final = re.compile(
    r"\b[A-Z]\w*Error: "  # the error's kind: the words after it say the same
    r"|\b[a-z_]+\.[a-z_]+ (?=page )"  # the operation: an export reads catalogs' contents
    # the URL: the line names the catalog
    r"|\s?\(?\b(?:GET|POST|PUT|PATCH|DELETE) (?:https?://[^\s/)]*)?/[^\s)]*\)?"
    r"|\breturned |\bfailed: "
    r"| failed after [\d,]+ items(?: of [\d,]+)?"
    r"|\s*\(request id [^)]*\)"
)
"""What a one-line cause leaves out of an export's error message; the page and the reason stay."""


def short_cause(error: str | None) -> str:
    """An export's error for a one-line report: the page and the reason
    (``page 3: 503 Service Unavailable``); ``--json`` and the manifest keep the whole message."""
    return " ".join(_NOISE.sub("", error or "unknown error").split())


def export_totals(summary: ExportSummary) -> str:
    """One line: items, catalogs, time and rate; skipped and failed catalogs when there are any."""
    if summary.items_this_run != summary.items:  # resumed: the rate is this run's own items'
        own = summary.items_this_run
        rate = own / summary.seconds if summary.seconds > 0 else 0.0
        text = (
            f"exported {summary.items:,} items from {len(summary.completed)} catalogs, {own:,} of them "
            f"in this run, in {summary.seconds:.2f} s ({rate:,.0f} items/s)"
        )
    else:
        text = _pace(summary.items, f"from {len(summary.completed)} catalogs", summary.seconds)
    unchanged = sum(1 for outcome in summary.skipped if outcome.state.startswith("unchanged"))
    if len(summary.skipped) > unchanged:
        text += f"; {len(summary.skipped) - unchanged} already complete"
    if unchanged:
        text += f"; {unchanged} unchanged"
    if summary.rejected:
        text += f"; {summary.rejected:,} rejected"
    if summary.failed:
        text += f"; {len(summary.failed)} failed"
    return text


CUSTOMER_COLUMNS: Final = (
    ListColumn("Customer", identifier=True),
    ListColumn("Status"),
    ListColumn("Catalogs", justify="right"),
    ListColumn("Items", justify="right"),
    ListColumn("Seconds", justify="right"),
)


def customers_summary_view(summary: CustomersSummary, *, changes: bool = False) -> Group:
    """An export by customer: each customer's catalogs and items, the totals, with ``changes``
    one line per catalog saying what changed (``acme / Business Catalog: 12 created, ...``) and
    their total, then one line per failure: the customer's own, or one of its catalogs'."""
    rows: list[list[Cell]] = []
    failures: list[Text] = []
    for outcome in summary.outcomes:
        export = outcome.summary
        status = "complete" if outcome.ok else "failed"
        catalogs = f"{len(export.completed) + len(export.skipped)}/{len(export.outcomes)}" if export else "-"
        rows.append(
            [
                outcome.name,
                Text(status, style=_STATUS_STYLE[status]),
                catalogs,
                f"{export.items:,}" if export else "-",
                f"{outcome.seconds:.2f}",
            ]
        )
        if outcome.error:
            failures.append(_failure_line(outcome.name, outcome.error))
        failed = export.failed if export else ()
        failures += [_failure_line(f"{outcome.name} {catalog.uuid}", catalog.error) for catalog in failed]
    view = RecordList(
        f"Export to {summary.directory}",
        CUSTOMER_COLUMNS,
        rows,
        caption="one <customer>/ per customer, laid out as a catalog export",
    )
    totals = _pace(summary.items, f"for {len(summary.outcomes)} customers", summary.seconds)
    if summary.failed:
        totals += f"; {len(summary.failed)} incomplete"
    return Group(
        view, Text(totals, style="bold"), *(_customers_changes(summary) if changes else []), *failures
    )


def _customers_changes(summary: CustomersSummary) -> list[Text]:
    """Each customer's catalogs' changes lines, the catalog named after its customer, then the
    total over every customer (a customer that could not start has no line: its failure says why)."""
    lines: list[Text] = []
    total = ChangeCounts()
    failed = 0
    for outcome in summary.outcomes:
        export = outcome.summary
        if export is None:
            continue
        named = [
            attrs.evolve(catalog, title=f"{outcome.name} / {catalog.title or catalog.uuid}")
            for catalog in export.outcomes
        ]
        own = attrs.evolve(export, outcomes=tuple(named))
        lines += changes_lines(own, asked=True)[:-1]  # its own total left out
        total += own.changes or ChangeCounts()
        failed += len(own.failed)
    said = f"changes: {total}"
    if failed:
        said += f"; {failed} failed catalog(s) not counted"
    return [*lines, Text(said, style="bold")]


def _pace(items: int, whose: str, seconds: float) -> str:
    """The start of a totals line: ``exported 1,200 items <whose> in 3.10 s (387 items/s)``."""
    rate = items / seconds if seconds > 0 else 0.0
    return f"exported {items:,} items {whose} in {seconds:.2f} s ({rate:,.0f} items/s)"
