"""Every method of the contract through ``sandbox.client()``, in JSON and in XML, checked against
the sandbox's own state; and JSON and XML decoding to equal models."""

from __future__ import annotations

import decimal
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from enterprise_async import BadRequestError, EnterpriseClient, NotFoundError, UnprocessableEntityError
from enterprise_async.models import (
    AssignmentState,
    BulkRevokeFilter,
    Course,
    CourseRun,
    LearnerState,
    LicenseStatus,
    Program,
    SubscriptionPlan,
    SubsidyAccessPolicy,
    to_dict,
)
from enterprise_async.testing import Sandbox

FORMATS = ["json", "xml"]


@pytest.fixture(params=FORMATS)
def response_format(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def client(sandbox: Sandbox, response_format: str) -> AsyncIterator[EnterpriseClient]:
    async with sandbox.client(response_format=response_format) as opened:
        yield opened


@pytest.fixture
async def both(sandbox: Sandbox) -> AsyncIterator[tuple[EnterpriseClient, EnterpriseClient]]:
    async with (
        sandbox.client(response_format="json") as as_json,
        sandbox.client(response_format="xml") as as_xml,
    ):
        yield as_json, as_xml


def _assignable(sandbox: Sandbox) -> tuple[str, str]:
    policy = next(policy for policy in sandbox.data.policies if policy.assignment_configuration_uuid)
    assert policy.assignment_configuration_uuid is not None
    return policy.uuid, policy.assignment_configuration_uuid


# ---------------------------------------------------------------------------------- policies


async def test_policies_list_returns_the_customers_policies(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    customer = sandbox.data.customers[0].uuid
    policies = await client.policies.list(customer, page_size=2).to_list()
    assert [policy.uuid for policy in policies] == [
        policy.uuid for policy in sandbox.data.policies_of(customer)
    ]
    assert all(isinstance(policy, SubsidyAccessPolicy) for policy in policies)
    assert policies[0].aggregates is not None
    assert policies[0].subsidy_active_datetime is not None
    assert policies[0].subsidy_active_datetime.tzinfo is not None


async def test_policies_list_filters_by_active_and_type(client: EnterpriseClient, sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[0].uuid
    inactive = await client.policies.list(customer, active=False).to_list()
    assert [policy.active for policy in inactive] == [False]
    typed = await client.policies.list(customer, policy_type="PerLearnerSpendCreditAccessPolicy").to_list()
    assert [policy.access_method for policy in typed] == ["direct"]


async def test_allocate_returns_created_updated_and_no_change(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    policy, configuration = _assignable(sandbox)
    cancelled = next(r for r in sandbox.data.assignments(configuration) if r.state == "cancelled")
    assert cancelled.learner_email is not None
    key = cancelled.content_key
    await client.policies.allocate(
        policy, learner_emails=["kept@example.com"], content_key=key, content_price_cents=990
    )
    result = await client.policies.allocate(
        policy,
        learner_emails=[cancelled.learner_email, "kept@example.com", "new@example.com"],
        content_key=key,
        content_price_cents=990,
    )
    assert [a.learner_email for a in result.updated] == [cancelled.learner_email]  # type: ignore[union-attr]
    assert [a.learner_email for a in result.no_change] == ["kept@example.com"]
    assert [a.learner_email for a in result.created] == ["new@example.com"]  # type: ignore[union-attr]
    (created,) = result.created  # type: ignore[misc]
    assert created.state is AssignmentState.ALLOCATED
    assert created.content_quantity == -990


# ---------------------------------------------------------------------------------- assignments


async def test_assignments_list_pages_through_every_assignment(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    listed = await client.assignments.list(configuration, page_size=4).to_list()
    assert [a.uuid for a in listed] == [record.uuid for record in sandbox.data.assignments(configuration)]


async def test_assignment_pages_carry_learner_state_counts(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    page = await client.assignments.list(configuration, state=AssignmentState.ERRORED).first_page()
    errored = sum(record.state == "errored" for record in sandbox.data.assignments(configuration))
    assert [(row.learner_state, row.count) for row in page.learner_state_counts] == [("failed", errored)]


async def test_assignments_list_applies_every_filter(client: EnterpriseClient, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    records = sandbox.data.assignments(configuration)
    target = next(
        r for r in records if r.lms_user_id is not None and r.learner_email and r.state == "accepted"
    )
    assert target.learner_email is not None
    assert target.lms_user_id is not None
    found = await client.assignments.list(
        configuration,
        content_key=target.content_key,
        content_key__in=[target.content_key, "other+key"],
        learner_email=target.learner_email,
        learner_email__in=[target.learner_email],
        lms_user_id=target.lms_user_id,
        lms_user_id__in=[target.lms_user_id, 1],
        state=AssignmentState.ACCEPTED,
        state__in=[AssignmentState.ACCEPTED, "reversed"],
        search=target.learner_email.split("@")[0],
        ordering="-content_quantity",
        page_size=5,
    ).to_list()
    assert [a.uuid for a in found] == [target.uuid]


async def test_assignments_list_filters_by_learner_state(client: EnterpriseClient, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    waiting = await client.assignments.list(configuration, learner_state=LearnerState.WAITING).to_list()
    failed_or_expired = await client.assignments.list(
        configuration, learner_state__in=["failed", "expired"]
    ).to_list()
    assert {a.learner_state for a in waiting} == {LearnerState.WAITING}
    assert {a.learner_state for a in failed_or_expired} == {LearnerState.FAILED, LearnerState.EXPIRED}


async def test_assignments_list_orders_by_content_quantity(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    listed = await client.assignments.list(configuration, ordering="content_quantity").to_list()
    quantities = [a.content_quantity for a in listed]
    assert quantities == sorted(quantities)  # type: ignore[type-var]


async def test_remind_returns_nothing_and_moves_the_learner_state(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    notifying = next(r for r in sandbox.data.assignments(configuration) if r.learner_state == "notifying")
    assert await client.assignments.remind(configuration, assignment_uuids=[notifying.uuid]) is None
    (listed,) = await client.assignments.list(
        configuration, learner_email=notifying.learner_email, content_key=notifying.content_key
    ).to_list()
    assert listed.learner_state is LearnerState.WAITING
    assert listed.recent_action is not None
    assert listed.recent_action.action_type == "reminded"


async def test_cancel_with_an_accepted_assignment_cancels_the_rest_and_raises_422(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    allocated = next(r for r in sandbox.data.assignments(configuration) if r.state == "allocated")
    accepted = next(r for r in sandbox.data.assignments(configuration) if r.state == "accepted")
    with pytest.raises(UnprocessableEntityError):
        await client.assignments.cancel(configuration, assignment_uuids=[allocated.uuid, accepted.uuid])
    cancelled = await client.assignments.list(configuration, state="cancelled").to_list()
    assert allocated.uuid in {a.uuid for a in cancelled}


# ---------------------------------------------------------------------------------- subscriptions


async def test_subscriptions_list_returns_every_plan(client: EnterpriseClient, sandbox: Sandbox) -> None:
    plans = await client.subscriptions.list().to_list()
    assert [plan.uuid for plan in plans] == [plan.uuid for plan in sandbox.data.plans]
    assert all(isinstance(plan, SubscriptionPlan) for plan in plans)


async def test_subscriptions_list_current_returns_the_active_plan(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    customer = sandbox.data.customers[1].uuid
    (plan,) = await client.subscriptions.list(enterprise_customer_uuid=customer, current=True).to_list()
    assert plan.is_active is True
    assert plan.licenses is not None
    assert plan.licenses.total == 20
    assert plan.revocations is not None
    assert not isinstance(plan.revocations, bool)
    assert plan.revocations.remaining == 8


async def test_assign_licenses_counts_new_and_already_associated(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    plan = sandbox.data.plans[0]
    holder = next(license for license in sandbox.data.licenses(plan.uuid) if license.status == "assigned")
    assert holder.user_email is not None
    result = await client.subscriptions.assign_licenses(
        plan.uuid,
        user_emails=[holder.user_email, "one@example.com", "two@example.com"],
        user_sfids=["sf-0", "sf-1", "sf-2"],
        greeting="Welcome!",
        closing="Happy learning.",
        notify_users=True,
    )
    assert (result.num_successful_assignments, result.num_already_associated) == (2, 1)
    assert sorted(item.user_email or "" for item in result.license_assignments) == [
        "one@example.com",
        "two@example.com",
    ]


async def test_bulk_revoke_all_done_is_not_partial(client: EnterpriseClient, sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[0]
    license = next(item for item in sandbox.data.licenses(plan.uuid) if item.status == "activated")
    assert license.user_email is not None
    result = await client.subscriptions.bulk_revoke(plan.uuid, user_emails=[license.user_email])
    assert result.partial is False
    (revoked,) = result.successful_revocations
    assert (revoked.license_uuid, revoked.original_status) == (license.uuid, LicenseStatus.ACTIVATED)


async def test_bulk_revoke_some_failing_is_partial(client: EnterpriseClient, sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[0]
    license = next(item for item in sandbox.data.licenses(plan.uuid) if item.status == "assigned")
    assert license.user_email is not None
    result = await client.subscriptions.bulk_revoke(
        plan.uuid, user_emails=[license.user_email, "gone@example.com"]
    )
    assert result.partial is True
    assert [failure.error_response_status for failure in result.unsuccessful_revocations] == [404]


async def test_bulk_revoke_by_filters(client: EnterpriseClient, sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[1]
    assigned = [item.uuid for item in sandbox.data.licenses(plan.uuid) if item.status == "assigned"]
    result = await client.subscriptions.bulk_revoke(
        plan.uuid, filters=[BulkRevokeFilter(status_in=[LicenseStatus.ASSIGNED])]
    )
    assert [item.license_uuid for item in result.successful_revocations] == assigned


async def test_bulk_revoke_nothing_revocable_raises_not_found_with_the_result(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    with pytest.raises(NotFoundError) as raised:
        await client.subscriptions.bulk_revoke(sandbox.data.plans[0].uuid, user_emails=["nobody@example.com"])
    result = raised.value.result
    assert result is not None
    assert [failure.user_email for failure in result.unsuccessful_revocations] == ["nobody@example.com"]


async def test_bulk_revoke_past_the_cap_raises_bad_request(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    plan = sandbox.data.plans[0]
    holders = [
        item.user_email or ""
        for item in sandbox.data.licenses(plan.uuid)
        if item.status in ("assigned", "activated")
    ]
    await client.subscriptions.bulk_revoke(plan.uuid, user_emails=holders[:8])
    with pytest.raises(BadRequestError):
        await client.subscriptions.bulk_revoke(plan.uuid, user_emails=holders[8:9])


# ---------------------------------------------------------------------------------- enrollment


async def test_bulk_enroll_returns_a_job(client: EnterpriseClient, sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[0].uuid
    run = sandbox.data.first(sandbox.data.catalogs[0], "courserun")["key"]
    job = await client.enrollments.bulk_enroll(
        customer, emails=["a@example.com"], course_run_keys=[run], notify=False
    )
    assert uuid.UUID(str(job.job_id)).version == 4
    assert sandbox.data.enrollment_jobs[-1].course_run_keys == (run,)


async def test_bulk_enroll_for_an_unknown_customer_raises_not_found(client: EnterpriseClient) -> None:
    with pytest.raises(NotFoundError):
        await client.enrollments.bulk_enroll(
            str(uuid.uuid4()), emails=["a@example.com"], course_run_keys=["k"], notify=False
        )


# ---------------------------------------------------------------------------------- catalogs


async def test_catalogs_list_returns_every_catalog(client: EnterpriseClient, sandbox: Sandbox) -> None:
    catalogs = await client.catalogs.list().to_list()
    assert [catalog.uuid for catalog in catalogs] == [catalog.uuid for catalog in sandbox.data.catalogs]


async def test_contents_decode_to_courses_runs_and_programs(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    items = await client.catalogs.contents(sandbox.data.catalogs[0].uuid, limit=15).to_list()
    assert len(items) == 45
    assert [type(item).__name__ for item in items[:10]] == ["Course"] * 7 + ["CourseRun"] * 2 + ["Program"]


async def test_course_reads_one_course_with_decimal_prices(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    catalog = sandbox.data.catalogs[0]
    expected = sandbox.data.first(catalog, "course")
    course = await client.catalogs.course(catalog.uuid, expected["key"])
    assert isinstance(course, Course)
    assert course.key == expected["key"]
    assert course.course_runs[0].seats[1].price == decimal.Decimal(
        expected["course_runs"][0]["seats"][1]["price"]
    )


async def test_course_run_reads_one_run(client: EnterpriseClient, sandbox: Sandbox) -> None:
    catalog = sandbox.data.catalogs[0]
    expected = sandbox.data.first(catalog, "courserun")
    run = await client.catalogs.course_run(catalog.uuid, expected["key"])
    assert isinstance(run, CourseRun)
    assert (run.key, run.course) == (expected["key"], expected["course"])


async def test_program_reads_one_program(client: EnterpriseClient, sandbox: Sandbox) -> None:
    catalog = sandbox.data.catalogs[0]
    expected = sandbox.data.first(catalog, "program")
    program = await client.catalogs.program(catalog.uuid, expected["uuid"])
    assert isinstance(program, Program)
    assert program.title == expected["title"]


async def test_item_of_another_catalog_raises_not_found(client: EnterpriseClient, sandbox: Sandbox) -> None:
    first, second = sandbox.data.catalogs[:2]
    with pytest.raises(NotFoundError):
        await client.catalogs.course(second.uuid, sandbox.data.first(first, "course")["key"])


# ---------------------------------------------------------------------------------- learner summary


async def test_learner_summary_returns_every_row_in_activity_order(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    customer = sandbox.data.customers[0].uuid
    rows = await client.learner_summary.list(customer).to_list()
    assert len(rows) == 30
    dates = [row.last_activity_date for row in rows]
    assert dates == sorted(dates)  # type: ignore[type-var]


async def test_learner_summary_orders_by_another_field(client: EnterpriseClient, sandbox: Sandbox) -> None:
    rows = await client.learner_summary.list(
        sandbox.data.customers[0].uuid, ordering="-course_list_price"
    ).to_list()
    prices = [row.course_list_price for row in rows]
    assert prices == sorted(prices, reverse=True)  # type: ignore[type-var]


async def test_learner_summary_as_a_plain_list_reads_the_same(response_format: str) -> None:
    async with (
        Sandbox(learner_summary="list", profile="reference") as plain,
        Sandbox(learner_summary="paginated", profile="reference") as paged,
        plain.client(response_format=response_format) as first,
        paged.client(response_format=response_format) as second,
    ):
        customer = plain.data.customers[0].uuid
        assert (
            await first.learner_summary.list(customer).to_list()
            == await second.learner_summary.list(customer).to_list()
        )


# ---------------------------------------------------------------------------------- JSON and XML agree


async def _pair(both: tuple[EnterpriseClient, EnterpriseClient], call: Any) -> tuple[Any, Any]:
    as_json, as_xml = both
    return await call(as_json), await call(as_xml)


async def test_json_and_xml_give_equal_policies(
    both: tuple[EnterpriseClient, EnterpriseClient], sandbox: Sandbox
) -> None:
    customer = sandbox.data.customers[0].uuid
    first, second = await _pair(both, lambda client: client.policies.list(customer).to_list())
    assert first == second


async def test_json_and_xml_give_equal_assignments(
    both: tuple[EnterpriseClient, EnterpriseClient], sandbox: Sandbox
) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    first, second = await _pair(both, lambda client: client.assignments.list(configuration).first_page())
    assert first == second


async def test_json_and_xml_give_equal_plans(both: tuple[EnterpriseClient, EnterpriseClient]) -> None:
    first, second = await _pair(both, lambda client: client.subscriptions.list().to_list())
    assert first == second


async def test_json_and_xml_give_equal_catalogs(both: tuple[EnterpriseClient, EnterpriseClient]) -> None:
    first, second = await _pair(both, lambda client: client.catalogs.list().to_list())
    assert first == second


async def test_json_and_xml_give_equal_contents(
    both: tuple[EnterpriseClient, EnterpriseClient], sandbox: Sandbox
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    first, second = await _pair(both, lambda client: client.catalogs.contents(catalog).to_list())
    assert len(first) == 45
    for left, right in zip(first, second, strict=True):
        assert to_dict(left) == to_dict(right)
        assert left == right


async def test_json_and_xml_give_equal_single_items(
    both: tuple[EnterpriseClient, EnterpriseClient], sandbox: Sandbox
) -> None:
    catalog = sandbox.data.catalogs[0]
    course, run, program = (sandbox.data.first(catalog, kind) for kind in ("course", "courserun", "program"))
    for call in (
        lambda client: client.catalogs.course(catalog.uuid, course["key"]),
        lambda client: client.catalogs.course_run(catalog.uuid, run["key"]),
        lambda client: client.catalogs.program(catalog.uuid, program["uuid"]),
    ):
        first, second = await _pair(both, call)
        assert first == second


async def test_json_and_xml_give_equal_learner_summaries(
    both: tuple[EnterpriseClient, EnterpriseClient], sandbox: Sandbox
) -> None:
    customer = sandbox.data.customers[0].uuid
    first, second = await _pair(both, lambda client: client.learner_summary.list(customer).to_list())
    assert first == second


async def test_json_and_xml_give_equal_allocation_results(sandbox: Sandbox) -> None:
    policy, configuration = _assignable(sandbox)
    allocated = next(r for r in sandbox.data.assignments(configuration) if r.state == "allocated")
    existing = [
        allocated,
        *(
            r
            for r in sandbox.data.assignments(configuration)
            if r.content_key == allocated.content_key and r is not allocated and r.state == "allocated"
        ),
    ]
    results = []
    for response_format in FORMATS:
        async with sandbox.client(response_format=response_format) as client:
            results.append(
                await client.policies.allocate(
                    policy,
                    learner_emails=[record.learner_email or "" for record in existing],
                    content_key=existing[0].content_key,
                    content_price_cents=100,
                )
            )
    assert results[0] == results[1]
