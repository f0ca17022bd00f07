"""Where the real services differ from the reference: one test per row of spec/README.md's table
"Where the services differ from the reference", through the public client against the sandbox."""

from __future__ import annotations

from http import HTTPStatus

import pytest

from enterprise_async import (
    APIStatusError,
    BadRequestError,
    ClientValidationError,
    PermissionDeniedError,
    UnprocessableEntityError,
)
from enterprise_async.models import BulkRevokeFilter, LicenseStatus
from enterprise_async.testing import Sandbox
from tests.conftest import Backoffs

REVOKE = "/enterprise/v1/subscriptions/{}/licenses/bulk-revoke"


def _uncapped_plan(sandbox: Sandbox) -> str:
    return str(sandbox.data.plans[1].uuid)  # the seed's second plan has no revocation cap


def _fragment(email: str) -> str:
    """A piece of an e-mail's local part, upper-cased: the filter must match it anyway."""
    return email.split("@", 1)[0][:3].upper()


async def test_revoke_filters_travel_as_name_and_filter_value(enterprise_sandbox: Sandbox) -> None:
    plan = _uncapped_plan(enterprise_sandbox)
    async with enterprise_sandbox.client() as client:
        result = await client.subscriptions.bulk_revoke(
            plan,
            filters=[
                {"status_in": ["assigned"]},
                BulkRevokeFilter(status_in=[LicenseStatus.ASSIGNED]),
                {"name": "status_in", "filter_value": ["assigned"]},
            ],
        )
    (request,) = enterprise_sandbox.requests.find("POST", REVOKE.format(plan))
    assert request.json() == {"filters": [{"name": "status_in", "filter_value": ["assigned"]}] * 3}
    assert result.successful_revocations
    assert {item.original_status for item in result.successful_revocations} == {"assigned"}


async def test_user_email_filter_is_a_case_insensitive_substring(enterprise_sandbox: Sandbox) -> None:
    plan = _uncapped_plan(enterprise_sandbox)
    held = [item for item in enterprise_sandbox.data.licenses(plan) if item.status != "revoked"]
    fragment = _fragment(next(item.user_email for item in held if item.user_email))
    expected = {
        item.user_email for item in held if item.user_email and fragment.lower() in item.user_email.lower()
    }
    async with enterprise_sandbox.client() as client:
        result = await client.subscriptions.bulk_revoke(plan, filters=[{"user_email": fragment}])
    assert {item.user_email for item in result.successful_revocations} == expected


async def test_bulk_enroll_limits_learners_times_course_keys(enterprise_sandbox: Sandbox) -> None:
    customer = enterprise_sandbox.data.customers[0].uuid
    keys = [f"course-v1:Org+C{number}+Run" for number in range(20)]
    async with enterprise_sandbox.client() as client:
        with pytest.raises(ClientValidationError, match="100 emails x 20 course_run_keys = 2000"):
            await client.enrollments.bulk_enroll(
                customer,
                emails=[f"l{number}@example.com" for number in range(100)],
                course_run_keys=keys,
                notify=False,
            )
        # 25 x 20 = 500: within license-manager's default BULK_ENROLL_REQUEST_LIMIT (settings/base.py).
        job = await client.enrollments.bulk_enroll(
            customer,
            emails=[f"l{number}@example.com" for number in range(25)],
            course_run_keys=keys,
            notify=False,
        )
    assert job.job_id == enterprise_sandbox.data.enrollment_jobs[-1].job_id
    assert len(enterprise_sandbox.requests.find("POST", "/enterprise/v1/bulk-license-enrollment")) == 1


async def test_a_locked_plan_answers_423_and_the_assignment_is_retried(
    enterprise_sandbox: Sandbox, no_sleep: Backoffs
) -> None:
    plan = enterprise_sandbox.data.plans[0]
    enterprise_sandbox.data.lock_plan(plan.uuid, attempts=2)
    async with enterprise_sandbox.client(retry=no_sleep.policy, max_retries=2) as client:
        result = await client.subscriptions.assign_licenses(plan.uuid, user_emails=["late@example.com"])
        assert client.stats.faults["423"] == 2
    assert result.num_successful_assignments == 1
    assert len(no_sleep) == 2


async def test_a_plan_locked_past_the_retries_raises_the_services_words(
    enterprise_sandbox: Sandbox, no_sleep: Backoffs
) -> None:
    plan = enterprise_sandbox.data.plans[0]
    enterprise_sandbox.data.lock_plan(plan.uuid)
    async with enterprise_sandbox.client(retry=no_sleep.policy, max_retries=1) as client:
        with pytest.raises(APIStatusError, match="Assignment currently locked") as caught:
            await client.subscriptions.assign_licenses(plan.uuid, user_emails=["late@example.com"])
    assert caught.value.status == 423
    assert len(no_sleep) == 1


async def test_a_refused_allocation_raises_422_with_the_services_reason(enterprise_sandbox: Sandbox) -> None:
    policy = next(p for p in enterprise_sandbox.data.policies if p.assignment_configuration_uuid)
    course = enterprise_sandbox.data.first(policy.catalog_uuid, "course")  # the services allocate only
    catalog = enterprise_sandbox.data.catalog(policy.catalog_uuid)  # content of the policy's catalog,
    assert catalog is not None  # at its price: learners enough for that price to exceed the funds
    price = enterprise_sandbox.data.content.price_cents(catalog, course["key"])
    assert price is not None
    learners = [f"rich{n}@example.com" for n in range(policy.spend_limit // price + 1)]
    async with enterprise_sandbox.client() as client:
        with pytest.raises(UnprocessableEntityError) as caught:
            await client.policies.allocate(
                policy.uuid, learner_emails=learners, content_key=course["key"], content_price_cents=price
            )
    reason = HTTPStatus(422).phrase  # the server's words: "Unprocessable Content" from Python 3.13 on
    assert str(caught.value).endswith(
        f"422 {reason}: You can't enroll right now because your organization doesn't have "
        "enough funds. Contact your administrator to request more."
        f" (request id {caught.value.request_id})"
    )
    assert caught.value.body[0]["reason"] == "policy_spend_limit_reached"


async def test_bulk_revoke_errors_carry_the_revocation_result(enterprise_sandbox: Sandbox) -> None:
    capped = enterprise_sandbox.data.plans[0]
    holders = [
        item.user_email
        for item in enterprise_sandbox.data.licenses(capped.uuid)
        if item.status in ("assigned", "activated") and item.user_email
    ]
    remaining = enterprise_sandbox.data.plan_wire(capped)["revocations"]["remaining"]
    async with enterprise_sandbox.client() as client:
        with pytest.raises(BadRequestError) as refused:
            await client.subscriptions.bulk_revoke(capped.uuid, user_emails=holders[: remaining + 1])
    assert refused.value.result.unsuccessful_revocations[0].error == (
        "Plan does not have enough revocations remaining."
    )


async def test_bulk_revoke_on_an_unknown_plan_is_refused_before_the_view(enterprise_sandbox: Sandbox) -> None:
    """license-manager license_manager/apps/api/v1/views.py: the permission check runs before the
    view, and an unknown plan has no customer of the token's: 403, not the view's 404."""
    async with enterprise_sandbox.client() as client:
        with pytest.raises(PermissionDeniedError):
            await client.subscriptions.bulk_revoke(
                "00000000-0000-4000-8000-000000000000", user_emails=["a@example.com"]
            )


async def test_remind_and_cancel_answer_empty_bodies_and_422_for_the_rest(
    enterprise_sandbox: Sandbox,
) -> None:
    configuration = enterprise_sandbox.data.assignment_configurations[0]
    records = enterprise_sandbox.data.assignments(configuration)
    allocated = next(record for record in records if record.state == "allocated")
    accepted = next(record for record in records if record.state == "accepted")
    async with enterprise_sandbox.client() as client:
        assert await client.assignments.remind(configuration, assignment_uuids=[allocated.uuid]) is None
        with pytest.raises(UnprocessableEntityError):
            await client.assignments.cancel(configuration, assignment_uuids=[allocated.uuid, accepted.uuid])
    assert (allocated.state, accepted.state) == ("cancelled", "accepted")


async def test_error_messages_carry_bare_string_bodies(enterprise_sandbox: Sandbox) -> None:
    plan = enterprise_sandbox.data.plans[0]
    free = sum(item.status == "unassigned" for item in enterprise_sandbox.data.licenses(plan.uuid))
    emails = [f"many{number}@example.com" for number in range(free + 1)]
    async with enterprise_sandbox.client() as client:
        with pytest.raises(BadRequestError, match="There are not enough licenses that can be assigned"):
            await client.subscriptions.assign_licenses(plan.uuid, user_emails=emails)
