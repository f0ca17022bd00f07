"""Bulk calls that split themselves (``<method>_in_chunks``), against the sandbox: chunks within the
spec's limits, one at a time where the service locks, concurrently where it does not, one merged
result that names a failed chunk, and no chunk ever sent twice."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator

import attrs
import pytest
import yaml

from codegen import validation
from codegen.pipeline import SPEC
from enterprise_async import (
    APIConnectionError,
    BadRequestError,
    ClientValidationError,
    IncompleteBulkError,
    ServerError,
)
from enterprise_async._bulk.chunks import plan_chunks
from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async._spec import Chunking, MaxProductItems
from enterprise_async.testing import DataSize, Fault, Sandbox
from enterprise_async.testing._registry import GENERATED_SPEC
from tests.conftest import Backoffs, InFlight

ASSIGN = "/enterprise/v1/subscriptions/{}/licenses/assign"
REVOKE = "/enterprise/v1/subscriptions/{}/licenses/bulk-revoke"
ENROLL = "/enterprise/v1/bulk-license-enrollment"
ALLOCATE = "/enterprise/v1/policy-allocation/{}/allocate/"


@pytest.fixture
async def roomy() -> AsyncIterator[Sandbox]:
    """A sandbox whose plans hold a few hundred unassigned licenses."""
    async with Sandbox(seed=0, size=DataSize(licenses_per_plan=1000)) as sandbox:
        yield sandbox


def _emails(count: int, prefix: str = "learner") -> list[str]:
    return [f"{prefix}{number}@example.com" for number in range(count)]


def _sent(sandbox: Sandbox, path: str, field: str) -> list[list[str]]:
    """The items of ``field`` in each request that reached ``path``, in order of arrival."""
    return [request.json()[field] for request in sandbox.requests.find("POST", path)]


# ---------------------------------------------------------------------------------- chunk sizes


async def test_assign_licenses_in_chunks_sends_the_specs_chunk_size_and_merges_the_results(
    roomy: Sandbox,
) -> None:
    plan = roomy.data.plans[0].uuid
    emails = _emails(250)
    async with roomy.client() as client:
        result = await client.subscriptions.assign_licenses_in_chunks(
            plan, user_emails=emails, notify_users=False
        )
    size = OPERATIONS["subscriptions.assign_licenses"].chunking.size  # type: ignore[union-attr]
    assert [len(sent) for sent in _sent(roomy, ASSIGN.format(plan), "user_emails")] == [size, size, 50]
    assert result.complete
    assert result.total("num_successful_assignments") == 250
    assert sorted(item.user_email for item in result.collect("license_assignments")) == sorted(emails)
    assert result.items("succeeded") == emails


async def test_user_sfids_are_cut_in_step_with_user_emails(roomy: Sandbox) -> None:
    plan = roomy.data.plans[0].uuid
    emails = _emails(150)
    sfids = [f"{number:018d}" for number in range(150)]
    async with roomy.client() as client:
        await client.subscriptions.assign_licenses_in_chunks(plan, user_emails=emails, user_sfids=sfids)
    for request in roomy.requests.find("POST", ASSIGN.format(plan)):
        body = request.json()
        assert [sfids[emails.index(email)] for email in body["user_emails"]] == body["user_sfids"]


async def test_sfids_that_do_not_pair_with_the_emails_are_refused_before_anything_is_sent(
    roomy: Sandbox,
) -> None:
    plan = roomy.data.plans[0].uuid
    async with roomy.client() as client:
        with pytest.raises(ClientValidationError) as caught:
            await client.subscriptions.assign_licenses_in_chunks(
                plan, user_emails=_emails(150), user_sfids=["001"] * 149
            )
    assert caught.value.field == "user_sfids"
    assert not roomy.requests.find("POST", ASSIGN.format(plan))


async def test_a_bad_item_in_a_later_chunk_is_refused_before_anything_is_sent_by_its_place_in_the_call(
    roomy: Sandbox,
) -> None:
    plan = roomy.data.plans[0].uuid
    emails = _emails(250)
    emails[234] = "not an e-mail"
    async with roomy.client() as client:
        with pytest.raises(ClientValidationError) as caught:
            await client.subscriptions.assign_licenses_in_chunks(plan, user_emails=emails)
    assert caught.value.field == "user_emails[234]"
    assert not roomy.requests.find("POST", ASSIGN.format(plan))


async def test_any_iterable_of_items_is_accepted(roomy: Sandbox) -> None:
    plan = roomy.data.plans[0].uuid
    async with roomy.client() as client:
        result = await client.subscriptions.assign_licenses_in_chunks(
            plan, user_emails=(email for email in _emails(120))
        )
    assert len(result.chunks) == 2
    assert result.total("num_successful_assignments") == 120


async def test_bulk_enroll_in_chunks_keeps_learners_times_course_keys_within_the_limit(
    enterprise_sandbox: Sandbox,
) -> None:
    customer = enterprise_sandbox.data.customers[0].uuid
    emails = _emails(30)
    keys = [f"course-v1:Org+C{number}+Run" for number in range(1500)]
    async with enterprise_sandbox.client() as client:
        result = await client.enrollments.bulk_enroll_in_chunks(
            customer, emails=emails, course_run_keys=keys, notify=False
        )
    limit = OPERATIONS["enrollments.bulk_enroll"].chunking.size  # type: ignore[union-attr]
    bodies = [request.json() for request in enterprise_sandbox.requests.find("POST", ENROLL)]
    assert all(len(body["emails"]) * len(body["course_run_keys"]) <= limit for body in bodies)
    pairs = Counter(
        (email, key) for body in bodies for email in body["emails"] for key in body["course_run_keys"]
    )
    assert set(pairs) == {(email, key) for email in emails for key in keys}
    assert set(pairs.values()) == {1}
    assert len(result.results) == len(bodies) == len(enterprise_sandbox.data.enrollment_jobs)


async def test_bulk_revoke_in_chunks_merges_the_partial_results_of_every_chunk(roomy: Sandbox) -> None:
    plan = roomy.data.plans[1]  # no revocation cap
    held = [
        item.user_email for item in roomy.data.licenses(plan.uuid) if item.status in ("assigned", "activated")
    ]
    emails = [*held[:150], *_emails(10, prefix="stranger")]
    async with roomy.client() as client:
        result = await client.subscriptions.bulk_revoke_in_chunks(plan.uuid, user_emails=emails)
    assert [len(sent) for sent in _sent(roomy, REVOKE.format(plan.uuid), "user_emails")] == [100, 60]
    assert {item.user_email for item in result.collect("successful_revocations")} == set(held[:150])
    assert {item.user_email for item in result.collect("unsuccessful_revocations")} == set(emails[150:])
    assert [outcome.result.partial for outcome in result.succeeded if outcome.result] == [False, True]


async def test_a_bulk_revoke_by_filters_is_one_request(enterprise_sandbox: Sandbox) -> None:
    plan = enterprise_sandbox.data.plans[1].uuid
    async with enterprise_sandbox.client() as client:
        result = await client.subscriptions.bulk_revoke_in_chunks(plan, filters=[{"status_in": ["assigned"]}])
    assert len(enterprise_sandbox.requests.find("POST", REVOKE.format(plan))) == 1
    assert len(result.chunks) == 1
    assert result.collect("successful_revocations")


async def test_allocate_in_chunks_merges_the_assignments_created(enterprise_sandbox: Sandbox) -> None:
    policy = next(p for p in enterprise_sandbox.data.policies if p.assignment_configuration_uuid)
    key, price = _cheapest_course(enterprise_sandbox, policy.catalog_uuid)
    emails = _emails(230)
    async with enterprise_sandbox.client() as client:
        result = await client.policies.allocate_in_chunks(
            policy.uuid, learner_emails=emails, content_key=key, content_price_cents=price
        )
    assert [
        len(sent) for sent in _sent(enterprise_sandbox, ALLOCATE.format(policy.uuid), "learner_emails")
    ] == [
        100,
        100,
        30,
    ]
    assert result.total("created") == 230
    assert sorted(item.learner_email for item in result.collect("created")) == sorted(emails)


def _cheapest_course(sandbox: Sandbox, catalog_uuid: str) -> tuple[str, int]:
    """A course of the policy's catalog and its price (the services allocate only content the
    policy's catalog holds, at its price), the cheapest among the first items so that 230
    learners stay within the policy's funds."""
    catalog = sandbox.data.catalog(catalog_uuid)
    assert catalog is not None
    content = sandbox.data.content
    priced = [
        (price, item["key"])
        for index in range(10)
        if content.kind(index) == "course"
        for item in [content.item(catalog, index)]
        if (price := content.price_cents(catalog, item["key"])) is not None
    ]
    price, key = min(priced)
    return key, price


# ---------------------------------------------------------------------------------- concurrency


async def test_chunks_of_a_locked_plan_go_one_at_a_time(roomy: Sandbox) -> None:
    plan = roomy.data.plans[0].uuid
    roomy.faults.inject(ASSIGN.format(plan), Fault.latency(0.02), times=None)
    counter = InFlight()
    async with roomy.client(max_concurrency=8, middleware=[counter]) as client:
        result = await client.subscriptions.assign_licenses_in_chunks(plan, user_emails=_emails(300))
    assert len(result.chunks) == 3
    assert counter.most == 1


async def test_chunks_of_an_unlocked_service_go_concurrently_within_max_concurrency(
    enterprise_sandbox: Sandbox,
) -> None:
    customer = enterprise_sandbox.data.customers[0].uuid
    enterprise_sandbox.faults.inject(ENROLL, Fault.latency(0.05), times=None)
    counter = InFlight()
    async with enterprise_sandbox.client(max_concurrency=3, middleware=[counter]) as client:
        result = await client.enrollments.bulk_enroll_in_chunks(
            customer, emails=_emails(5000), course_run_keys=["course-v1:Org+C1+Run"], notify=False
        )
    assert len(result.chunks) == 10  # 500 a chunk: license-manager's BULK_ENROLL_REQUEST_LIMIT
    assert counter.most == 3


async def test_chunks_the_service_throttles_are_retried_and_each_learner_is_accepted_once() -> None:
    async with Sandbox(seed=0, rate_limit="4/second") as sandbox:
        customer = sandbox.data.customers[0].uuid
        emails = _emails(8000)
        async with sandbox.client(max_concurrency=8, max_retries=6) as client:
            result = await client.enrollments.bulk_enroll_in_chunks(
                customer, emails=emails, course_run_keys=["course-v1:Org+C1+Run"], notify=False
            )
        throttled = sandbox.throttle.throttled if sandbox.throttle else 0
        accepted = [
            request.json()["emails"]
            for request in sandbox.requests.find("POST", ENROLL)
            if request.status == 201
        ]
    assert throttled > 0
    assert result.complete
    assert sorted(email for batch in accepted for email in batch) == sorted(emails)


# ---------------------------------------------------------------------------------- failures


async def test_a_fault_on_one_chunk_is_named_by_the_merged_result_and_nothing_is_sent_twice(
    roomy: Sandbox,
) -> None:
    plan = roomy.data.plans[0].uuid
    emails = _emails(350)
    roomy.faults.inject(ASSIGN.format(plan), Fault.server_error(503), skip=1)
    async with roomy.client(max_retries=3) as client:
        with pytest.raises(IncompleteBulkError) as caught:
            await client.subscriptions.assign_licenses_in_chunks(plan, user_emails=emails)
    error = caught.value
    result = error.result
    assert error.chunk == 2
    assert "chunk 2 of 4" in str(error)
    assert isinstance(error.__cause__, ServerError)
    assert [outcome.state for outcome in result.chunks] == ["succeeded", "failed", "not_sent", "not_sent"]
    assert isinstance(result.failed[0].error, ServerError)
    assert (result.items("succeeded"), result.items("failed"), result.items("not_sent")) == (
        emails[:100],
        emails[100:200],
        emails[200:],
    )
    assert _sent(roomy, ASSIGN.format(plan), "user_emails") == [emails[:100], emails[100:200]]


async def test_a_failed_chunk_among_concurrent_ones_is_named_and_each_learner_is_sent_once(
    enterprise_sandbox: Sandbox,
) -> None:
    customer = enterprise_sandbox.data.customers[0].uuid
    emails = _emails(8000)
    enterprise_sandbox.faults.inject(ENROLL, Fault.server_error(500), skip=2)
    async with enterprise_sandbox.client(max_concurrency=2) as client:
        with pytest.raises(IncompleteBulkError) as caught:
            await client.enrollments.bulk_enroll_in_chunks(
                customer, emails=emails, course_run_keys=["course-v1:Org+C1+Run"], notify=False
            )
    result = caught.value.result
    (failed,) = result.failed
    assert caught.value.chunk == failed.number
    assert result.not_sent
    sent = [email for batch in _sent(enterprise_sandbox, ENROLL, "emails") for email in batch]
    assert Counter(sent).most_common(1)[0][1] == 1
    assert sorted(sent) == sorted(result.items("succeeded") + result.items("failed"))
    everything = result.items("succeeded") + result.items("failed") + result.items("not_sent")
    assert sorted(everything) == sorted(emails)


async def test_a_chunk_dropped_after_sending_is_not_sent_again(roomy: Sandbox) -> None:
    plan = roomy.data.plans[0].uuid
    emails = _emails(200)
    roomy.faults.inject(ASSIGN.format(plan), Fault.drop(), skip=1)
    async with roomy.client(max_retries=3) as client:
        with pytest.raises(IncompleteBulkError) as caught:
            await client.subscriptions.assign_licenses_in_chunks(plan, user_emails=emails)
    assert isinstance(caught.value.result.failed[0].error, APIConnectionError)
    assert _sent(roomy, ASSIGN.format(plan), "user_emails") == [emails[:100], emails[100:]]


async def test_a_chunk_that_finds_the_plan_locked_is_retried_as_any_call(
    roomy: Sandbox, no_sleep: Backoffs
) -> None:
    plan = roomy.data.plans[0].uuid
    roomy.data.lock_plan(plan, attempts=1)
    async with roomy.client(retry=no_sleep.policy, max_retries=2) as client:
        result = await client.subscriptions.assign_licenses_in_chunks(plan, user_emails=_emails(150))
    statuses = [request.status for request in roomy.requests.find("POST", ASSIGN.format(plan))]
    assert statuses == [423, 200, 200]  # the 423 did nothing: the service's lock answered it
    assert result.total("num_successful_assignments") == 150


async def test_a_refused_chunk_keeps_the_services_error(roomy: Sandbox) -> None:
    plan = roomy.data.plans[0]
    unassigned = sum(1 for item in roomy.data.licenses(plan.uuid) if item.status == "unassigned")
    async with roomy.client() as client:
        with pytest.raises(IncompleteBulkError) as caught:
            await client.subscriptions.assign_licenses_in_chunks(
                plan.uuid, user_emails=_emails(unassigned + 1)
            )
    failed = caught.value.result.failed[0]
    assert isinstance(failed.error, BadRequestError)
    assert "not enough licenses" in str(failed.error)
    assert caught.value.result.total("num_successful_assignments") == (failed.number - 1) * 100


# ---------------------------------------------------------------------------------- the sandbox's limit


async def test_the_sandbox_refuses_more_enrollments_than_the_spec_allows() -> None:
    operation = OPERATIONS["enrollments.bulk_enroll"]
    assert operation.body is not None
    tight = attrs.evolve(
        operation,
        body=attrs.evolve(operation.body, checks=(MaxProductItems(("emails", "course_run_keys"), 10),)),
    )
    spec = attrs.evolve(GENERATED_SPEC, operations={**GENERATED_SPEC.operations, operation.name: tight})
    async with Sandbox(seed=0, spec=spec) as sandbox:
        customer = sandbox.data.customers[0].uuid
        async with sandbox.client() as client:
            body = {"emails": _emails(11), "course_run_keys": ["course-v1:Org+C1+Run"], "notify": False}
            with pytest.raises(BadRequestError, match="Too many provided enrollments"):
                await client.request("POST", ENROLL, params={"enterprise_customer_uuid": customer}, json=body)
            body["emails"] = _emails(10)
            job = await client.request(
                "POST", ENROLL, params={"enterprise_customer_uuid": customer}, json=body
            )
    assert job["job_id"]


# ---------------------------------------------------------------------------------- planning


def test_course_keys_past_the_limit_are_cut_too() -> None:
    chunking = Chunking("emails", 1000, across="course_run_keys", concurrent=True)
    chunks = plan_chunks(chunking, {"emails": _emails(3), "course_run_keys": [str(n) for n in range(2500)]})
    shapes = [(len(chunk.items["emails"]), len(chunk.items["course_run_keys"])) for chunk in chunks]
    assert shapes == [(1, 1000)] * 3 + [(1, 1000)] * 3 + [(2, 500), (1, 500)]
    assert [chunk.number for chunk in chunks] == list(range(1, 9))


def test_an_operation_without_chunking_is_refused() -> None:
    from enterprise_async._bulk.chunks import send_in_chunks

    async def never(*_: object) -> None:
        raise AssertionError("nothing may be sent")

    with pytest.raises(TypeError, match="no x-sdk-chunks"):
        asyncio.run(send_in_chunks(never, OPERATIONS["assignments.remind"], {}, conversion=CONVERSION))


# ---------------------------------------------------------------------------------- the spec's rule


def _spec_with_chunks(operation_path: str, chunks: object) -> dict[str, object]:
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    document["paths"][operation_path]["post"]["x-sdk-chunks"] = chunks
    return document


def _chunk_problems(document: dict[str, object]) -> list[str]:
    return [problem.message for problem in validation.problems(document) if "x-sdk-chunks" in problem.pointer]


def test_the_generator_refuses_chunks_of_a_field_that_is_not_a_body_array() -> None:
    document = _spec_with_chunks(ASSIGN.format("{subscription_plan_uuid}"), {"field": "greeting", "size": 10})
    assert _chunk_problems(document) == [
        "x-sdk-chunks names 'greeting', which is not an array property of the JSON body"
    ]


def test_the_generator_refuses_chunks_without_a_size() -> None:
    document = _spec_with_chunks(ASSIGN.format("{subscription_plan_uuid}"), {"field": "user_emails"})
    [message] = _chunk_problems(document)
    assert "needs a positive integer `size`" in message


def test_the_generator_refuses_chunks_larger_than_the_product_limit() -> None:
    chunks = {"field": "emails", "across": "course_run_keys", "size": 5000}
    [message] = _chunk_problems(_spec_with_chunks(ENROLL, chunks))
    assert message == "5000 exceeds the body's x-sdk-max-product-items maximum 1000"
