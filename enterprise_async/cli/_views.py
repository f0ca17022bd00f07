"""How the API's models look to people: rich tables and panels, one function per kind of result.

Columns are data (a header and an attribute path), so a view says what it shows, not how.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

from attrs import frozen
from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, JustifyMethod, RenderableType, RenderResult
from rich.padding import Padding
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
    "Cell",
    "Columns",
    "ListColumn",
    "RecordList",
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


IDENTIFIER_NAMES: Final = ("uuid", "key", "license", "job_id", "email")
IDENTIFIER_SUFFIXES: Final = ("_uuid", "_key", "_email")


def _identifier(path: str) -> bool:
    """Whether a column holds ids, keys or e-mails: values a user copies, never cut nor wrapped."""
    name = path.rsplit(".", 1)[-1]
    return name in IDENTIFIER_NAMES or name.endswith(IDENTIFIER_SUFFIXES)


TEXT_WIDTH: Final = 14
"""The narrowest a column of free text (titles, names, reasons) gets; it wraps between words."""
TEXT_LINES: Final = 3
"""The most lines the longest text of a table wraps over; past that, records go in blocks."""
LIST_BOX: Final = box.SIMPLE_HEAD
"""Lists are drawn with a rule under the header and no other lines: more room for the values."""


LIST_PADDING: Final = (0, 1, 0, 0)
"""A space after each column's text; with the box's separator, two between columns."""


def _table_overhead(columns: int) -> int:
    """What a list's table adds to its columns' text (edges off): two spaces between columns."""
    return 2 * (columns - 1)


BLOCK_INDENT: Final = 2
"""Spaces before the fields of a record shown as a block."""


@frozen
class ListColumn:
    """A column of a ``RecordList``: ids are shown whole, text wraps between words."""

    header: str
    identifier: bool = False
    justify: JustifyMethod = "left"


Cell = str | Text


@frozen
class RecordList:
    """Records as a table when every column fits the console at its narrowest (ids whole, headers
    never split inside a word); otherwise one record per block, so that nothing is cut or hidden
    at any width. Rendered at print time, when the console's width is known."""

    title: str
    columns: Sequence[ListColumn]
    rows: Sequence[Sequence[Cell]]
    caption: str | None = None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = [self._narrowest(index) for index in range(len(self.columns))]
        needed = sum(widths) + _table_overhead(len(widths))
        if needed <= options.max_width:
            yield self._table(widths)
        else:
            yield from self._blocks()

    def _narrowest(self, index: int) -> int:
        """How narrow a column can get: an id's or a short value's whole width, free text's
        ``TEXT_WIDTH``, and never less than the longest word of its header."""
        column = self.columns[index]
        header = max((cell_len(word) for word in column.header.split()), default=1)
        values = [_plain(row[index]) for row in self.rows]
        longest = max((cell_len(value) for value in values), default=0)
        if column.identifier or longest <= TEXT_WIDTH:
            return max(header, longest)
        return max(header, TEXT_WIDTH, *(_width_in_lines(value, TEXT_LINES) for value in values))

    def _table(self, widths: Sequence[int]) -> Table:
        view = Table(
            title=self.title,
            caption=self.caption,
            title_justify="left",
            caption_justify="left",
            header_style="bold",
            box=LIST_BOX,
            show_edge=False,
            pad_edge=False,
            padding=LIST_PADDING,
        )
        for column, width in zip(self.columns, widths, strict=True):
            view.add_column(
                column.header,
                justify=column.justify,
                min_width=width,
                no_wrap=column.identifier,
                overflow="fold",
            )
        for row in self.rows:
            view.add_row(*row)
        return view

    def _blocks(self) -> Iterator[RenderableType]:
        """Each record as its first value (its id) in bold, then its other fields, one a line."""
        yield Text(self.title, style="italic")
        for row in self.rows:
            yield Text()
            yield Text.assemble(f"{self.columns[0].header} ", (_plain(row[0]), "bold"))
            labels = [column.header for column in self.columns[1:]]
            yield _fields_block(zip(labels, row[1:], strict=True))
        if self.caption:
            yield Text()
            yield Text(self.caption, style="dim")


def _width_in_lines(text: str, lines: int) -> int:
    """The narrowest width at which ``text``, wrapped between words, takes at most ``lines`` lines."""
    words = [cell_len(word) for word in text.split()] or [0]
    width = max(words)
    while _wrapped_lines(words, width) > lines:
        width += 1
    return width


def _wrapped_lines(words: Sequence[int], width: int) -> int:
    """Lines that words of these widths take, wrapped greedily at ``width``."""
    lines, used = 1, -1
    for word in words:
        if used + 1 + word > width:
            lines, used = lines + 1, word
        else:
            used += 1 + word
    return lines


def _plain(value: Cell) -> str:
    return value.plain if isinstance(value, Text) else value


def table(title: str, columns: Columns, rows: Iterable[Any], *, caption: str | None = None) -> RecordList:
    """Models, one record each: a table where it fits, else one block per record (``RecordList``)."""
    return RecordList(
        title,
        [ListColumn(header, identifier=_identifier(path)) for header, path in columns],
        [[cell(_lookup(row, path)) for _, path in columns] for row in rows],
        caption=caption,
    )


def details(title: str, model: Any, fields: Sequence[str]) -> Group:
    """One model as its title, then field/value pairs, as a record of a list is shown in a block."""
    pairs = [(name, cell(_lookup(model, name))) for name in fields]
    return Group(Text(title, style="bold"), _fields_block(pairs))


def _fields_block(pairs: Iterable[tuple[str, Cell]]) -> Padding:
    """Labels and values, one pair a line, indented under what they describe."""
    fields = Table.grid(padding=(0, 2, 0, 0))
    fields.add_column(style="bold", no_wrap=True)
    fields.add_column(overflow="fold")
    for label, value in pairs:
        fields.add_row(label, value)
    return Padding(fields, (0, 0, 0, BLOCK_INDENT))


def _count(rows: Sequence[Any], noun: str, nouns: str | None = None) -> str:
    return f"{len(rows)} {noun if len(rows) == 1 else nouns or noun + 's'}"


def policies_table(policies: Sequence[SubsidyAccessPolicy]) -> RecordList:
    """Subsidy access policies."""
    return table(
        "Subsidy access policies", POLICY_COLUMNS, policies, caption=_count(policies, "policy", "policies")
    )


def assignments_view(assignments: Sequence[Assignment], counts: Sequence[LearnerStateCount]) -> Group:
    """Assignments, and the learner state counts their listing carries."""
    states = RecordList(
        "Learner state counts",
        (ListColumn("Learner state"), ListColumn("Assignments", justify="right")),
        [[cell(state.learner_state), cell(state.count)] for state in counts],
    )
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


def learner_summary_table(rows: Sequence[LearnerSummary]) -> RecordList:
    """Learner summary rows: who, which run, how far."""
    return table("Learner summary", LEARNER_SUMMARY_COLUMNS, rows, caption=_count(rows, "record"))


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


_STATUS_STYLE = {"complete": "green", "skipped": "dim", "failed": "red"}


EXPORT_COLUMNS: Final = (
    ListColumn("Catalog", identifier=True),
    ListColumn("Title"),
    ListColumn("Status"),
    ListColumn("Items", justify="right"),
    ListColumn("Seconds", justify="right"),
)


def export_summary_view(summary: ExportSummary) -> Group:
    """A catalog export: each catalog's outcome, the totals, then one line per failed catalog:
    its id and why (the whole message is in ``--json`` and the manifest)."""
    rows: list[list[Cell]] = [
        [
            outcome.uuid,
            cell(outcome.title),
            Text(outcome.status, style=_STATUS_STYLE[outcome.status]),
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
    return Group(outcomes, Text(export_totals(summary), style="bold"), *failures)


def _failure_line(name: str, error: str | None) -> Text:
    """``<id>  failed: <cause>`` on one line: the cause is cut at the console's edge, the id never."""
    return Text.assemble((name, "bold"), "  failed: ", short_cause(error), no_wrap=True, overflow="ellipsis")


_NOISE: Final = re.compile(
    r"\b[A-Z]\w*Error: "  # the error's kind: the words after it say the same
    r"|\b[a-z_]+\.[a-z_]+ (?=page )"  # the operation: an export reads catalogs' contents
    r"|\s?\(?\b(?:GET|POST|PUT|PATCH|DELETE) /[^\s)]*\)?"  # the path: the line names the catalog
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


CUSTOMER_COLUMNS: Final = (
    ListColumn("Customer", identifier=True),
    ListColumn("Status"),
    ListColumn("Catalogs", justify="right"),
    ListColumn("Items", justify="right"),
    ListColumn("Seconds", justify="right"),
)


def customers_summary_view(summary: CustomersSummary) -> Group:
    """An export by customer: each customer's catalogs and items, the totals, then one line per
    failure: the customer's own, or one of its catalogs'."""
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
    rate = summary.items / summary.seconds if summary.seconds > 0 else 0.0
    totals = (
        f"exported {summary.items:,} items for {len(summary.outcomes)} customers "
        f"in {summary.seconds:.2f} s ({rate:,.0f} items/s)"
    )
    if summary.failed:
        totals += f"; {len(summary.failed)} incomplete"
    return Group(view, Text(totals, style="bold"), *failures)
