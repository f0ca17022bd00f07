"""Every rule of the spec, and input that cannot be right, raise ClientValidationError naming the
field, before any request is sent."""

from __future__ import annotations

import inspect
import uuid
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest

from enterprise_async import ClientValidationError, EnterpriseClient
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async.models import BulkRevokeFilter
from tests.conftest import ScriptedAPI

PLAN = "2c5e8f1a-4b7d-4a0c-9e3f-6b9c2e5f8a1d"
POLICY = "c3a1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
CONFIG = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
CUSTOMER = "4f2ad1b8-9c6e-4c1a-8f0e-3b7d2e5a9c11"


@pytest.fixture
async def client(api: ScriptedAPI) -> AsyncIterator[EnterpriseClient]:
    async with api.client() as client:
        yield client
    assert api.requests == [], "a request was sent despite invalid input"


async def rejects(field: str, coroutine: Any) -> ClientValidationError:
    with pytest.raises(ClientValidationError) as caught:
        await coroutine
    assert caught.value.field == field
    assert isinstance(caught.value, ValueError)
    return caught.value


async def allocate(client: EnterpriseClient, **overrides: Any) -> Any:
    arguments: dict[str, Any] = {
        "learner_emails": ["ada@acme.example"],
        "content_key": "HarvardX+CS50",
        "content_price_cents": 19900,
    }
    arguments.update(overrides)
    policy = arguments.pop("policy_uuid", POLICY)
    return await client.policies.allocate(policy, **arguments)


async def test_negative_content_price_is_rejected(client: EnterpriseClient) -> None:
    error = await rejects("content_price_cents", allocate(client, content_price_cents=-1))
    assert ">= 0" in str(error)


async def test_a_boolean_is_not_a_price(client: EnterpriseClient) -> None:
    await rejects("content_price_cents", allocate(client, content_price_cents=True))


async def test_a_string_is_not_a_list_of_emails(client: EnterpriseClient) -> None:
    await rejects("learner_emails", allocate(client, learner_emails="ada@acme.example"))


async def test_strings_that_are_not_email_addresses_are_rejected(client: EnterpriseClient) -> None:
    error = await rejects("learner_emails[1]", allocate(client, learner_emails=["ada@acme.example", "bob"]))
    assert "'bob' is not an e-mail address" in str(error)


async def test_an_empty_learner_list_is_rejected(client: EnterpriseClient) -> None:
    await rejects("learner_emails", allocate(client, learner_emails=[]))


async def test_a_blank_content_key_is_rejected(client: EnterpriseClient) -> None:
    await rejects("content_key", allocate(client, content_key="  "))


async def test_a_malformed_uuid_in_a_path_is_rejected(client: EnterpriseClient) -> None:
    error = await rejects("policy_uuid", allocate(client, policy_uuid="not-a-uuid"))
    assert "policies.allocate" in str(error)


async def test_a_catalog_uuid_that_is_not_a_uuid_is_rejected_before_sending(client: EnterpriseClient) -> None:
    error = await rejects("catalog_uuid", client.catalogs.course("1234", "edX+DemoX"))
    assert "catalogs.course" in str(error)


def test_a_catalog_listing_with_an_id_that_is_not_a_uuid_is_rejected_when_made(
    client: EnterpriseClient,
) -> None:
    with pytest.raises(ClientValidationError) as caught:
        client.catalogs.contents("1234")
    assert caught.value.field == "catalog_uuid"


@pytest.mark.parametrize("blank", ["", "   "])
async def test_policy_list_requires_a_non_blank_customer(client: EnterpriseClient, blank: str) -> None:
    with pytest.raises(ClientValidationError) as caught:
        client.policies.list(blank)
    assert caught.value.field == "enterprise_customer_uuid"


async def test_policy_list_rejects_none_as_customer(client: EnterpriseClient) -> None:
    with pytest.raises(ClientValidationError, match="is required"):
        client.policies.list(None)  # type: ignore[arg-type]


async def test_bulk_revoke_takes_emails_or_filters_never_both(client: EnterpriseClient) -> None:
    error = await rejects(
        "filters",
        client.subscriptions.bulk_revoke(
            PLAN, user_emails=["a@acme.example"], filters=[{"status_in": ["assigned"]}]
        ),
    )
    assert "never both" in str(error)


async def test_bulk_revoke_needs_emails_or_filters(client: EnterpriseClient) -> None:
    await rejects("user_emails", client.subscriptions.bulk_revoke(PLAN))


async def test_a_revoke_filter_holds_an_email_or_statuses_not_both(client: EnterpriseClient) -> None:
    both = BulkRevokeFilter(user_email="a@acme.example", status_in=["assigned"])
    await rejects("filters[0].status_in", client.subscriptions.bulk_revoke(PLAN, filters=[both]))


async def test_a_revoke_filter_with_an_unknown_key_is_rejected(client: EnterpriseClient) -> None:
    await rejects(
        "filters[0].status", client.subscriptions.bulk_revoke(PLAN, filters=[{"status": ["assigned"]}])
    )


async def test_a_revoke_filter_must_be_a_mapping_or_model(client: EnterpriseClient) -> None:
    await rejects("filters[0]", client.subscriptions.bulk_revoke(PLAN, filters=["assigned"]))


async def test_learners_times_course_keys_are_at_most_1000(client: EnterpriseClient) -> None:
    emails = [f"learner{number}@acme.example" for number in range(501)]
    error = await rejects(
        "emails",
        client.enrollments.bulk_enroll(
            CUSTOMER, emails=emails, course_run_keys=["course-v1:A+B+C", "course-v1:A+B+D"], notify=False
        ),
    )
    assert "501 emails x 2 course_run_keys = 1002 exceeds the limit of 1000" in str(error)


async def test_a_field_the_service_requires_is_required_before_sending(client: EnterpriseClient) -> None:
    """license-manager answers 400 "notify: This field is required" (``body-required`` in the spec):
    the call is refused here instead, and the method's signature asks for it."""
    operation = OPERATIONS["enrollments.bulk_enroll"]
    arguments = {"enterprise_customer_uuid": CUSTOMER, "emails": ["a@acme.example"], "course_run_keys": ["k"]}
    error = await rejects("notify", client.call(operation, arguments))
    assert "required" in str(error)
    await rejects("notify", client.call(operation, {**arguments, "notify": None}))
    for method in (client.enrollments.bulk_enroll, client.enrollments.bulk_enroll_in_chunks):
        notify = inspect.signature(method).parameters["notify"]
        assert notify.default is inspect.Parameter.empty
        assert notify.kind is inspect.Parameter.KEYWORD_ONLY


async def test_exactly_1000_learners_times_course_keys_pass_validation(api: ScriptedAPI) -> None:
    api.json(
        "POST",
        "/enterprise/v1/bulk-license-enrollment",
        {"job_id": "3f2b1c9a-7e6d-4c5b-9a8f-1e2d3c4b5a69"},
        201,
    )
    emails = [f"learner{number}@acme.example" for number in range(500)]
    async with api.client() as client:
        job = await client.enrollments.bulk_enroll(
            CUSTOMER, emails=emails, course_run_keys=["course-v1:A+B+C", "course-v1:A+B+D"], notify=False
        )
    assert job.job_id == "3f2b1c9a-7e6d-4c5b-9a8f-1e2d3c4b5a69"


async def test_remind_needs_uuids(client: EnterpriseClient) -> None:
    await rejects("assignment_uuids[0]", client.assignments.remind(CONFIG, assignment_uuids=["nope"]))


async def test_in_filters_take_lists(client: EnterpriseClient) -> None:
    with pytest.raises(ClientValidationError) as caught:
        client.assignments.list(CONFIG, state__in="allocated")  # type: ignore[arg-type]
    assert caught.value.field == "state__in"


async def test_integer_in_filters_hold_integers(client: EnterpriseClient) -> None:
    with pytest.raises(ClientValidationError) as caught:
        client.assignments.list(CONFIG, lms_user_id__in=[1, "2"])  # type: ignore[list-item]
    assert caught.value.field == "lms_user_id__in[1]"


async def test_a_page_size_below_one_is_rejected(client: EnterpriseClient) -> None:
    with pytest.raises(ClientValidationError) as caught:
        client.policies.list(CUSTOMER, page_size=0)
    assert caught.value.field == "page_size"


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"client_id": ""}, "client_id"),
        ({"client_secret": None}, "client_secret"),
        ({"base_url": "api.example.org"}, "base_url"),
        ({"response_format": "yaml"}, "response_format"),
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"max_retries": -1}, "max_retries"),
        ({"timeout": 0}, "timeout"),
    ],
)
def test_client_settings_are_validated(settings: dict[str, Any], field: str) -> None:
    arguments: dict[str, Any] = {
        "client_id": "id",
        "client_secret": "secret",
        "base_url": "https://api.example.org",
    }
    arguments.update(settings)
    with pytest.raises(ClientValidationError) as caught:
        EnterpriseClient(**arguments)
    assert caught.value.field == field


async def test_a_price_beyond_64_bits_is_rejected(client: EnterpriseClient) -> None:
    await rejects("content_price_cents", allocate(client, content_price_cents=2**63))


# --------------------------------------------------------------------------- input as the services read it


@pytest.mark.parametrize(
    "lenient",
    [
        "{c3a1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b}",
        "urn:uuid:c3a1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b",
        "c3a1e2f45b6d4e7f8a9b0c1d2e3f4a5b",
        "c3a1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5\uff15",  # a full-width digit
        "c3a1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b\n",
        " c3a1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b",
    ],
)
async def test_only_canonical_uuids_are_sent(client: EnterpriseClient, lenient: str) -> None:
    error = await rejects("policy_uuid", allocate(client, policy_uuid=lenient))
    assert "canonical form" in str(error)


async def test_an_upper_case_uuid_is_sent_as_given(api: ScriptedAPI) -> None:
    api.json(
        "POST",
        f"/enterprise/v1/policy-allocation/{POLICY.upper()}/allocate/",
        {"created": [], "updated": [], "no_change": []},
        202,
    )
    async with api.client() as client:
        await allocate(client, policy_uuid=POLICY.upper())
    assert [request.path for request in api.requests[1:]] == [
        f"/enterprise/v1/policy-allocation/{POLICY.upper()}/allocate/"
    ]


async def test_uuid_objects_are_sent_in_canonical_form(api: ScriptedAPI) -> None:
    api.json(
        "POST",
        f"/enterprise/v1/policy-allocation/{POLICY}/allocate/",
        {"created": [], "updated": [], "no_change": []},
        202,
    )
    api.json("POST", f"/enterprise/v1/assignment-configurations/{CONFIG}/admin/assignments/remind/", {}, 200)
    async with api.client() as client:
        await allocate(client, policy_uuid=uuid.UUID(POLICY.upper()))
        await client.assignments.remind(uuid.UUID(CONFIG), assignment_uuids=[uuid.UUID(POLICY)])  # type: ignore[arg-type, list-item]
    allocated, reminded = api.requests[1:]
    assert allocated.path == f"/enterprise/v1/policy-allocation/{POLICY}/allocate/"
    assert orjson.loads(reminded.body) == {"assignment_uuids": [POLICY]}


@pytest.mark.parametrize(
    "address",
    [
        "x@localhost",
        "ada@acme.example",
        "ada.lovelace+tag@sub.acme.example",
        '"ada\\ lovelace"@acme.example',  # a quoted space must be escaped
        "ada@[192.168.0.1]",
        "ada@[::1]",
        "ada@bücher.example",
        "o'brien@acme.example",
    ],
)
async def test_addresses_django_accepts_are_accepted(api: ScriptedAPI, address: str) -> None:
    api.json(
        "POST",
        f"/enterprise/v1/policy-allocation/{POLICY}/allocate/",
        {"created": [], "updated": [], "no_change": []},
        202,
    )
    async with api.client() as client:
        await allocate(client, learner_emails=[address])
    assert orjson.loads(api.requests[-1].body)["learner_emails"] == [address]


@pytest.mark.parametrize(
    "address",
    [
        "bob",
        "bob@",
        "@acme.example",
        "bob@acme",
        "bob@acme.c",
        "bob@-acme.example",
        "bob@acme.example-",
        "bob..x@acme.example",
        ".bob@acme.example",
        "bob smith@acme.example",
        '"ada lovelace"@acme.example',
        "bob@acme.example\n",
        "bob@[999.1.1.1]",
        "b" * 310 + "@acme.example",
    ],
)
async def test_addresses_django_refuses_are_refused(client: EnterpriseClient, address: str) -> None:
    await rejects("learner_emails[0]", allocate(client, learner_emails=[address]))


async def test_a_typed_revoke_filter_with_only_an_email_fragment_is_sent(api: ScriptedAPI) -> None:
    revoke = f"/enterprise/v1/subscriptions/{PLAN}/licenses/bulk-revoke"
    api.json("POST", revoke, {"successful_revocations": [], "unsuccessful_revocations": []})
    async with api.client() as client:
        await client.subscriptions.bulk_revoke(PLAN, filters=[BulkRevokeFilter(user_email="al")])
    assert orjson.loads(api.calls("POST", revoke)[0].body) == {
        "filters": [{"name": "user_email", "filter_value": "al"}]
    }


async def test_a_typed_revoke_filter_with_nothing_set_is_refused(client: EnterpriseClient) -> None:
    with pytest.raises(TypeError, match="BulkRevokeFilter needs user_email or status_in"):
        client.subscriptions.bulk_revoke(PLAN, filters=[BulkRevokeFilter()])
    emptied = BulkRevokeFilter(status_in=["assigned"])
    emptied.status_in = []  # changed since it was built
    error = await rejects("filters[0]", client.subscriptions.bulk_revoke(PLAN, filters=[emptied]))
    assert "BulkRevokeFilter needs user_email or status_in" in str(error)
