"""The sandbox's default profile answers as the services behind the gateway do (issue 32).

Each test sends one request to ``Sandbox()`` and expects the service's answer; its docstring names
the service file behind it. The sandbox's tokens are tied to its first customer (A); B is another.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from enterprise_async.testing import DataSize, Sandbox

from .conftest import RawAPI

FORBIDDEN = {"detail": "You do not have permission to perform this action."}
NIL = "00000000-0000-4000-8000-000000000000"


@pytest.fixture
async def services() -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=0) as running:
        yield running


@pytest.fixture
async def api(services: Sandbox, session: aiohttp.ClientSession) -> RawAPI:
    return RawAPI(services, session)


def _customers(sandbox: Sandbox) -> tuple[str, str]:
    return sandbox.data.customers[0].uuid, sandbox.data.customers[1].uuid


def _plan_of(sandbox: Sandbox, customer: str) -> str:
    return next(plan.uuid for plan in sandbox.data.plans if plan.customer_uuid == customer)


def _assignable(sandbox: Sandbox, customer: str, *, active: bool = True) -> Any:
    return next(
        policy
        for policy in sandbox.data.policies_of(customer)
        if policy.assignment_configuration_uuid and policy.active == active
    )


def _catalog_of(sandbox: Sandbox, customer: str) -> str:
    return next(catalog.uuid for catalog in sandbox.data.catalogs if catalog.customer_uuid == customer)


# ---------------------------------------------------------------------------------- access


async def test_assigning_licenses_on_another_customers_plan_answers_403(
    services: Sandbox, api: RawAPI
) -> None:
    """license-manager license_manager/apps/api/v1/views.py, LicenseAdminViewSet (permission on the
    plan's customer)."""
    _, b = _customers(services)
    path = f"/enterprise/v1/subscriptions/{_plan_of(services, b)}/licenses/assign"
    answer = await api.post(path, json={"user_emails": ["ada@example.com"]})
    assert (answer.status, answer.data) == (403, FORBIDDEN)


async def test_bulk_revoking_on_another_customers_plan_answers_403(services: Sandbox, api: RawAPI) -> None:
    """license-manager license_manager/apps/api/v1/views.py, LicenseAdminViewSet.bulk_revoke."""
    _, b = _customers(services)
    path = f"/enterprise/v1/subscriptions/{_plan_of(services, b)}/licenses/bulk-revoke"
    answer = await api.post(path, json={"user_emails": ["ada@example.com"]})
    assert (answer.status, answer.data) == (403, FORBIDDEN)


async def test_another_customers_policies_answer_403(services: Sandbox, api: RawAPI) -> None:
    """enterprise-access enterprise_access/apps/api/v1/views/subsidy_access_policy.py (list:
    permission_required on enterprise_customer_uuid)."""
    _, b = _customers(services)
    answer = await api.get("/enterprise/v1/subsidy-access-policies/", params={"enterprise_customer_uuid": b})
    assert (answer.status, answer.data) == (403, FORBIDDEN)


async def test_another_customers_catalog_contents_answer_403(services: Sandbox, api: RawAPI) -> None:
    """enterprise-catalog enterprise_catalog/apps/api/v1/views/enterprise_catalog_get_content_metadata.py."""
    _, b = _customers(services)
    answer = await api.get(f"/enterprise/v2/enterprise-catalogs/{_catalog_of(services, b)}")
    assert (answer.status, answer.data) == (403, FORBIDDEN)


async def test_another_customers_learner_report_answers_403(services: Sandbox, api: RawAPI) -> None:
    """edx-enterprise-data enterprise_data/api/v1/views (permission on the customer in the path)."""
    _, b = _customers(services)
    answer = await api.get(f"/enterprise/v3/enterprise-customer/{b}/learner-summary")
    assert (answer.status, answer.data) == (403, FORBIDDEN)


async def test_another_customers_subscriptions_are_an_empty_page(services: Sandbox, api: RawAPI) -> None:
    """license-manager license_manager/apps/api/v1/views.py, SubscriptionViewSet: the listing is
    filtered to the customers the token may see."""
    _, b = _customers(services)
    answer = await api.get("/enterprise/v1/subscriptions", params={"enterprise_customer_uuid": b})
    assert answer.status == 200
    assert (answer.data["count"], answer.data["results"]) == (0, [])


async def test_subscriptions_without_a_customer_list_only_the_tokens_customer(
    services: Sandbox, api: RawAPI
) -> None:
    """license-manager license_manager/apps/api/v1/views.py, SubscriptionViewSet (listing filter)."""
    a, _ = _customers(services)
    answer = await api.get("/enterprise/v1/subscriptions")
    owners = {plan["enterprise_customer_uuid"] for plan in answer.data["results"]}
    assert (answer.status, owners) == (200, {a})


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", f"/enterprise/v1/subscriptions/{NIL}/licenses/assign"),
        ("POST", f"/enterprise/v1/policy-allocation/{NIL}/allocate/"),
        ("GET", f"/enterprise/v3/enterprise-customer/{NIL}/learner-summary"),
    ],
)
async def test_an_unknown_plan_policy_or_customer_answers_403(api: RawAPI, method: str, path: str) -> None:
    """license-manager views.py, enterprise-access views/subsidy_access_policy.py (allocate:
    permission_required before get_object_or_404), edx-enterprise-data: the permission check runs
    before the view, and an unknown resource has no customer of the token. (An unknown catalog is
    looked up first: 404, test_as_the_services_lookups.py.)"""
    answer = await api.request(method, path, json={} if method == "POST" else None)
    assert (answer.status, answer.data) == (403, FORBIDDEN)


# ---------------------------------------------------------------------------------- validation


async def test_current_subscriptions_without_a_customer_answer_400(api: RawAPI) -> None:
    """license-manager license_manager/apps/api/v1/views.py, SubscriptionViewSet.base_queryset
    (ParseError)."""
    answer = await api.get("/enterprise/v1/subscriptions", params={"current": "true"})
    assert (answer.status, answer.data) == (
        400,
        {"detail": "Current plan cannot be used without enterprise_uuid"},
    )


async def test_bulk_enrollment_without_notify_answers_400_on_notify(services: Sandbox, api: RawAPI) -> None:
    """license-manager license_manager/apps/api/serializers.py,
    EnterpriseEnrollmentWithLicenseSubsidyRequestSerializer (notify required=True)."""
    a, _ = _customers(services)
    body = {"emails": ["ada@example.com"], "course_run_keys": ["course-v1:edX+DemoX+1T2026"]}
    answer = await api.post(
        "/enterprise/v1/bulk-license-enrollment", params={"enterprise_customer_uuid": a}, json=body
    )
    assert (answer.status, answer.data) == (400, {"notify": ["This field is required."]})


async def test_bulk_enrollment_over_the_services_500_answers_400(services: Sandbox, api: RawAPI) -> None:
    """license-manager license_manager/apps/api/v1/views.py (BULK_ENROLL_REQUEST_LIMIT, 500 in
    settings/base.py)."""
    a, _ = _customers(services)
    body = {
        "emails": [f"learner{n}@example.com" for n in range(501)],
        "course_run_keys": ["course-v1:edX+DemoX+1T2026"],
        "notify": False,
    }
    answer = await api.post(
        "/enterprise/v1/bulk-license-enrollment", params={"enterprise_customer_uuid": a}, json=body
    )
    assert (answer.status, answer.data) == (
        400,
        "Too many provided enrollments, please try a smaller request.",
    )


async def test_assignments_with_an_unknown_state_answer_400_on_state(services: Sandbox, api: RawAPI) -> None:
    """enterprise-access enterprise_access/apps/api/filters/content_assignments.py (state: the
    model field's choices, django-filter's ChoiceFilter)."""
    a, _ = _customers(services)
    configuration = _assignable(services, a).assignment_configuration_uuid
    path = f"/enterprise/v1/assignment-configurations/{configuration}/admin/assignments/"
    answer = await api.get(path, params={"state": "bogus"})
    assert answer.status == 400
    assert answer.data == {"state": ["Select a valid choice. bogus is not one of the available choices."]}


async def test_allocating_at_a_price_the_content_does_not_have_answers_422(
    services: Sandbox, api: RawAPI
) -> None:
    """enterprise-access enterprise_access/apps/subsidy_access_policy/models.py,
    validate_requested_allocation_price (PriceValidationError), views/subsidy_access_policy.py allocate."""
    a, _ = _customers(services)
    policy = _assignable(services, a)
    course = services.data.first(policy.catalog_uuid, "course")
    body = {"learner_emails": ["ada@example.com"], "content_key": course["key"], "content_price_cents": 1}
    answer = await api.post(f"/enterprise/v1/policy-allocation/{policy.uuid}/allocate/", json=body)
    assert answer.status == 422
    assert [reason["reason"] for reason in answer.data] == ["PriceValidationError"]
    assert answer.data[0]["policy_uuids"] == [policy.uuid]


async def test_allocating_on_an_inactive_policy_answers_422_policy_expired(
    services: Sandbox, api: RawAPI
) -> None:
    """enterprise-access enterprise_access/apps/subsidy_access_policy/models.py, can_allocate
    (REASON_POLICY_EXPIRED)."""
    a, _ = _customers(services)
    policy = _assignable(services, a, active=False)
    body = {
        "learner_emails": ["ada@example.com"],
        "content_key": "edX+NotInTheCatalog",
        "content_price_cents": 100,
    }
    answer = await api.post(f"/enterprise/v1/policy-allocation/{policy.uuid}/allocate/", json=body)
    assert answer.status == 422
    assert [reason["reason"] for reason in answer.data] == ["policy_expired"]


async def test_learner_report_with_page_size_0_falls_back_to_10(services: Sandbox, api: RawAPI) -> None:
    """edx-enterprise-data (DRF PageNumberPagination.get_page_size: a size that is not a positive
    integer means the default, 10)."""
    a, _ = _customers(services)
    answer = await api.get(
        f"/enterprise/v3/enterprise-customer/{a}/learner-summary", params={"page_size": "0"}
    )
    assert (answer.status, len(answer.data["results"])) == (200, 10)


async def test_reminding_an_accepted_assignment_answers_200(services: Sandbox, api: RawAPI) -> None:
    """enterprise-access enterprise_access/apps/api/v1/views/content_assignments/assignments_admin.py,
    remind (reads `non_remindable_assignments`, a key remind_assignments never returns)."""
    a, _ = _customers(services)
    configuration = _assignable(services, a).assignment_configuration_uuid
    accepted = next(r for r in services.data.assignments(configuration) if r.state == "accepted")
    path = f"/enterprise/v1/assignment-configurations/{configuration}/admin/assignments/remind/"
    answer = await api.post(path, json={"assignment_uuids": [accepted.uuid]})
    assert (answer.status, accepted.state) == (200, "accepted")


# ---------------------------------------------------------------------------------- shapes


async def test_assignment_pages_carry_num_pages_and_start(services: Sandbox, api: RawAPI) -> None:
    """enterprise-access enterprise_access/apps/api/v1/views/utils.py, PaginationWithPageCount
    (edx-drf-extensions' DefaultPagination)."""
    a, _ = _customers(services)
    configuration = _assignable(services, a).assignment_configuration_uuid
    answer = await api.get(f"/enterprise/v1/assignment-configurations/{configuration}/admin/assignments/")
    assert answer.status == 200
    assert {"num_pages", "current_page", "start", "learner_state_counts"} <= set(answer.data)
    assert not {"page_count", "page_size"} & set(answer.data)


@pytest.mark.parametrize("listing", ["contents", "learner_summary"])
async def test_contents_and_learner_report_carry_current_page_num_pages_and_start(
    services: Sandbox, api: RawAPI, listing: str
) -> None:
    """enterprise-catalog views/enterprise_catalog_get_content_metadata.py and edx-enterprise-data:
    edx-drf-extensions' DefaultPagination envelope."""
    a, _ = _customers(services)
    path = {
        "contents": f"/enterprise/v2/enterprise-catalogs/{_catalog_of(services, a)}",
        "learner_summary": f"/enterprise/v3/enterprise-customer/{a}/learner-summary",
    }[listing]
    answer = await api.get(path, params={"page": "2"})
    assert answer.status == 200
    assert (answer.data["current_page"], answer.data["start"]) == (2, 10)
    assert answer.data["num_pages"] >= 2


def test_subscriptions_page_by_100_and_the_learner_report_by_10() -> None:
    """license-manager license_manager/settings/base.py (REST_FRAMEWORK PAGE_SIZE 100);
    edx-enterprise-data (DefaultPagination, 10). The sandbox holds at most 3 plans a customer, so
    the size is read from its options rather than seen on a page."""
    sizes = Sandbox().server.endpoints.options.page_sizes
    assert (sizes["subscriptions"], sizes["learner_summary"]) == (100, 10)


@pytest.mark.parametrize(
    "path",
    [
        "/enterprise/v1/subscriptions",
        "/enterprise/v1/subsidy-access-policies/?enterprise_customer_uuid={a}",
        "/enterprise/v3/enterprise-customer/{a}/learner-summary",
    ],
)
async def test_services_without_xml_answer_406_to_xml(services: Sandbox, api: RawAPI, path: str) -> None:
    """license-manager, enterprise-access, edx-enterprise-data settings (no XML renderer): DRF's
    negotiation answers NotAcceptable."""
    a, _ = _customers(services)
    answer = await api.get(path.format(a=a), accept="application/xml")
    assert (answer.status, answer.data) == (406, {"detail": "Could not satisfy the request Accept header."})


@pytest.mark.parametrize("accept", ["*/*", "text/csv", None])
async def test_any_other_accept_gets_json(api: RawAPI, accept: str | None) -> None:
    """license-manager settings/base.py (JSONRenderer first): DRF renders JSON for `*/*`."""
    answer = await api.get("/enterprise/v1/subscriptions", accept=accept)
    assert (answer.status, answer.headers["Content-Type"]) == (200, "application/json")


async def test_enterprise_catalog_still_renders_xml(api: RawAPI) -> None:
    """enterprise-catalog enterprise_catalog/apps/api/v1/views (renderer_classes = [JSONRenderer,
    XMLRenderer])."""
    answer = await api.get("/enterprise/v2/enterprise-catalogs", accept="application/xml")
    assert (answer.status, answer.headers["Content-Type"]) == (200, "application/xml; charset=utf-8")


async def test_the_services_path_form_with_a_trailing_slash_answers_200(api: RawAPI) -> None:
    """license-manager license_manager/apps/api/v1/urls.py (DRF routers: paths end in a slash)."""
    answer = await api.get("/enterprise/v1/subscriptions/")
    assert answer.status == 200


async def test_a_request_id_given_is_echoed(api: RawAPI) -> None:
    """license-manager settings/base.py (django-log-request-id: REQUEST_ID_RESPONSE_HEADER)."""
    answer = await api.get("/enterprise/v1/subscriptions", headers={"X-Request-ID": "trace-7"})
    assert answer.headers["X-Request-ID"] == "trace-7"


async def test_without_a_request_id_the_placeholder_none_is_sent(api: RawAPI) -> None:
    """license-manager settings/base.py (NO_REQUEST_ID = "None")."""
    answer = await api.get("/enterprise/v1/subscriptions")
    assert answer.headers["X-Request-ID"] == "None"


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        ("/enterprise/v1/subscriptions", "Invalid token."),
        ("/enterprise/v1/subsidy-access-policies/?enterprise_customer_uuid={a}", "Token has expired."),
    ],
)
async def test_an_expired_token_reads_as_each_service_words_it(
    services: Sandbox, api: RawAPI, path: str, detail: str
) -> None:
    """license-manager and enterprise-access (edx-drf-extensions JwtAuthentication, as each is set up)."""
    a, _ = _customers(services)
    await api.fresh_token()
    services.expire_tokens()
    answer = await api.get(path.format(a=a))
    assert (answer.status, answer.data) == (401, {"detail": detail})


# ---------------------------------------------------------------------------------- the reference profile


async def test_the_reference_profile_answers_xml_and_every_customer(session: aiohttp.ClientSession) -> None:
    """The reference as documented: XML unless JSON is asked for, no access by customer."""
    async with Sandbox(profile="reference") as sandbox:
        _, b = _customers(sandbox)
        answer = await RawAPI(sandbox, session).get(
            "/enterprise/v1/subscriptions", params={"enterprise_customer_uuid": b}, accept=None
        )
    assert answer.status == 200
    assert answer.headers["Content-Type"].startswith("application/xml")
    assert int(answer.data["count"]) == 2


def test_an_unknown_profile_is_refused() -> None:
    with pytest.raises(ValueError, match="profile"):
        Sandbox(profile="staging")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------- error bodies and payloads


async def test_a_bad_email_in_a_list_is_answered_by_its_position(services: Sandbox, api: RawAPI) -> None:
    """license-manager license_manager/apps/api/serializers.py, MultipleEmailsSerializer
    (ListField(child=EmailField()): DRF indexes a child's errors by position)."""
    a, _ = _customers(services)
    path = f"/enterprise/v1/subscriptions/{_plan_of(services, a)}/licenses/assign"
    answer = await api.post(path, json={"user_emails": ["ada@example.com", "not-an-email"]})
    assert (answer.status, answer.data) == (400, {"user_emails": {"1": ["Enter a valid email address."]}})


async def test_sfids_not_matching_the_emails_are_a_non_field_error(services: Sandbox, api: RawAPI) -> None:
    """license-manager license_manager/apps/api/serializers.py,
    LicenseAdminAssignActionSerializer.validate."""
    a, _ = _customers(services)
    path = f"/enterprise/v1/subscriptions/{_plan_of(services, a)}/licenses/assign"
    answer = await api.post(path, json={"user_emails": ["ada@example.com"], "user_sfids": ["a", "b"]})
    assert answer.status == 400
    assert answer.data == {
        "non_field_errors": ["Number of Salesforce IDs did not match number of provided user emails."]
    }


async def test_a_bulk_revoke_where_nothing_succeeds_carries_only_the_failures(
    services: Sandbox, api: RawAPI
) -> None:
    """license-manager license_manager/apps/api/v1/views.py, bulk_revoke (`error_response_status and
    not revocation_results`: only `unsuccessful_revocations`)."""
    a, _ = _customers(services)
    path = f"/enterprise/v1/subscriptions/{_plan_of(services, a)}/licenses/bulk-revoke"
    answer = await api.post(path, json={"user_emails": ["nobody@example.com"]})
    assert answer.status == 404
    assert list(answer.data) == ["unsuccessful_revocations"]


async def test_a_plan_carries_only_what_its_serializer_emits(services: Sandbox, api: RawAPI) -> None:
    """license-manager license_manager/apps/api/serializers.py, SubscriptionPlanSerializer: its
    fields, revocations `{applied, remaining}` (null without a cap), renewal dates as Python's
    `str(datetime)` (a UUIDField over a datetime)."""
    a, _ = _customers(services)
    answer = await api.get("/enterprise/v1/subscriptions", params={"enterprise_customer_uuid": a})
    capped = next(plan for plan in answer.data["results"] if plan["is_revocation_cap_enabled"])
    uncapped = next(plan for plan in answer.data["results"] if not plan["is_revocation_cap_enabled"])
    assert set(capped["revocations"]) == {"applied", "remaining"}
    assert uncapped["revocations"] is None
    assert not {"customer_agreement", "product", "num_revocations_applied"} & set(capped)
    renewal = capped["prior_renewals"][0]
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+00:00", renewal["renewed_subscription_plan_start_date"]
    )


async def test_policies_and_assignments_carry_only_what_their_serializers_emit(
    services: Sandbox, api: RawAPI
) -> None:
    """enterprise-access enterprise_access/apps/api/serializers/subsidy_access_policy.py
    (SubsidyAccessPolicyResponseSerializer) and serializers/content_assignments/assignment.py
    (LearnerContentAssignmentAdminResponseSerializer): the redemption and learner views' fields
    are not among them."""
    a, _ = _customers(services)
    policies = await api.get(
        "/enterprise/v1/subsidy-access-policies/", params={"enterprise_customer_uuid": a}
    )
    configuration = _assignable(services, a).assignment_configuration_uuid
    assignments = await api.get(
        f"/enterprise/v1/assignment-configurations/{configuration}/admin/assignments/"
    )
    policy, assignment = policies.data["results"][0], assignments.data["results"][0]
    assert not {"policy_redemption_url", "remaining_balance", "learner_content_assignments"} & set(policy)
    assert {"uuid", "aggregates", "assignment_configuration"} <= set(policy)
    assert not {"content_metadata", "learner_acknowledged"} & set(assignment)
    assert {"uuid", "learner_state", "recent_action"} <= set(assignment)


# ------------------------------------------------------------------ what each serializer emits

V0_LEARNER_FIELDS = {
    "id",
    "enterprise_id",
    "enterprise_user",
    "enterprise_site_id",
    "lms_user_id",
    "course_id",
    "consent_granted",
    "course_start",
    "course_end",
    "course_duration",
    "course_price",
    "discount_price",
    "offer",
    "enrollment_created_timestamp",
    "unenrollment_timestamp",
    "passed_timestamp",
    "user_account_creation_timestamp",
    "user_country",
}
"""The 18 fields of edx-enterprise-data's v0 EnterpriseEnrollmentSerializer (and the reference)
that its v1 EnterpriseLearnerEnrollmentSerializer does not emit."""


async def test_learner_rows_carry_only_what_their_serializer_emits(services: Sandbox, api: RawAPI) -> None:
    """edx-enterprise-data enterprise_data/api/v1/serializers.py, EnterpriseLearnerEnrollmentSerializer
    (the serializer_class of api/v1/views/enterprise_learner.py, EnterpriseLearnerEnrollmentViewSet):
    its 56 fields, in its order, none of the v0 serializer's."""
    a, _ = _customers(services)
    answer = await api.get(f"/enterprise/v3/enterprise-customer/{a}/learner-summary")
    row = answer.data["results"][0]
    assert answer.status == 200
    assert not V0_LEARNER_FIELDS & set(row)
    assert len(row) == 56
    assert (list(row)[:2], list(row)[-2:]) == (
        ["enrollment_id", "enterprise_enrollment_id"],
        ["course_progress", "course_passing_grade"],
    )


async def test_allocated_assignments_carry_only_what_their_serializer_emits(
    services: Sandbox, api: RawAPI
) -> None:
    """enterprise-access enterprise_access/apps/api/serializers/subsidy_access_policy.py,
    SubsidyAccessPolicyAllocationResponseSerializer: its assignments are
    LearnerContentAssignmentResponseSerializer's (serializers/content_assignments/assignment.py),
    without the admin view's `recent_action`, `learner_state`, `error_reason` or the learner
    views' `content_metadata`, `learner_acknowledged`."""
    a, _ = _customers(services)
    policy = _assignable(services, a)
    catalog = services.data.catalog(policy.catalog_uuid)
    assert catalog is not None
    course = services.data.first(catalog, "course")
    price = services.data.content.price_cents(catalog, course["key"])
    body = {"learner_emails": ["ada@example.com"], "content_key": course["key"], "content_price_cents": price}
    answer = await api.post(f"/enterprise/v1/policy-allocation/{policy.uuid}/allocate/", json=body)
    assert answer.status == 202
    (created,) = answer.data["created"]
    assert set(created) == {
        "uuid",
        "assignment_configuration",
        "learner_email",
        "lms_user_id",
        "content_key",
        "parent_content_key",
        "is_assigned_course_run",
        "content_title",
        "content_quantity",
        "state",
        "transaction_uuid",
        "actions",
        "earliest_possible_expiration",
    }


async def test_an_assignments_actions_carry_no_learner_acknowledged(services: Sandbox, api: RawAPI) -> None:
    """enterprise-access enterprise_access/apps/api/serializers/content_assignments/assignment.py:
    the admin serializer's actions are LearnerContentAssignmentActionSerializer's (created, modified,
    uuid, action_type, completed_at, error_reason); only the learner-facing one adds
    `learner_acknowledged`."""
    a, _ = _customers(services)
    configuration = _assignable(services, a).assignment_configuration_uuid
    answer = await api.get(f"/enterprise/v1/assignment-configurations/{configuration}/admin/assignments/")
    actions = [action for row in answer.data["results"] for action in row["actions"]]
    assert actions
    assert {frozenset(action) for action in actions} == {
        frozenset({"created", "modified", "uuid", "action_type", "completed_at", "error_reason"})
    }


async def test_allocating_content_outside_the_policys_catalog_answers_422_content_not_in_catalog(
    services: Sandbox, api: RawAPI
) -> None:
    """enterprise-access enterprise_access/apps/subsidy_access_policy/models.py, can_allocate
    (catalog_contains_content_key: REASON_CONTENT_NOT_IN_CATALOG), the reasons list of
    views/subsidy_access_policy.py, _get_reasons_for_no_redeemable_policies. The content is the
    customer's (its other catalog holds it, so the price check passes), not the policy's."""
    a, _ = _customers(services)
    policy = _assignable(services, a)
    other = next(c for c in services.data.catalogs if c.customer_uuid == a and c.uuid != policy.catalog_uuid)
    course = services.data.first(other, "course")
    held = services.data.catalog(policy.catalog_uuid)
    assert held is not None
    assert not services.data.content.holds(held, course["key"])
    body = {
        "learner_emails": ["ada@example.com"],
        "content_key": course["key"],
        "content_price_cents": services.data.content.price_cents(other, course["key"]),
    }
    answer = await api.post(f"/enterprise/v1/policy-allocation/{policy.uuid}/allocate/", json=body)
    assert answer.status == 422
    assert answer.data == [
        {
            "reason": "content_not_in_catalog",
            "user_message": "You can't enroll right now because this course is no longer available in your "
            "organization's catalog.",
            "metadata": {"enterprise_administrators": []},
            "policy_uuids": [policy.uuid],
        }
    ]


# ------------------------------------------------------------------ enterprise-access's page sizes


async def test_assignments_page_by_100_and_at_most_500(session: aiohttp.ClientSession) -> None:
    """enterprise-access enterprise_access/apps/api/v1/views/utils.py, PaginationWithPageCount
    (page_size = REST_FRAMEWORK PAGE_SIZE, 100 in settings/base.py; max_page_size = 500)."""
    async with Sandbox(seed=0, size=DataSize(assignments_per_configuration=800)) as sandbox:
        api = RawAPI(sandbox, session)
        a, _ = _customers(sandbox)
        configuration = _assignable(sandbox, a).assignment_configuration_uuid
        path = f"/enterprise/v1/assignment-configurations/{configuration}/admin/assignments/"
        default = await api.get(path)
        largest = await api.get(path, params={"page_size": "1000"})
    count = default.data["count"]
    assert count > 500
    assert (len(default.data["results"]), default.data["num_pages"]) == (100, -(-count // 100))
    assert (len(largest.data["results"]), largest.data["num_pages"]) == (500, 2)


async def test_policies_page_by_100_but_a_page_size_asked_for_is_held_to_10(
    session: aiohttp.ClientSession,
) -> None:
    """enterprise-access enterprise_access/apps/api/v1/views/subsidy_access_policy.py,
    SubsidyAccessPolicyPagination (max_page_size = 10 over PaginationWithPageCount's page_size 100):
    DRF's get_page_size caps only a size given in the query. The default 3 policies a customer fit
    either way, so the sizes are read where the sandbox keeps them; test_production_sizes.py pages
    a 12-policy customer through the cap."""
    async with Sandbox(seed=0) as sandbox:
        endpoints = sandbox.server.endpoints
        assert endpoints.options.page_sizes["policies"] == 100
        assert endpoints.services.max_page_size("policies.list") == 10
        api = RawAPI(sandbox, session)
        a, _ = _customers(sandbox)
        answer = await api.get(
            "/enterprise/v1/subsidy-access-policies/",
            params={"enterprise_customer_uuid": a, "page_size": "50"},
        )
    assert (answer.status, answer.data["num_pages"]) == (200, 1)


# ------------------------------------------------------------------ the data and catalog services


@pytest.mark.parametrize(
    "path", ["/enterprise/v3/enterprise-customer/{a}/learner-summary", "/enterprise/v2/enterprise-catalogs"]
)
async def test_an_expired_token_reads_invalid_token_at_the_data_and_catalog_services(
    services: Sandbox, api: RawAPI, path: str
) -> None:
    """edx-enterprise-data (installed in edx-analytics-data-api: analyticsdataserver/settings/base.py)
    and enterprise-catalog enterprise_catalog/settings/base.py: JWT_DECODE_HANDLER is edx-drf-extensions'
    jwt_decode_handler, which re-raises an expired signature as InvalidTokenError; drf-jwt's
    JSONWebTokenAuthentication words it "Invalid token."."""
    a, _ = _customers(services)
    await api.fresh_token()
    services.expire_tokens()
    answer = await api.get(path.format(a=a))
    assert (answer.status, answer.data) == (401, {"detail": "Invalid token."})


async def test_enterprise_catalog_echoes_the_request_id(api: RawAPI) -> None:
    """enterprise-catalog enterprise_catalog/settings/base.py (log_request_id's RequestIDMiddleware,
    REQUEST_ID_RESPONSE_HEADER "X-Request-ID", NO_REQUEST_ID "None")."""
    given = await api.get("/enterprise/v2/enterprise-catalogs", headers={"X-Request-ID": "trace-9"})
    none = await api.get("/enterprise/v2/enterprise-catalogs")
    assert (given.headers["X-Request-ID"], none.headers["X-Request-ID"]) == ("trace-9", "None")


async def test_edx_enterprise_data_sends_no_request_id(services: Sandbox, api: RawAPI) -> None:
    """edx-analytics-data-api analyticsdataserver/settings/base.py, where edx-enterprise-data runs:
    no django-log-request-id middleware, so no X-Request-ID comes back."""
    a, _ = _customers(services)
    answer = await api.get(
        f"/enterprise/v3/enterprise-customer/{a}/learner-summary", headers={"X-Request-ID": "trace-9"}
    )
    assert answer.status == 200
    assert "X-Request-ID" not in answer.headers


async def test_the_learner_report_streams_every_row_as_csv(services: Sandbox, api: RawAPI) -> None:
    """edx-enterprise-data enterprise_data/api/v1/views/enterprise_learner.py,
    EnterpriseLearnerEnrollmentViewSet (renderer_classes = (JSONRenderer, EnrollmentsCSVRenderer);
    list: a CSV format streams every row, unpaged, as learner_progress_report.csv) and
    enterprise_data/renderers.py (EnrollmentsCSVRenderer.header: the serializer's fields)."""
    a, _ = _customers(services)
    path = f"/enterprise/v3/enterprise-customer/{a}/learner-summary"
    answer = await api.get(path, accept="text/csv")
    paged = await api.get(path)
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "text/csv"
    assert answer.headers["Content-Disposition"] == 'attachment; filename="learner_progress_report.csv"'
    rows = list(csv.reader(io.StringIO(answer.raw.decode())))
    assert rows[0] == list(paged.data["results"][0])
    assert len(rows) == 1 + paged.data["count"]


async def test_an_error_of_the_learner_report_asked_in_csv_is_json(services: Sandbox, api: RawAPI) -> None:
    """edx-enterprise-data (permission on the customer in the path): the 403 is the service's;
    its body in JSON is a deliberate difference (the CSV renderer would write it as a CSV row)."""
    _, b = _customers(services)
    answer = await api.get(f"/enterprise/v3/enterprise-customer/{b}/learner-summary", accept="text/csv")
    assert (answer.status, answer.data) == (403, FORBIDDEN)
