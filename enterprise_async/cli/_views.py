"""How the API's models look to people: rich tables and panels, one function per kind of result.

Columns are data (a header and an attribute path, see ``_record_list``), so a view says what it
shows, not how.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..models import (
    AllocationResult,
    Assignment,
    BulkEnrollmentJob,
    BulkEnrollmentJobStatus,
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
from ._record_list import Columns, ListColumn, RecordList, cell, details, table

__all__ = [
    "action_view",
    "allocation_view",
    "assignments_view",
    "catalogs_table",
    "contents_table",
    "course_run_view",
    "course_view",
    "enrollment_view",
    "job_status_view",
    "learner_summary_table",
    "license_assignment_view",
    "plans_table",
    "policies_table",
    "program_view",
    "revocation_view",
]

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


def _count(rows: Sequence[Any], noun: str, nouns: str | None = None) -> str:
    return f"{len(rows)} {noun if len(rows) == 1 else nouns or noun + 's'}"


def policies_table(policies: Sequence[SubsidyAccessPolicy]) -> RecordList:
    """Subsidy access policies."""
    return table(
        "Subsidy access policies", POLICY_COLUMNS, policies, caption=_count(policies, "policy", "policies")
    )


def assignments_view(
    assignments: Sequence[Assignment], counts: Sequence[LearnerStateCount], total: int | None = None
) -> Group:
    """Assignments, and the learner state counts their listing carries: those count every
    assignment the listing matches, on every page (those with no learner state left out), not
    only the rows shown; ``total`` is the listing's ``count``."""
    matched = f"all {total:,} assignments the listing matches" if total is not None else "every page"
    states = RecordList(
        "Learner state counts",
        (ListColumn("Learner state"), ListColumn("Assignments", justify="right")),
        [[cell(state.learner_state), cell(state.count)] for state in counts],
    )
    about = Text(
        f"The learner state counts are over {matched}, not only those shown; "
        "assignments without a learner state are not counted.",
        style="dim",
    )
    shown = _count(assignments, "assignment")
    caption = f"{shown} shown of {total:,}" if total is not None and total != len(assignments) else shown
    listed = table("Assignments", ASSIGNMENT_COLUMNS, assignments, caption=caption)
    return Group(listed, states, about)


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


def plans_table(plans: Sequence[SubscriptionPlan]) -> RecordList:
    """Subscription plans with their license counters."""
    return table("Subscription plans", PLAN_COLUMNS, plans, caption=_count(plans, "plan"))


def license_assignment_view(result: LicenseAssignmentResult) -> RecordList:
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


def learner_summary_table(rows: Sequence[LearnerSummary], total: int | None = None) -> RecordList:
    """Learner summary rows, one per learner and course run: who, which run, how far; ``total``
    is the listing's ``count`` (records on every page)."""
    shown = _count(rows, "record")
    caption = f"{shown} shown of {total:,}" if total is not None and total != len(rows) else shown
    return table("Learner summary", LEARNER_SUMMARY_COLUMNS, rows, caption=caption)


def job_status_view(status: BulkEnrollmentJobStatus) -> Text:
    """A bulk enrollment job's status: its results file's link once the job has written it."""
    link = status.download_url
    state = "results ready" if link else "running: no results file yet"
    return Text.assemble("job ", (cell(status.job_id), "bold"), f": {state}")


def catalogs_table(catalogs: Sequence[Catalog]) -> RecordList:
    """Catalogs."""
    return table("Catalogs", CATALOG_COLUMNS, catalogs, caption=_count(catalogs, "catalog"))


def contents_table(items: Sequence[ContentItem]) -> RecordList:
    """A catalog's contents, whatever their kind, each with the id that reads it on its own:
    the key of a course or course run, the uuid of a program (or of an item without a key)."""
    rows = []
    for item in items:
        identifier = item.uuid if isinstance(item, Program) else (item.key or item.uuid)
        kind = item.content_type or "content" if isinstance(item, ContentMetadata) else type(item).__name__
        rows.append([cell(identifier), cell(kind), cell(item.title)])
    columns = (ListColumn("Id", identifier=True), ListColumn("Kind"), ListColumn("Title"))
    return RecordList("Catalog contents", columns, rows, caption=_count(items, "item"))


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


def course_run_view(run: CourseRun) -> Group:
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


def program_view(program: Program) -> Group:
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
