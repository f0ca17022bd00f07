"""The sandbox refuses, from the spec alone, every request the spec says is invalid.

Requests are sent raw (aiohttp, no client in between) to a sandbox serving the generated spec
with no stateful handler, so every answer comes from the request rules the generator wrote
(``REQUESTS``) checked by the sandbox's own validator. Refusals are Django REST framework's:
404 for a malformed path parameter, else 400 with ``{"field": ["message"]}``.
"""

from __future__ import annotations

import ast
import pathlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp
import pytest
from attrs import evolve

import enterprise_async.testing
from enterprise_async import errors
from enterprise_async._spec import Operation
from enterprise_async.testing import GENERATED_SPEC, Sandbox, SpecTable

from .conftest import RawAPI

POLICY = "6f1c1f0e-8a4e-4b2a-9d59-0c7c1b1f2a10"
PLAN = "0b4f0c34-5a3d-4d7a-8a49-6b8e4f6c9e21"
CONFIGURATION = "3c9d7a52-1f0b-4c8e-9a37-5d2e6b8f0a14"
ALLOCATE = f"/enterprise/v1/policy-allocation/{POLICY}/allocate/"
POLICIES = "/enterprise/v1/subsidy-access-policies/"
ASSIGNMENTS = f"/enterprise/v1/assignment-configurations/{CONFIGURATION}/admin/assignments/"
REVOKE = f"/enterprise/v1/subscriptions/{PLAN}/licenses/bulk-revoke"
ENROLL = "/enterprise/v1/bulk-license-enrollment"
GOOD_ALLOCATION = {
    "learner_emails": ["ada@example.com"],
    "content_key": "MITx+6.00x",
    "content_price_cents": 100,
}


def _without_handlers(spec: SpecTable) -> SpecTable:
    """``spec`` with every operation renamed (``bare.policies.allocate``), so no stateful handler
    answers it: each request is checked only against the spec's request rules."""

    def bare(name: str) -> str:
        return f"bare.{name}"

    return SpecTable(
        operations={bare(name): evolve(op, name=bare(name)) for name, op in spec.operations.items()},
        responses={bare(name): schemas for name, schemas in spec.responses.items()},
        components=spec.components,
        unauthenticated=frozenset(bare(name) for name in spec.unauthenticated),
        requests={bare(name): request for name, request in spec.requests.items()},
    )


BARE_SPEC = _without_handlers(GENERATED_SPEC)


@pytest.fixture
async def bare(session: aiohttp.ClientSession) -> AsyncIterator[RawAPI]:
    async with Sandbox(seed=1, spec=BARE_SPEC) as sandbox:
        yield RawAPI(sandbox, session)


def _allocation(**changes: Any) -> dict[str, Any]:
    return {**GOOD_ALLOCATION, **changes}


# ---------------------------------------------------------------------------------- accepted


async def test_a_request_the_spec_accepts_is_answered(bare: RawAPI) -> None:
    assert (await bare.post(ALLOCATE, json=GOOD_ALLOCATION)).status == 202


async def test_every_operation_of_the_spec_has_its_request_rules_generated() -> None:
    assert set(GENERATED_SPEC.requests) == set(GENERATED_SPEC.operations)


# ---------------------------------------------------------------------------------- path and query


async def test_a_path_parameter_that_is_not_a_uuid_is_404(bare: RawAPI) -> None:
    answer = await bare.get("/enterprise/v3/enterprise-customer/not-a-uuid/learner-summary")
    assert (answer.status, answer.data) == (404, {"detail": "Not found."})


async def test_a_missing_required_query_parameter_is_refused(bare: RawAPI) -> None:
    answer = await bare.get(POLICIES)
    assert (answer.status, answer.data) == (400, {"enterprise_customer_uuid": ["This field is required."]})


async def test_a_query_parameter_breaking_its_format_is_refused(bare: RawAPI) -> None:
    answer = await bare.get(POLICIES, params={"enterprise_customer_uuid": "nope"})
    assert (answer.status, answer.data) == (400, {"enterprise_customer_uuid": ["Must be a valid UUID."]})


async def test_a_query_integer_given_as_text_is_refused(bare: RawAPI) -> None:
    answer = await bare.get(ASSIGNMENTS, params={"lms_user_id": "abc"})
    assert (answer.status, answer.data) == (400, {"lms_user_id": ["A valid integer is required."]})


async def test_a_query_boolean_given_as_text_is_refused(bare: RawAPI) -> None:
    answer = await bare.get(POLICIES, params={"enterprise_customer_uuid": POLICY, "active": "maybe"})
    assert (answer.status, answer.data) == (400, {"active": ["Must be a valid boolean."]})


async def test_each_item_of_a_comma_separated_query_array_is_checked(bare: RawAPI) -> None:
    answer = await bare.get(ASSIGNMENTS, params={"lms_user_id__in": "1,x"})
    assert (answer.status, answer.data) == (400, {"lms_user_id__in": ["A valid integer is required."]})


async def test_a_comma_separated_query_array_of_valid_items_is_accepted(bare: RawAPI) -> None:
    assert (await bare.get(ASSIGNMENTS, params={"lms_user_id__in": "1,2"})).status == 200


async def test_the_parameters_a_listing_pages_by_are_left_to_its_paginator(bare: RawAPI) -> None:
    answer = await bare.get(POLICIES, params={"enterprise_customer_uuid": POLICY, "page": "999"})
    assert (answer.status, answer.data) == (404, {"detail": "Invalid page."})


# ---------------------------------------------------------------------------------- bodies


async def test_a_body_that_is_not_json_is_415(bare: RawAPI) -> None:
    answer = await bare.post(ALLOCATE, data="learner_emails=a", headers={"Content-Type": "text/plain"})
    assert answer.status == 415


async def test_a_body_missing_a_required_field_is_refused(bare: RawAPI) -> None:
    body = {name: value for name, value in GOOD_ALLOCATION.items() if name != "content_key"}
    answer = await bare.post(ALLOCATE, json=body)
    assert (answer.status, answer.data) == (400, {"content_key": ["This field is required."]})


async def test_a_field_a_closed_body_lacks_is_refused(bare: RawAPI) -> None:
    answer = await bare.post(ALLOCATE, json=_allocation(note="x"))
    assert (answer.status, answer.data) == (400, {"note": ["This field is not allowed."]})


async def test_an_integer_sent_as_a_string_is_refused(bare: RawAPI) -> None:
    answer = await bare.post(ALLOCATE, json=_allocation(content_price_cents="100"))
    assert (answer.status, answer.data) == (400, {"content_price_cents": ["A valid integer is required."]})


async def test_a_number_below_its_minimum_is_refused(bare: RawAPI) -> None:
    answer = await bare.post(ALLOCATE, json=_allocation(content_price_cents=-1))
    assert answer.data == {"content_price_cents": ["Ensure this value is greater than or equal to 0."]}


async def test_a_null_for_a_field_that_may_not_be_null_is_refused(bare: RawAPI) -> None:
    answer = await bare.post(ALLOCATE, json=_allocation(content_key=None))
    assert (answer.status, answer.data) == (400, {"content_key": ["This field may not be null."]})


async def test_a_blank_string_where_one_character_is_needed_is_refused(bare: RawAPI) -> None:
    answer = await bare.post(ALLOCATE, json=_allocation(content_key=""))
    assert (answer.status, answer.data) == (400, {"content_key": ["This field may not be blank."]})


async def test_an_item_that_is_not_an_email_address_is_refused_by_its_index(bare: RawAPI) -> None:
    answer = await bare.post(ALLOCATE, json=_allocation(learner_emails=["ada@example.com", "nope"]))
    assert (answer.status, answer.data) == (400, {"learner_emails": ["Item 1: Enter a valid email address."]})


async def test_an_empty_list_where_items_are_needed_is_refused(bare: RawAPI) -> None:
    answer = await bare.post(ALLOCATE, json=_allocation(learner_emails=[]))
    assert (answer.status, answer.data) == (400, {"learner_emails": ["This list may not be empty."]})


async def test_an_item_that_is_not_a_uuid_is_refused(bare: RawAPI) -> None:
    answer = await bare.post(f"{ASSIGNMENTS}cancel/", json={"assignment_uuids": ["nope"]})
    assert (answer.status, answer.data) == (400, {"assignment_uuids": ["Item 0: Must be a valid UUID."]})


async def test_every_invalid_field_is_named_at_once(bare: RawAPI) -> None:
    answer = await bare.post(ALLOCATE, json=_allocation(content_key="", content_price_cents=-1))
    assert set(answer.data) == {"content_key", "content_price_cents"}


# ---------------------------------------------------------------------------------- rules between fields


async def test_two_fields_the_spec_never_allows_together_are_refused(bare: RawAPI) -> None:
    body = {"user_emails": ["ada@example.com"], "filters": [{"name": "user_email", "filter_value": "ada"}]}
    answer = await bare.post(REVOKE, json=body)
    expected = {"non_field_errors": ["Give only one of user_emails, filters, never more."]}
    assert (answer.status, answer.data) == (400, expected)


async def test_a_body_without_any_of_its_alternatives_is_refused(bare: RawAPI) -> None:
    answer = await bare.post(REVOKE, json={})
    assert (answer.status, answer.data) == (400, {"non_field_errors": ["Give one of user_emails, filters."]})


async def test_a_product_of_list_lengths_beyond_the_spec_limit_is_refused(bare: RawAPI) -> None:
    body = {"emails": [f"l{number}@example.com" for number in range(101)], "course_run_keys": ["k"] * 10}
    answer = await bare.post(ENROLL, params={"enterprise_customer_uuid": POLICY}, json=body)
    message = "Ensure 101 emails x 10 course_run_keys = 1010 stays within 1000 (learners times course keys)."
    assert (answer.status, answer.data) == (400, {"non_field_errors": [message]})


async def test_a_product_of_list_lengths_at_the_spec_limit_is_accepted(bare: RawAPI) -> None:
    body = {"emails": [f"l{number}@example.com" for number in range(500)], "course_run_keys": ["k1", "k2"]}
    answer = await bare.post(ENROLL, params={"enterprise_customer_uuid": POLICY}, json=body)
    assert answer.status == 201


# ---------------------------------------------------------------------------------- x-sdk-wire


async def test_a_filter_in_its_wire_form_is_accepted(bare: RawAPI) -> None:
    body = {"filters": [{"name": "status_in", "filter_value": ["assigned"]}]}
    assert (await bare.post(REVOKE, json=body)).status == 200


async def test_a_filter_in_its_public_form_is_refused_as_the_service_refuses_it(bare: RawAPI) -> None:
    answer = await bare.post(REVOKE, json={"filters": [{"status_in": ["assigned"]}]})
    assert answer.status == 400
    assert answer.data["filters"][0].startswith("Item 0, ")


async def test_a_filter_naming_an_unknown_field_is_refused(bare: RawAPI) -> None:
    answer = await bare.post(REVOKE, json={"filters": [{"name": "colour", "filter_value": "red"}]})
    assert (answer.status, answer.data) == (
        400,
        {"filters": ['Item 0, name: "colour" is not a valid choice.']},
    )


async def test_a_filter_value_breaking_the_rule_of_its_field_is_refused(bare: RawAPI) -> None:
    answer = await bare.post(REVOKE, json={"filters": [{"name": "status_in", "filter_value": []}]})
    expected = {"filters": ["Item 0, filter_value: This list may not be empty."]}
    assert (answer.status, answer.data) == (400, expected)


# ------------------------------------------------------------------ rules of a hand-written table

BOXES = "/v9/boxes"
BOX_RULES: Mapping[str, Any] = {
    "parameters": [],
    "body": {
        "type": "object",
        "properties": {
            "apples": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 5}},
            "pears": {"type": "array", "items": {"type": "string", "pattern": "^p"}},
            "weight": {"type": "number", "maximum": 10},
            "kind": {"type": "string", "enum": ["crate", "bag"]},
        },
        "x-sdk-max-combined-items": {"fields": ["apples", "pears"], "maximum": 4, "description": "fruit"},
    },
}
BOXES_SPEC = SpecTable(
    operations={"boxes.create": Operation(name="boxes.create", method="POST", path=BOXES)},
    responses={"boxes.create": {201: None}},
    requests={"boxes.create": BOX_RULES},
)


@pytest.fixture
async def boxes(session: aiohttp.ClientSession) -> AsyncIterator[RawAPI]:
    async with Sandbox(spec=BOXES_SPEC) as sandbox:
        yield RawAPI(sandbox, session)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"apples": ["a"] * 4}, {"apples": ["Ensure this field has no more than 3 elements."]}),
        ({"apples": ["granny"]}, {"apples": ["Item 0: Ensure this field has no more than 5 characters."]}),
        ({"pears": ["q"]}, {"pears": ["Item 0: This value does not match the required pattern."]}),
        ({"weight": 11}, {"weight": ["Ensure this value is less than or equal to 10."]}),
        ({"kind": "box"}, {"kind": ['"box" is not a valid choice.']}),
    ],
    ids=["maxItems", "maxLength", "pattern", "maximum", "enum"],
)
async def test_a_json_schema_keyword_of_the_request_rules_is_enforced(
    boxes: RawAPI, body: dict[str, Any], expected: dict[str, list[str]]
) -> None:
    answer = await boxes.post(BOXES, json=body)
    assert (answer.status, answer.data) == (400, expected)


async def test_lists_holding_more_items_together_than_the_spec_allows_are_refused(boxes: RawAPI) -> None:
    answer = await boxes.post(BOXES, json={"apples": ["a", "b", "c"], "pears": ["p", "p"]})
    message = "Ensure apples and pears hold no more than 4 items together (fruit); they hold 5."
    assert (answer.status, answer.data) == (400, {"non_field_errors": [message]})


async def test_lists_within_their_combined_limit_are_accepted(boxes: RawAPI) -> None:
    assert (await boxes.post(BOXES, json={"apples": ["a", "b"], "pears": ["p", "p"]})).status == 201


# ---------------------------------------------------------------------------------- independence


async def test_a_body_the_client_never_checked_is_still_refused_by_the_sandbox() -> None:
    """``client.request`` sends what it is given, unchecked against the spec: the sandbox's own
    checks refuse it as the service would."""
    async with Sandbox(spec=BARE_SPEC) as sandbox, sandbox.client(max_retries=0) as client:
        with pytest.raises(errors.BadRequestError) as refused:
            await client.request(
                "POST",
                f"/enterprise/v1/policy-allocation/{POLICY}/allocate/",
                json={"learner_emails": ["not-an-address"], "content_key": "k", "content_price_cents": 1},
            )
    assert refused.value.body == {"learner_emails": ["Item 0: Enter a valid email address."]}


def test_no_module_of_the_sandbox_imports_the_clients_validation() -> None:
    package = pathlib.Path(enterprise_async.testing.__file__).parent
    importing = [path.name for path in sorted(package.rglob("*.py")) if "_validation" in _imported(path)]
    assert importing == []


def _imported(path: pathlib.Path) -> set[str]:
    """Every module name ``path`` imports, relative or absolute, split into its parts."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            names.update((node.module or "").split("."))
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(part for alias in node.names for part in alias.name.split("."))
    return names


# ---------------------------------------------------------------------------------- the handlers agree

INVALID_REQUESTS: Mapping[str, Any] = {
    "allocate without content_key": lambda ids: (
        f"/enterprise/v1/policy-allocation/{ids['policy']}/allocate/",
        {},
        {"learner_emails": ["ada@example.com"], "content_price_cents": 1},
    ),
    "allocate with an unknown field": lambda ids: (
        f"/enterprise/v1/policy-allocation/{ids['policy']}/allocate/",
        {},
        _allocation(note="x"),
    ),
    "allocate with a price as text": lambda ids: (
        f"/enterprise/v1/policy-allocation/{ids['policy']}/allocate/",
        {},
        _allocation(content_price_cents="1"),
    ),
    "allocate with a negative price": lambda ids: (
        f"/enterprise/v1/policy-allocation/{ids['policy']}/allocate/",
        {},
        _allocation(content_price_cents=-1),
    ),
    "allocate to a non-address": lambda ids: (
        f"/enterprise/v1/policy-allocation/{ids['policy']}/allocate/",
        {},
        _allocation(learner_emails=["nope"]),
    ),
    "allocate to nobody": lambda ids: (
        f"/enterprise/v1/policy-allocation/{ids['policy']}/allocate/",
        {},
        _allocation(learner_emails=[]),
    ),
    "cancel a malformed uuid": lambda ids: (
        f"/enterprise/v1/assignment-configurations/{ids['configuration']}/admin/assignments/cancel/",
        {},
        {"assignment_uuids": ["nope"]},
    ),
    "revoke with neither": lambda ids: (
        f"/enterprise/v1/subscriptions/{ids['plan']}/licenses/bulk-revoke",
        {},
        {},
    ),
    "revoke with both": lambda ids: (
        f"/enterprise/v1/subscriptions/{ids['plan']}/licenses/bulk-revoke",
        {},
        {"user_emails": ["a@example.com"], "filters": [{"name": "status_in", "filter_value": ["assigned"]}]},
    ),
    "revoke by a filter in its public form": lambda ids: (
        f"/enterprise/v1/subscriptions/{ids['plan']}/licenses/bulk-revoke",
        {},
        {"filters": [{"status_in": ["assigned"]}]},
    ),
    "revoke by an unknown filter": lambda ids: (
        f"/enterprise/v1/subscriptions/{ids['plan']}/licenses/bulk-revoke",
        {},
        {"filters": [{"name": "colour", "filter_value": "red"}]},
    ),
    "enroll too many": lambda ids: (
        ENROLL,
        {"enterprise_customer_uuid": ids["customer"]},
        {"emails": [f"l{number}@example.com" for number in range(101)], "course_run_keys": ["k"] * 10},
    ),
    "enroll a non-address": lambda ids: (
        ENROLL,
        {"enterprise_customer_uuid": ids["customer"]},
        {"emails": ["nope"], "course_run_keys": ["k"]},
    ),
    "enroll for no customer": lambda ids: (
        ENROLL,
        {},
        {"emails": ["a@example.com"], "course_run_keys": ["k"]},
    ),
}


@pytest.mark.parametrize("case", list(INVALID_REQUESTS))
async def test_the_stateful_handlers_refuse_what_the_spec_refuses(
    case: str, api: RawAPI, sandbox: Sandbox, session: aiohttp.ClientSession
) -> None:
    policy = next(policy for policy in sandbox.data.policies if policy.assignment_configuration_uuid)
    ids = {
        "policy": policy.uuid,
        "configuration": str(policy.assignment_configuration_uuid),
        "plan": sandbox.data.plans[0].uuid,
        "customer": sandbox.data.customers[0].uuid,
    }
    path, params, body = INVALID_REQUESTS[case](ids)
    async with Sandbox(seed=0, spec=BARE_SPEC) as bare_sandbox:
        from_the_spec = await RawAPI(bare_sandbox, session).post(path, params=params, json=body)
    from_the_handler = await api.post(path, params=params, json=body)
    assert from_the_spec.status == 400
    assert from_the_handler.status == from_the_spec.status
