"""A license desk's morning, as a user writes it: read each policy's assignments and remind the
learners who have not accepted yet, assign licenses of an active plan, enroll the new learners in
a course run of the plan's catalog and read the enrollment job's status, and revoke the licenses
of the learners who left (by e-mail filters).

Type-checked with ``mypy --strict`` and run against the sandbox by tests/programs/test_programs.py;
it holds no ``assert`` and no ``cast``: the models' types say what the services guarantee.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence

from enterprise_async import EnterpriseClient
from enterprise_async.models import (
    AssignmentConfiguration,
    AssignmentState,
    BulkRevokeFilter,
    CourseRun,
    SubscriptionPlan,
    SubsidyAccessPolicy,
)


async def remind_waiting(client: EnterpriseClient, policy: SubsidyAccessPolicy) -> str | None:
    """Remind the learners of a policy's assignments still allocated (None: it assigns nothing)."""
    configuration = policy.assignment_configuration
    if not isinstance(configuration, AssignmentConfiguration):
        return None
    assignments = await client.assignments.list(configuration.uuid).to_list()
    waiting = [item.uuid for item in assignments if item.state == AssignmentState.ALLOCATED]
    if waiting:
        await client.assignments.remind(configuration.uuid, assignment_uuids=waiting[:10])
    name = policy.display_name or policy.description
    return f"{name}: {len(assignments)} assignments, {len(waiting[:10])} reminded"


def active_plan(plans: Sequence[SubscriptionPlan]) -> SubscriptionPlan | None:
    return next((plan for plan in plans if plan.is_active), None)


async def first_run(client: EnterpriseClient, catalog_uuid: str) -> CourseRun | None:
    """A course run of a catalog: listed as one, or the first run of a listed course."""
    async for item in client.catalogs.contents(catalog_uuid, page_size=50):
        if isinstance(item, CourseRun):
            return item
        runs = [run for run in getattr(item, "course_runs", []) if isinstance(run, CourseRun)]
        if runs:
            return runs[0]
    return None


def leaver_filters(emails: Sequence[str]) -> list[BulkRevokeFilter]:
    """One e-mail filter per learner who left (a filter holds an e-mail or statuses, never neither)."""
    return [BulkRevokeFilter(user_email=email) for email in emails]


async def morning(
    client: EnterpriseClient, customer_uuid: str, learners: Sequence[str], leavers: Sequence[str] = ()
) -> list[str]:
    lines: list[str] = []
    for policy in await client.policies.list(customer_uuid).to_list():
        said = await remind_waiting(client, policy)
        if said is not None:
            lines.append(said)
    plan = active_plan(await client.subscriptions.list(enterprise_customer_uuid=customer_uuid).to_list())
    if plan is None:
        return [*lines, "no active plan"]
    assigned = await client.subscriptions.assign_licenses(plan.uuid, user_emails=list(learners))
    lines.append(f"{plan.title}: {assigned.num_successful_assignments} licenses assigned")
    if leavers:
        revoked = await client.subscriptions.bulk_revoke(plan.uuid, filters=leaver_filters(leavers))
        lines.append(f"{len(revoked.successful_revocations)} licenses of leavers revoked")
    run = await first_run(client, plan.enterprise_catalog_uuid)
    if run is None:
        return [*lines, f"no course run in catalog {plan.enterprise_catalog_uuid}"]
    job = await client.enrollments.bulk_enroll(
        customer_uuid, emails=list(learners), course_run_keys=[run.key], notify=True
    )
    status = await client.enrollments.job_status(customer_uuid, job.job_id)
    lines.append(f"enrollment job {job.job_id} in {run.key}: results {status.download_url or 'pending'}")
    return lines


async def main() -> None:
    async with EnterpriseClient.from_env() as client:
        customer = os.environ["ENTERPRISE_CUSTOMER_UUID"]
        for line in await morning(client, customer, ["ada@example.com", "grace@example.com"]):
            print(line)


if __name__ == "__main__":
    asyncio.run(main())
