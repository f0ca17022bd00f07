"""How the API's models look to people: rich tables and panels, one function per kind of result.

Columns are data (a header and an attribute path), so a view says what it shows, not how.
"""

from __future__ import annotations

import datetime
import decimal
import enum
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..exports import ExportSummary
from ..fleet._customer_queue import CustomersSummary
from ..models import (
    AllocationResult,
    Assignment,
    BulkEnrollmentJob,
    BulkRevokeResult,
    Catalog,
    ContentItem,
    ContentMetadata,
    Course,
    CourseRun,
    LearnerStateCount,
    LearnerSummary,
    LicenseAssignmentResult,
    Program,
    SubscriptionPlan,
    SubsidyAccessPolicy,
)

__all__ = [
    "Columns",
    "action_view",
    "allocation_view",
    "assignments_view",
    "catalogs_table",
    "cell",
    "contents_table",
    "course_run_view",
    "course_view",
    "customers_summary_view",
    "details",
    "enrollment_view",
    "export_summary_view",
    "export_totals",
    "learner_summary_table",
    "license_assignment_view",
    "plans_table",
    "policies_table",
    "program_view",
    "revocation_view",
    "table",
]

Columns = Sequence[tuple[str, str]]
"""(header, attribute path) pairs; a path may go through nested models (``aggregates.spend_limit``)."""

MISSING = "-"

POLICY_COLUMNS: Columns = (
    ("Policy", "uuid"),
    ("Name", "display_name"),
    ("Active", "active"),
    ("Available (USD)", "aggregates.spend_available_usd"),
    ("Assignment configuration", "assignment_configuration.uuid"),
)
ASSIGNMENT_COLUMNS: Columns = (
    ("Assignment", "uuid"),
    ("Learner", "learner_email"),
    ("Content", "content_key"),
    ("State", "state"),
    ("Learner state", "learner_state"),
)
PLAN_COLUMNS: Columns = (
    ("Plan", "uuid"),
    ("Title", "title"),
    ("Active", "is_active"),
    ("Expires", "expiration_date"),
    ("Assigned", "licenses.assigned"),
    ("Activated", "licenses.activated"),
    ("Unassigned", "licenses.unassigned"),
    ("Revoked", "licenses.revoked"),
)
LEARNER_SUMMARY_COLUMNS: Columns = (
    ("Learner", "user_email"),
    ("Course run", "courserun_key"),
    ("Progress", "progress_status"),
    ("Grade", "current_grade"),
    ("Passed", "has_passed"),
    ("Last activity", "last_activity_date"),
)
CATALOG_COLUMNS: Columns = (
    ("Catalog", "uuid"),
    ("Title", "title"),
    ("Query", "query_title"),
    ("Content modified", "content_last_modified"),
)


def cell(value: Any) -> str:
    """A value as table text: datetimes without seconds (nor a time at midnight), booleans as
    yes/no, enums as their wire value, floats with two decimals."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, datetime.datetime):
        midnight = (value.hour, value.minute, value.second) == (0, 0, 0)
        return value.strftime("%Y-%m-%d" if midnight else "%Y-%m-%d %H:%M")
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, (datetime.date, decimal.Decimal)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(cell(item) for item in value) or MISSING
    return str(value)


def _lookup(model: Any, path: str) -> Any:
    for name in path.split("."):
        model = getattr(model, name, None)
        if model is None:
            return None
    return model


def _identifier(path: str) -> bool:
    name = path.rsplit(".", 1)[-1]
    return name in ("uuid", "key", "license") or name.endswith("_uuid")


def table(title: str, columns: Columns, rows: Iterable[Any], *, caption: str | None = None) -> Table:
    """A table of models, one row each. Identifiers are never wrapped, so they can be copied."""
    view = Table(title=title, caption=caption, title_justify="left", header_style="bold")
    for header, path in columns:
        view.add_column(header, overflow="fold", no_wrap=_identifier(path))
    for row in rows:
        view.add_row(*(cell(_lookup(row, path)) for _, path in columns))
    return view


def details(title: str, model: Any, fields: Sequence[str]) -> Table:
    """One model as field/value pairs."""
    view = Table(title=title, show_header=False, title_justify="left")
    view.add_column(style="bold")
    view.add_column(overflow="fold")
    for name in fields:
        view.add_row(name, cell(_lookup(model, name)))
    return view


def _count(rows: Sequence[Any], noun: str, nouns: str | None = None) -> str:
    return f"{len(rows)} {noun if len(rows) == 1 else nouns or noun + 's'}"


def policies_table(policies: Sequence[SubsidyAccessPolicy]) -> Table:
    """Subsidy access policies."""
    return table(
        "Subsidy access policies", POLICY_COLUMNS, policies, caption=_count(policies, "policy", "policies")
    )


def assignments_view(assignments: Sequence[Assignment], counts: Sequence[LearnerStateCount]) -> Group:
    """Assignments, and the learner state counts their listing carries."""
    states = Table(title="Learner state counts", title_justify="left", header_style="bold")
    states.add_column("Learner state")
    states.add_column("Assignments", justify="right")
    for state in counts:
        states.add_row(cell(state.learner_state), cell(state.count))
    listed = table("Assignments", ASSIGNMENT_COLUMNS, assignments, caption=_count(assignments, "assignment"))
    return Group(listed, states)


def allocation_view(result: AllocationResult) -> Group:
    """What an allocation did: how many assignments were created, updated and left unchanged,
    and a table of each kind that has any."""
    counts: list[str] = []
    tables: list[RenderableType] = []
    for outcome in ("created", "updated", "no_change"):
        rows = getattr(result, outcome)
        if isinstance(rows, int):  # the reference declares counts where servers send lists
            counts.append(f"{outcome}: {rows}")
            continue
        counts.append(f"{outcome}: {len(rows)}")
        if rows:
            tables.append(table(outcome, ASSIGNMENT_COLUMNS, rows))
    return Group(Text(", ".join(counts), style="bold"), *tables)


def action_view(action: str, body: Any) -> RenderableType:
    """The answer of remind or cancel. The reference does not show its body, so show what came."""
    if body is None or body == "":
        return Text(f"{action}: done (no body)")
    if not isinstance(body, Mapping):
        return Text(f"{action}: {cell(body)}")
    view = Table(title=action, show_header=False, title_justify="left")
    view.add_column(style="bold")
    view.add_column(overflow="fold")
    for name, value in body.items():
        view.add_row(str(name), cell(value))
    return view


def plans_table(plans: Sequence[SubscriptionPlan]) -> Table:
    """Subscription plans with their license counters."""
    return table("Subscription plans", PLAN_COLUMNS, plans, caption=_count(plans, "plan"))


def license_assignment_view(result: LicenseAssignmentResult) -> Table:
    """Licenses just assigned."""
    caption = (
        f"{cell(result.num_successful_assignments)} assigned, "
        f"{cell(result.num_already_associated)} already associated"
    )
    return table(
        "License assignments",
        (("User", "user_email"), ("License", "license")),
        result.license_assignments,
        caption=caption,
    )


def revocation_view(result: BulkRevokeResult) -> Group:
    """A bulk revocation: what was revoked, what was not, and whether the result is partial (207)."""
    revoked = table(
        "Revoked",
        (("User", "user_email"), ("License", "license_uuid"), ("Was", "original_status")),
        result.successful_revocations,
    )
    failed = table(
        "Not revoked",
        (("User", "user_email"), ("Status", "error_response_status"), ("Reason", "error")),
        result.unsuccessful_revocations,
    )
    verdict = (
        Text("partial result (207): some revocations failed", style="bold yellow")
        if result.partial
        else Text("all revocations succeeded", style="bold green")
    )
    return Group(revoked, failed, verdict)


def enrollment_view(job: BulkEnrollmentJob) -> Text:
    """A bulk enrollment job."""
    return Text.assemble("bulk enrollment job ", (cell(job.job_id), "bold"))


def learner_summary_table(rows: Sequence[LearnerSummary]) -> Table:
    """Learner summary rows: who, which run, how far."""
    return table("Learner summary", LEARNER_SUMMARY_COLUMNS, rows, caption=_count(rows, "record"))


def catalogs_table(catalogs: Sequence[Catalog]) -> Table:
    """Catalogs."""
    return table("Catalogs", CATALOG_COLUMNS, catalogs, caption=_count(catalogs, "catalog"))


def contents_table(items: Sequence[ContentItem]) -> Table:
    """A catalog's contents, whatever their kind, each with the id that reads it on its own:
    the key of a course or course run, the uuid of a program (or of an item without a key)."""
    view = table("Catalog contents", (("Kind", "kind"), ("Id", "key"), ("Title", "title")), [])
    view.caption = _count(items, "item")
    for item in items:
        identifier = item.uuid if isinstance(item, Program) else (item.key or item.uuid)
        kind = item.content_type or "content" if isinstance(item, ContentMetadata) else type(item).__name__
        view.add_row(kind, cell(identifier), cell(item.title))
    return view


def course_view(course: Course) -> Group:
    """A course and its runs."""
    about = details(
        f"Course {cell(course.key)}",
        course,
        ("title", "uuid", "level_type", "course_type", "enrollment_count", "marketing_url", "modified"),
    )
    runs = table(
        "Runs",
        (
            ("Run", "key"),
            ("Start", "start"),
            ("End", "end"),
            ("Pacing", "pacing_type"),
            ("Availability", "availability"),
        ),
        course.course_runs,
    )
    return Group(about, runs)


def course_run_view(run: CourseRun) -> Table:
    """A course run."""
    return details(
        f"Course run {cell(run.key)}",
        run,
        (
            "title",
            "course",
            "start",
            "end",
            "enrollment_end",
            "pacing_type",
            "availability",
            "status",
            "is_enrollable",
        ),
    )


def program_view(program: Program) -> Table:
    """A program."""
    return details(
        f"Program {cell(program.uuid)}",
        program,
        (
            "title",
            "subtitle",
            "type",
            "status",
            "total_hours_of_effort",
            "weeks_to_complete",
            "marketing_url",
        ),
    )


_STATUS_STYLE = {"complete": "green", "skipped": "dim", "failed": "red"}


def export_summary_view(summary: ExportSummary) -> Group:
    """A catalog export: each catalog's outcome, then the totals."""
    view = Table(
        title=f"Export to {summary.directory}",
        caption="one <catalog>.jsonl per catalog, and manifest.json",
        title_justify="left",
        header_style="bold",
    )
    view.add_column("Catalog", no_wrap=True)
    view.add_column("Title", overflow="fold")
    view.add_column("Status")
    view.add_column("Items", justify="right")
    view.add_column("Seconds", justify="right")
    if summary.failed:
        view.add_column("Error", overflow="fold")
    for outcome in summary.outcomes:
        row: list[RenderableType] = [
            outcome.uuid,
            cell(outcome.title),
            Text(outcome.status, style=_STATUS_STYLE[outcome.status]),
            f"{outcome.items:,}",
            f"{outcome.seconds:.2f}",
        ]
        view.add_row(*row, *([cell(outcome.error)] if summary.failed else []))
    return Group(view, Text(export_totals(summary), style="bold"))


def export_totals(summary: ExportSummary) -> str:
    """One line: items, catalogs, time and rate; skipped and failed catalogs when there are any."""
    rate = summary.items / summary.seconds if summary.seconds > 0 else 0.0
    text = (
        f"exported {summary.items:,} items from {len(summary.completed)} catalogs "
        f"in {summary.seconds:.2f} s ({rate:,.0f} items/s)"
    )
    if summary.skipped:
        text += f"; {len(summary.skipped)} already complete"
    if summary.failed:
        text += f"; {len(summary.failed)} failed"
    return text


def customers_summary_view(summary: CustomersSummary) -> Group:
    """An export by customer: each customer's catalogs and items, then the totals."""
    view = Table(
        title=f"Export to {summary.directory}",
        caption="one <customer>/ per customer, laid out as a catalog export",
        title_justify="left",
        header_style="bold",
    )
    view.add_column("Customer", no_wrap=True)
    view.add_column("Status")
    view.add_column("Catalogs", justify="right")
    view.add_column("Items", justify="right")
    view.add_column("Seconds", justify="right")
    if summary.failed:
        view.add_column("Error", overflow="fold")
    for outcome in summary.outcomes:
        export = outcome.summary
        status = "complete" if outcome.ok else "failed"
        catalogs = f"{len(export.completed) + len(export.skipped)}/{len(export.outcomes)}" if export else "-"
        errors = [outcome.error] if outcome.error else []
        errors += [f"{failed.uuid}: {failed.error}" for failed in export.failed] if export else []
        row: list[RenderableType] = [
            outcome.name,
            Text(status, style=_STATUS_STYLE[status]),
            catalogs,
            f"{export.items:,}" if export else "-",
            f"{outcome.seconds:.2f}",
        ]
        view.add_row(*row, *([cell("; ".join(errors) or None)] if summary.failed else []))
    rate = summary.items / summary.seconds if summary.seconds > 0 else 0.0
    totals = (
        f"exported {summary.items:,} items for {len(summary.outcomes)} customers "
        f"in {summary.seconds:.2f} s ({rate:,.0f} items/s)"
    )
    if summary.failed:
        totals += f"; {len(summary.failed)} incomplete"
    return Group(view, Text(totals, style="bold"))
