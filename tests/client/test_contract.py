"""The public surface of CONTRACT.md, pinned: names, signatures, and the error tree.

Every method of the spec is checked against the spec itself (`tests/openapi_spec.py`); the
methods CONTRACT.md names are also pinned here, because the contract fixes their signatures.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

import enterprise_async
from enterprise_async import AsyncPager, EnterpriseClient, errors, models
from enterprise_async.testing import Sandbox
from tests.openapi_spec import SpecOperation
from tests.openapi_spec import operations as spec_operations

POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD
KEYWORD = inspect.Parameter.KEYWORD_ONLY

SPEC_OPERATIONS = {operation.name: operation for operation in spec_operations()}

# The contract's methods: method -> (positional parameters, keyword-only parameters, is a list method)
METHODS: dict[str, tuple[list[str], list[str], bool]] = {
    "policies.list": (["enterprise_customer_uuid"], ["active", "policy_type", "page_size"], True),
    "policies.allocate": (["policy_uuid"], ["learner_emails", "content_key", "content_price_cents"], False),
    "assignments.list": (
        ["assignment_configuration_uuid"],
        [
            "content_key",
            "content_key__in",
            "learner_email",
            "learner_email__in",
            "learner_state",
            "learner_state__in",
            "lms_user_id",
            "lms_user_id__in",
            "ordering",
            "search",
            "state",
            "state__in",
            "page_size",
        ],
        True,
    ),
    "assignments.remind": (["assignment_configuration_uuid"], ["assignment_uuids"], False),
    "assignments.cancel": (["assignment_configuration_uuid"], ["assignment_uuids"], False),
    "subscriptions.list": ([], ["enterprise_customer_uuid", "current"], True),
    "subscriptions.assign_licenses": (
        ["subscription_plan_uuid"],
        ["user_emails", "user_sfids", "greeting", "closing", "notify_users"],
        False,
    ),
    "subscriptions.bulk_revoke": (["subscription_plan_uuid"], ["user_emails", "filters"], False),
    # enroll_all, subscription_uuid: the query parameters license-manager reads and the gateway
    # forwards, found by `python -m codegen compare` (issue 42)
    "enrollments.bulk_enroll": (
        ["enterprise_customer_uuid"],
        ["enroll_all", "subscription_uuid", "emails", "course_run_keys", "notify"],
        False,
    ),
    # page_size: what the gateway forwards and enterprise-catalog reads (issue 22); limit stays its alias
    "catalogs.list": ([], ["page_size"], True),
    "catalogs.contents": (["catalog_uuid"], ["page_size", "limit"], True),
    "catalogs.course": (["catalog_uuid", "course_key"], [], False),
    "catalogs.course_run": (["catalog_uuid", "course_run_id"], [], False),
    "catalogs.program": (["catalog_uuid", "program_id"], [], False),
    # page_size: the enrollments view's, up to 1000 (issue 33)
    "learner_summary.list": (["enterprise_uuid"], ["ordering", "page_size"], True),
    "enrollments.job_status": (["enterprise_customer_uuid", "job_id"], [], False),
}
REQUIRED_KEYWORDS = {
    "policies.allocate": {"learner_emails", "content_key", "content_price_cents"},
    "assignments.remind": {"assignment_uuids"},
    "assignments.cancel": {"assignment_uuids"},
    "subscriptions.assign_licenses": {"user_emails"},
    "enrollments.bulk_enroll": {"emails", "course_run_keys", "notify"},
}
"""Keyword-only parameters without a default; every other keyword-only parameter defaults to None."""
PER_CALL_OPTIONS = ["timeout", "retry", "extra_headers", "extra_query", "extra_body"]
"""The keyword-only options every method takes after the contract's own parameters (issues 13, 25)."""


def method(client: EnterpriseClient, name: str) -> Any:
    resource, action = name.split(".")
    return getattr(getattr(client, resource), action)


@pytest.fixture
def client() -> EnterpriseClient:
    return EnterpriseClient(client_id="id", client_secret="secret", base_url="https://api.example.org")


@pytest.mark.parametrize("name", sorted(METHODS))
def test_method_signature(client: EnterpriseClient, name: str) -> None:
    positional, keyword, _ = METHODS[name]
    parameters = list(inspect.signature(method(client, name)).parameters.values())
    assert [p.name for p in parameters if p.kind is POSITIONAL] == positional
    assert [p.name for p in parameters if p.kind is KEYWORD] == keyword + PER_CALL_OPTIONS
    required = REQUIRED_KEYWORDS.get(name, set())
    for parameter in parameters:
        if parameter.kind is POSITIONAL or parameter.name in required:
            assert parameter.default is inspect.Parameter.empty, parameter.name
        else:
            assert parameter.default is None, parameter.name


def test_the_contract_methods_are_operations_of_the_spec() -> None:
    assert set(METHODS) <= set(SPEC_OPERATIONS)


@pytest.mark.parametrize("expected", list(SPEC_OPERATIONS.values()), ids=lambda operation: operation.name)
def test_every_method_signature_follows_the_spec(client: EnterpriseClient, expected: SpecOperation) -> None:
    parameters = list(inspect.signature(method(client, expected.name)).parameters.values())
    assert [p.name for p in parameters if p.kind is POSITIONAL] == list(expected.positional)
    assert [p.name for p in parameters if p.kind is KEYWORD] == [*expected.keyword, *PER_CALL_OPTIONS]
    for parameter in parameters:
        required = parameter.kind is POSITIONAL or parameter.name in expected.required_keywords
        assert (parameter.default is inspect.Parameter.empty) is required, parameter.name


@pytest.mark.parametrize("expected", list(SPEC_OPERATIONS.values()), ids=lambda operation: operation.name)
def test_list_methods_return_a_pager_at_once_and_others_are_coroutines(
    client: EnterpriseClient, expected: SpecOperation
) -> None:
    is_list = expected.pagination is not None
    assert inspect.iscoroutinefunction(method(client, expected.name)) is not is_list
    assert METHODS.get(expected.name, ([], [], is_list))[2] is is_list


def test_client_constructor_and_from_env() -> None:
    parameters = inspect.signature(EnterpriseClient).parameters
    for name in ("client_id", "client_secret", "base_url", "auth_url", "response_format", "max_concurrency",
                 "max_retries", "timeout", "session"):  # fmt: skip
        assert name in parameters
    assert parameters["response_format"].default == "json"
    assert parameters["max_concurrency"].default == 8
    assert parameters["max_retries"].default == 2
    assert parameters["timeout"].default == 30.0
    assert callable(EnterpriseClient.from_env)


def test_pager_offers_items_pages_to_list_and_first_page() -> None:
    for name in ("__aiter__", "pages", "to_list", "first_page"):
        assert hasattr(AsyncPager, name)


def test_the_error_tree() -> None:
    tree = {
        errors.ClientValidationError: errors.EnterpriseError,
        errors.APIConnectionError: errors.EnterpriseError,
        errors.APITimeoutError: errors.APIConnectionError,
        errors.ResponseDecodeError: errors.EnterpriseError,
        errors.APIStatusError: errors.EnterpriseError,
        errors.BadRequestError: errors.APIStatusError,
        errors.AuthenticationError: errors.APIStatusError,
        errors.PermissionDeniedError: errors.APIStatusError,
        errors.NotFoundError: errors.APIStatusError,
        errors.RateLimitError: errors.APIStatusError,
        errors.ServerError: errors.APIStatusError,
    }
    for child, parent in tree.items():
        assert issubclass(child, parent)
        assert getattr(enterprise_async, child.__name__) is child
    assert issubclass(errors.ClientValidationError, ValueError)
    error = errors.RateLimitError("x", retry_after=2.0, status=429, body={}, headers={})
    assert (error.status, error.body, error.headers, error.retry_after) == (429, {}, {}, 2.0)


def test_status_errors_map_from_statuses() -> None:
    assert errors.status_error_class(400) is errors.BadRequestError
    assert errors.status_error_class(401) is errors.AuthenticationError
    assert errors.status_error_class(403) is errors.PermissionDeniedError
    assert errors.status_error_class(404) is errors.NotFoundError
    assert errors.status_error_class(429) is errors.RateLimitError
    assert errors.status_error_class(503) is errors.ServerError


def test_models_offer_the_contracts_names() -> None:
    for name in ("SubsidyAccessPolicy", "AllocationResult", "Assignment", "SubscriptionPlan",
                 "LicenseAssignmentResult", "BulkRevokeResult", "BulkEnrollmentJob", "Catalog", "Course",
                 "CourseRun", "Program", "LearnerSummary", "to_dict", "from_dict"):  # fmt: skip
        assert hasattr(models, name)


async def test_the_sandbox_exposes_what_any_http_tool_needs() -> None:
    async with Sandbox() as sandbox:
        for name in ("base_url", "auth_url", "client_id", "client_secret"):
            assert getattr(sandbox, name)
        async with sandbox.client(response_format="xml") as client:
            assert client.response_format == "xml"
