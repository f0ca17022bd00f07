"""The demo: a tour of every resource against an embedded sandbox, no credentials needed.

Each step calls the SDK the way an application would and shows the result; the ids it needs come
from earlier answers (a policy's assignment configuration, a catalog's course), not from the
sandbox's insides. Only the customer is read from the sandbox, as a real user knows their own;
and one catalog is edited in the sandbox (``sandbox.edits``) between two exports, as a service's
catalogs change between two nightly runs, so that the second export says what changed.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Final

import orjson
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from .._generated.client import EnterpriseClient
from .._request.options import ResponseFormat
from ..exports import ExportSummary, export_catalogs
from ..models import (
    Assignment,
    AssignmentConfiguration,
    Course,
    CourseRun,
    Program,
    SubscriptionPlan,
    SubsidyAccessPolicy,
    to_dict,
)
from ..testing import DataSize
from ._export_views import export_summary_view
from ._progress import CatalogProgressBars
from ._views import (
    action_view,
    allocation_view,
    assignments_view,
    catalogs_table,
    contents_table,
    course_view,
    enrollment_view,
    job_status_view,
    learner_summary_table,
    license_assignment_view,
    plans_table,
    policies_table,
    program_view,
    revocation_view,
)

if TYPE_CHECKING:
    from ..testing import Sandbox

__all__ = ["DEMO_CATALOG_ITEMS", "run_demo"]

DEMO_CATALOG_ITEMS: Final = 500
"""Items per sandbox catalog in the demo: enough for the export to show its pace."""
DEMO_PAGE_SIZE: Final = 100
"""Items per page of the demo's export."""
NEWCOMERS: Final = ("ada.lovelace@demo.example.com", "grace.hopper@demo.example.com")
"""Learners the demo allocates content to, assigns licenses to and enrolls."""
STRANGER: Final = "nobody@demo.example.com"
"""A user without a license, so that the bulk revoke is partial (207)."""


async def run_demo(
    console: Console, *, seed: int, catalog_items: int, out: Path | None, response_format: ResponseFormat
) -> ExportSummary:
    """Tour every resource of a sandbox of ``seed``, then export every catalog to ``out`` (a
    temporary directory when None); returns the export's summary."""
    from ..testing import Sandbox  # here: without the [sandbox] extra, the demo alone says so

    size = DataSize(catalog_items=catalog_items)
    async with (
        # XML is the reference's: the services behind the gateway render JSON only.
        Sandbox(
            seed=seed, size=size, profile="reference" if response_format == "xml" else "services"
        ) as sandbox,
        sandbox.client(response_format=response_format) as client,
    ):
        customer = sandbox.data.customers[0]
        console.print(
            Panel(
                Text.assemble(
                    ("enterprise_async demo", "bold"),
                    f"\nsandbox at {sandbox.base_url} (seed {seed})",
                    f"\ncustomer {customer.name} ({customer.uuid})",
                    f"\nresponses in {response_format.upper()}",
                ),
                expand=False,
            )
        )
        tour = _Tour(client, console)
        policy, configuration = await tour.policies(customer.uuid)
        await tour.allocations(policy)
        await tour.assignments(configuration)
        await tour.licenses(customer.uuid)
        course = await tour.catalogs()
        await tour.enrollment(customer.uuid, course)
        await tour.learner_summary(customer.uuid)
        with _export_directory(out) as directory:
            summary = await tour.export(directory)
            await tour.changes(sandbox, directory)
            return summary


@contextmanager
def _export_directory(out: Path | None) -> Iterator[Path]:
    if out is not None:
        yield out
        return
    with tempfile.TemporaryDirectory(prefix="enterprise-async-demo-") as temporary:
        yield Path(temporary)


class _Tour:
    """The steps of the demo, in order; each prints what it did."""

    def __init__(self, client: EnterpriseClient, console: Console) -> None:
        self.client = client
        self.console = console
        self._step = 0
        self._allocated: list[Assignment] = []

    def _heading(self, title: str) -> None:
        self._step += 1
        self.console.print()
        self.console.rule(f"[bold]{self._step}. {title}", align="left")

    def _note(self, text: str) -> None:
        """The code the step runs, wrapped to the terminal's width (never wider)."""
        self.console.print(Text(text, style="italic cyan"), overflow="fold")

    async def policies(self, customer_uuid: str) -> tuple[SubsidyAccessPolicy, str]:
        """List the customer's policies; pick one that takes assignments, with its configuration."""
        self._heading("Subsidy access policies")
        self._note(f"client.policies.list({customer_uuid!r})")
        policies = await self.client.policies.list(customer_uuid).to_list()
        self.console.print(policies_table(policies))
        return next(
            (policy, configuration.uuid)
            for policy in policies
            if isinstance(configuration := policy.assignment_configuration, AssignmentConfiguration)
            and configuration.uuid
        )

    async def allocations(self, policy: SubsidyAccessPolicy) -> None:
        """Allocate a course of the policy's catalog to two learners, twice: created, then no_change."""
        self._heading("Allocating content")
        catalog = policy.catalog_uuid or ""
        page = await self.client.catalogs.contents(catalog, limit=10).first_page()
        course = next(item for item in page.results if isinstance(item, Course))
        content_key, price = course.key, _price_cents(course)
        self._note(
            f"client.policies.allocate(..., learner_emails={list(NEWCOMERS)}, content_key={content_key!r})"
        )
        for attempt in ("first call", "same call again"):
            result = await self.client.policies.allocate(
                policy.uuid or "",
                learner_emails=NEWCOMERS,
                content_key=content_key or "",
                content_price_cents=price,
            )
            self.console.print(Text(attempt, style="italic"), allocation_view(result))
            if isinstance(result.created, list) and result.created:
                self._allocated = result.created

    async def assignments(self, configuration: str) -> None:
        """Page 1 of the assignments with their learner state counts; remind and cancel ours."""
        self._heading("Assignments: list, remind, cancel")
        self._note(f"client.assignments.list({configuration!r}, page_size=8).first_page()")
        page = await self.client.assignments.list(configuration, page_size=8).first_page()
        self.console.print(assignments_view(page.results, page.learner_state_counts, page.count))
        ours = [assignment.uuid or "" for assignment in self._allocated]
        self._note("client.assignments.remind(...) and .cancel(...) on the assignments just created")
        await self.client.assignments.remind(configuration, assignment_uuids=ours)  # answers None: done
        await self.client.assignments.cancel(configuration, assignment_uuids=ours[:1])
        self.console.print(action_view("remind", None), action_view("cancel", None))

    async def licenses(self, customer_uuid: str) -> None:
        """Plans of the customer; assign licenses, then revoke them with a stranger: a 207."""
        self._heading("Subscriptions: licenses assigned and revoked")
        self._note(f"client.subscriptions.list(enterprise_customer_uuid={customer_uuid!r})")
        plans = await self.client.subscriptions.list(enterprise_customer_uuid=customer_uuid).to_list()
        self.console.print(plans_table(plans))
        plan = _current(plans)
        self._note(f"client.subscriptions.assign_licenses({plan.uuid!r}, user_emails=...)")
        assigned = await self.client.subscriptions.assign_licenses(plan.uuid or "", user_emails=NEWCOMERS)
        self.console.print(license_assignment_view(assigned))
        emails = [*NEWCOMERS, STRANGER]
        self._note(f"client.subscriptions.bulk_revoke({plan.uuid!r}, user_emails={emails})")
        revoked = await self.client.subscriptions.bulk_revoke(plan.uuid or "", user_emails=emails)
        self.console.print(revocation_view(revoked))

    async def catalogs(self) -> Course:
        """The catalogs, the start of one's contents, and a course and a program in it."""
        self._heading("Catalogs: contents, a course, a program")
        catalogs = await self.client.catalogs.list().to_list()
        self.console.print(catalogs_table(catalogs))
        catalog = catalogs[0].uuid or ""
        self._note(f"client.catalogs.contents({catalog!r}).first_page()")
        page = await self.client.catalogs.contents(catalog).first_page()
        self.console.print(contents_table(page.results[:8]))
        first = next(item for item in page.results if isinstance(item, Course))
        course = await self.client.catalogs.course(catalog, first.key or "")
        self.console.print(course_view(course))
        program = next((item for item in page.results if isinstance(item, Program)), None)
        if program is not None:
            self.console.print(program_view(await self.client.catalogs.program(catalog, program.uuid or "")))
        return course

    async def enrollment(self, customer_uuid: str, course: Course) -> None:
        """Enroll the newcomers in the course's runs."""
        self._heading("Bulk enrollment")
        runs = [run.key for run in course.course_runs if isinstance(run, CourseRun) and run.key]
        self._note(f"client.enrollments.bulk_enroll(..., emails=..., course_run_keys={runs})")
        job = await self.client.enrollments.bulk_enroll(
            customer_uuid, emails=NEWCOMERS, course_run_keys=runs, notify=False
        )
        self.console.print(enrollment_view(job))
        self._note(f"client.enrollments.job_status({customer_uuid!r}, {str(job.job_id)!r})")
        status = await self.client.enrollments.job_status(customer_uuid, str(job.job_id))
        self.console.print(job_status_view(status))

    async def learner_summary(self, customer_uuid: str) -> None:
        """Page 1 of the customer's learner summary: one record per learner and course run."""
        self._heading("Learner summary")
        self._note(f"client.learner_summary.list({customer_uuid!r}, page_size=8).first_page()")
        page = await self.client.learner_summary.list(customer_uuid, page_size=8).first_page()
        self.console.print(learner_summary_table(page.results, page.count))

    async def export(self, directory: Path) -> ExportSummary:
        """Every catalog to JSON Lines, concurrently, with progress bars, and their changes (the
        first time, every item is created)."""
        self._heading("Exporting every catalog concurrently")
        self._note(
            f"export_catalogs(client, {str(directory)!r}, changes=True) — the same as "
            "`catalogs export --out DIR --changes`"
        )
        return await self._export(directory)

    async def changes(self, sandbox: Sandbox, directory: Path) -> ExportSummary:
        """One catalog changes in the sandbox, and a second export says what changed: the other
        catalogs cost one request each."""
        self._heading("The catalog changes: a second export, with its changes")
        catalog = (await self.client.catalogs.list().to_list())[0].uuid or ""
        page = await self.client.catalogs.contents(catalog, page_size=10).first_page()
        courses = (to_dict(item) for item in page.results if isinstance(item, Course))
        key = "DemoX+SYNC.1x"
        created = {**next(courses, {"content_type": "course"}), "key": key, "title": "Syncing Catalogs"}
        created.update(aggregation_key=f"course:{key}", uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, key)))
        last = (page.count or len(page.results)) - 1
        self._note(
            f"sandbox.edits.update({catalog!r}, 0, title=...); .touch(..., 1); .remove(..., {last}); "
            ".create(..., item, at=0) — or `enterprise-async sandbox-edit ...` against a served sandbox"
        )
        sandbox.edits.update(catalog, 0, title="Renamed in the demo")
        if last >= 1:
            sandbox.edits.touch(catalog, 1)  # its time moves, its content does not: no change
        if last >= 2:
            sandbox.edits.remove(catalog, last)
        sandbox.edits.create(catalog, created, at=0)
        summary = await self._export(directory)
        lines = (directory / f"{catalog}.changes.jsonl").read_bytes().splitlines()
        self._note(f"{catalog}.changes.jsonl, one JSON line per change:")
        for line in lines:
            change = orjson.loads(line)
            fields = f" (fields: {', '.join(change['fields'])})" if change.get("fields") else ""
            self.console.print(f"  {change['change']} {change['identity']}{fields}", markup=False)
        return summary

    async def _export(self, directory: Path) -> ExportSummary:
        with CatalogProgressBars(self.console) as bars:
            summary = await export_catalogs(
                self.client, directory, page_size=DEMO_PAGE_SIZE, progress=bars, changes=True
            )
        self.console.print(export_summary_view(summary, changes=True))
        return summary


def _current(plans: list[SubscriptionPlan]) -> SubscriptionPlan:
    """The active plan, or the first one."""
    return next((plan for plan in plans if plan.is_active), plans[0])


def _price_cents(course: Course) -> int:
    """The course's price in USD cents, as the service checks an allocation against it (its first
    paid seat, else its entitlement; 4,900 when it names none)."""
    if course.first_enrollable_paid_seat_price is not None:
        return int(course.first_enrollable_paid_seat_price) * 100
    prices = [entitlement.price for entitlement in course.entitlements if entitlement.price is not None]
    return int(Decimal(prices[0]) * 100) if prices else 4_900
