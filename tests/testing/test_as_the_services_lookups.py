"""The sandbox's default profile answers as the services do where a service looks a resource up
before its permission check, and where its records carry other fields than the sandbox's did
(issue 41). Each test's docstring names the service file behind it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest

from enterprise_async.testing import Sandbox

from .conftest import RawAPI

FORBIDDEN = {"detail": "You do not have permission to perform this action."}
NIL = "00000000-0000-4000-8000-000000000000"
JSON = {"Accept": "application/json"}
ENROLL = "/enterprise/v1/bulk-license-enrollment"
POLICIES = "/enterprise/v1/subsidy-access-policies/"
CATALOGS = "/enterprise/v2/enterprise-catalogs"


@pytest.fixture
async def services() -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=0) as running:
        yield running


@pytest.fixture
async def api(services: Sandbox, session: aiohttp.ClientSession) -> RawAPI:
    return RawAPI(services, session)


def _own_catalog(sandbox: Sandbox) -> str:
    customer = sandbox.data.customers[0].uuid
    return next(catalog.uuid for catalog in sandbox.data.catalogs if catalog.customer_uuid == customer)


# ---------------------------------------------------------------------------------- license-manager


async def test_bulk_revoking_unassigned_licenses_fails_once_for_each_with_email_none(
    services: Sandbox, api: RawAPI
) -> None:
    """license-manager license_manager/apps/api/v1/views.py, bulk_revoke: the filters select
    `values_list('user_email')` of every license not revoked (None for an unassigned one), each
    revoked in turn; apps/subscriptions/exceptions.py, LicenseNotFoundError's words."""
    customer = services.data.customers[0].uuid
    plan = next(
        plan
        for plan in services.data.plans
        if plan.customer_uuid == customer
        and not plan.revocation_cap
        and any(license.status == "unassigned" for license in services.data.licenses(plan.uuid))
    )
    unassigned = sum(1 for license in services.data.licenses(plan.uuid) if license.status == "unassigned")
    body = {"filters": [{"name": "status_in", "filter_value": ["unassigned"]}]}
    answer = await api.post(f"/enterprise/v1/subscriptions/{plan.uuid}/licenses/bulk-revoke", json=body)
    error = (
        f"No license for email None exists in plan {plan.uuid} with a status in "
        "['activated', 'assigned']. user_email: None"
    )
    failure = {"error": error, "error_response_status": 404, "user_email": None}
    assert (answer.status, answer.data) == (404, {"unsuccessful_revocations": [failure] * unassigned})
    left = sum(1 for license in services.data.licenses(plan.uuid) if license.status == "unassigned")
    assert left == unassigned


async def test_revoking_an_email_without_a_license_reads_as_license_managers_words(
    services: Sandbox, api: RawAPI
) -> None:
    """license-manager apps/subscriptions/exceptions.py (LicenseNotFoundError.__str__) and
    apps/api/v1/views.py bulk_revoke (`. user_email: ...` appended)."""
    customer = services.data.customers[0].uuid
    plan = next(plan.uuid for plan in services.data.plans if plan.customer_uuid == customer)
    answer = await api.post(
        f"/enterprise/v1/subscriptions/{plan}/licenses/bulk-revoke",
        json={"user_emails": ["nobody@example.com"]},
    )
    assert answer.status == 404
    assert answer.data["unsuccessful_revocations"] == [
        {
            "error": f"No license for email nobody@example.com exists in plan {plan} with a status in "
            "['activated', 'assigned']. user_email: nobody@example.com",
            "error_response_status": 404,
            "user_email": "nobody@example.com",
        }
    ]


@pytest.mark.parametrize("customer", [NIL, None])
async def test_bulk_enrollment_for_a_customer_without_an_agreement_answers_404(
    api: RawAPI, customer: str | None
) -> None:
    """license-manager license_manager/apps/api/utils.py, get_context_for_customer_agreement_from_request:
    the permission's object is the customer's CustomerAgreement, got with get_object_or_404 before
    the check (views.py, EnterpriseEnrollmentWithLicenseSubsidyView.post)."""
    params = {} if customer is None else {"enterprise_customer_uuid": customer}
    body = {"emails": ["ada@example.com"], "course_run_keys": ["course-v1:edX+DemoX+1T2026"], "notify": True}
    answer = await api.post(ENROLL, params=params, json=body)
    assert (answer.status, answer.data) == (404, {"detail": "No CustomerAgreement matches the given query."})


async def test_a_job_status_for_a_customer_without_an_agreement_answers_404(api: RawAPI) -> None:
    """license-manager views.py, EnterpriseEnrollmentWithLicenseSubsidyView.get (the same permission)."""
    params = {"enterprise_customer_uuid": NIL, "bulk_enrollment_job_uuid": NIL}
    answer = await api.get(ENROLL, params=params)
    assert (answer.status, answer.data) == (404, {"detail": "No CustomerAgreement matches the given query."})


async def test_bulk_enrollment_for_another_customer_with_an_agreement_is_still_403(
    services: Sandbox, api: RawAPI
) -> None:
    """license-manager views.py (permission_required on the agreement's customer)."""
    body = {"emails": ["ada@example.com"], "course_run_keys": ["course-v1:edX+DemoX+1T2026"], "notify": True}
    other = services.data.customers[1].uuid
    answer = await api.post(ENROLL, params={"enterprise_customer_uuid": other}, json=body)
    assert (answer.status, answer.data) == (403, FORBIDDEN)


# ---------------------------------------------------------------------------------- enterprise-access


@pytest.mark.parametrize("params", [{"enterprise_customer_uuid": ""}, {}])
async def test_policies_without_a_customer_answer_403_before_any_field_check(
    api: RawAPI, params: dict[str, str]
) -> None:
    """enterprise-access enterprise_access/apps/api/v1/views/subsidy_access_policy.py, list:
    permission_required(fn=lambda request: request.query_params.get('enterprise_customer_uuid'))
    runs before the view reads its parameters."""
    answer = await api.get(POLICIES, params=params)
    assert (answer.status, answer.data) == (403, FORBIDDEN)


# ---------------------------------------------------------------------------------- enterprise-catalog


@pytest.mark.parametrize(
    "path",
    [
        f"{CATALOGS}/{NIL}",
        f"{CATALOGS}/{NIL}/courses/MITx+BUS.0.0x",
        f"{CATALOGS}/{NIL}/course-runs/course-v1:MITx+BUS.0.0x+1T2026",
        f"{CATALOGS}/{NIL}/programs/{NIL}",
    ],
)
async def test_an_unknown_catalog_answers_404(api: RawAPI, path: str) -> None:
    """enterprise-catalog enterprise_catalog/apps/api/v1/views/enterprise_catalog_get_content_metadata.py:
    get_permission_object reads the `enterprise_catalog` property, get_object_or_404."""
    answer = await api.get(path, headers=JSON)
    assert (answer.status, answer.data) == (404, {"detail": "No EnterpriseCatalog matches the given query."})


async def test_another_customers_catalog_is_still_403(services: Sandbox, api: RawAPI) -> None:
    """enterprise-catalog views/enterprise_catalog_get_content_metadata.py (permission on the
    catalog's customer, once the catalog is found)."""
    other = services.data.customers[1].uuid
    catalog = next(catalog.uuid for catalog in services.data.catalogs if catalog.customer_uuid == other)
    answer = await api.get(f"{CATALOGS}/{catalog}")
    assert (answer.status, answer.data) == (403, FORBIDDEN)


async def test_catalog_list_items_carry_only_what_their_serializer_emits(api: RawAPI) -> None:
    """enterprise-catalog enterprise_catalog/apps/api/v1/serializers.py, EnterpriseCatalogSerializer
    (its readable fields: no include_exec_ed_2u_courses, no enterprise_catalog_query)."""
    answer = await api.get(CATALOGS)
    fields = [
        "uuid",
        "title",
        "enterprise_customer",
        "catalog_query_uuid",
        "content_last_modified",
        "catalog_modified",
        "query_title",
    ]
    assert answer.status == 200
    assert answer.data["results"]
    assert all(list(item) == fields for item in answer.data["results"])


async def test_a_course_read_by_key_carries_course_and_image_url(services: Sandbox, api: RawAPI) -> None:
    """enterprise-catalog enterprise_catalog/apps/catalog/tests/factories.py, ContentMetadataFactory:
    a course's json_metadata carries `course` (its key) and `image_url`, which
    ContentMetadataSerializer passes through (apps/api/v1/serializers.py)."""
    catalog = _own_catalog(services)
    course = services.data.first(catalog, "course")
    answer = await api.get(f"{CATALOGS}/{catalog}/courses/{course['key']}", headers=JSON)
    assert answer.status == 200
    assert (answer.data["course"], answer.data["image_url"]) == (course["key"], course["card_image_url"])
    contents = await api.get(f"{CATALOGS}/{catalog}", headers=JSON)
    courses = [item for item in contents.data["results"] if item.get("content_type") == "course"]
    assert courses
    assert all(item["course"] == item["key"] and item["image_url"] for item in courses)


async def test_a_run_key_nested_in_its_course_is_answered_with_the_course(
    services: Sandbox, api: RawAPI
) -> None:
    """enterprise-catalog enterprise_catalog/apps/catalog/models.py, EnterpriseCatalog.get_matching_content
    (a nested course run's key matches its course), read by views/enterprise_customer.py
    get_metadata_by_content_key."""
    catalog = _own_catalog(services)
    course = services.data.first(catalog, "course")
    run = course["course_runs"][0]["key"]
    answer = await api.get(f"{CATALOGS}/{catalog}/course-runs/{run}", headers=JSON)
    assert answer.status == 200
    assert (answer.data["content_type"], answer.data["key"]) == ("course", course["key"])


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("subscription_uuid", "not-a-uuid", "Must be a valid UUID."),
        ("enroll_all", "perhaps", "Must be a valid boolean."),
    ],
)
async def test_bulk_enrollment_refuses_a_query_parameter_its_schema_refuses(
    services: Sandbox, api: RawAPI, name: str, value: str, message: str
) -> None:
    """The spec's query parameters of bulk enrollment (license-manager's
    EnterpriseEnrollmentWithLicenseSubsidyView reads both): a value that breaks its schema is a
    400 naming the parameter, and no job is queued."""
    customer = services.data.customers[0].uuid
    answer = await api.post(
        "/enterprise/v1/bulk-license-enrollment",
        params={"enterprise_customer_uuid": customer, name: value},
        json={
            "emails": ["learner@example.com"],
            "course_run_keys": ["course-v1:edX+DemoX+2T2024"],
            "notify": True,
        },
    )
    assert answer.status == 400
    assert answer.data == {name: [message]}
