"""A bulk enrollment followed to its results, end to end against the sandbox: the job's status
(``enrollments.job_status``), then ``enrollments.results`` polling it for a link and reading the
CSV behind it from the storage host, with no token; expired links, a service with no results
storage, and the service's own limit on one request."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator

import pytest
import yaml

from codegen.pipeline import SPEC
from enterprise_async import (
    BadRequestError,
    ClientValidationError,
    EnterpriseError,
    JobResultsUnavailableError,
    RequestLimitError,
)
from enterprise_async._client.job_results import read_rows
from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async.models import BulkEnrollmentJobStatus, BulkEnrollmentResult
from enterprise_async.testing import Sandbox

ENROLL = "/enterprise/v1/bulk-license-enrollment"
KEYS = ["course-v1:Org+C1+Run", "course-v1:Org+C2+Run"]
FAST = {"timeout": 10.0, "poll_interval": 0.02}


@pytest.fixture
async def jobs() -> AsyncIterator[Sandbox]:
    """A sandbox whose jobs are pending a moment before their results exist."""
    async with Sandbox(seed=0, results_delay=0.1) as sandbox:
        yield sandbox


def _learners(sandbox: Sandbox) -> tuple[str, str, str]:
    """An e-mail with an activated license of the customer, one with an assigned license, one without."""
    customer = sandbox.data.customers[0].uuid
    licenses = [
        license
        for plan in sandbox.data.plans
        if plan.customer_uuid == customer
        for license in sandbox.data.licenses(plan.uuid)
        if license.user_email
    ]
    activated = next(item.user_email for item in licenses if item.status == "activated")
    assigned = next(item.user_email for item in licenses if item.status == "assigned")
    assert activated
    assert assigned
    return activated, assigned, "nobody@example.com"


async def _enroll(sandbox: Sandbox, emails: list[str]) -> str:
    async with sandbox.client() as client:
        job = await client.enrollments.bulk_enroll(
            sandbox.data.customers[0].uuid, emails=emails, course_run_keys=KEYS, notify=False
        )
    return str(job.job_id)


# ---------------------------------------------------------------------------------- the status


async def test_job_status_has_no_link_while_the_job_is_pending() -> None:
    async with Sandbox(seed=0, results_delay=3600) as sandbox:
        job = await _enroll(sandbox, ["a@example.com"])
        async with sandbox.client() as client:
            status = await client.enrollments.job_status(sandbox.data.customers[0].uuid, job)
    assert isinstance(status, BulkEnrollmentJobStatus)
    assert status.job_id == job
    assert status.download_url is None


async def test_job_status_sends_the_job_as_the_services_query_parameter(jobs: Sandbox) -> None:
    job = await _enroll(jobs, ["a@example.com"])
    customer = jobs.data.customers[0].uuid
    async with jobs.client() as client:
        await client.enrollments.job_status(customer, job_id=job)
    (request,) = jobs.requests.find("GET", ENROLL)
    assert dict(request.query) == {"enterprise_customer_uuid": customer, "bulk_enrollment_job_uuid": job}


async def test_job_status_refuses_a_job_id_that_is_not_a_uuid_before_sending(jobs: Sandbox) -> None:
    async with jobs.client() as client:
        with pytest.raises(ClientValidationError, match="job_id"):
            await client.enrollments.job_status(jobs.data.customers[0].uuid, "job-1")
    assert not jobs.requests.find("GET", ENROLL)


# ---------------------------------------------------------------------------------- the results


async def test_results_wait_for_the_link_and_return_typed_rows_in_the_files_order(jobs: Sandbox) -> None:
    activated, assigned, unknown = _learners(jobs)
    job = await _enroll(jobs, [activated, assigned, unknown])
    async with jobs.client() as client:
        rows = await client.enrollments.results(jobs.data.customers[0].uuid, job, **FAST)
    assert all(isinstance(row, BulkEnrollmentResult) for row in rows)
    assert [(row.email, row.course_run_key) for row in rows] == [
        (email, key) for key in KEYS for email in (activated, assigned, unknown)
    ]
    outcome = {row.email: (row.status, row.notes) for row in rows}
    assert outcome == {
        activated: ("success", ""),
        assigned: ("pending", "pending license activation"),
        unknown: ("failed", "missing subscription"),
    }


async def test_results_poll_the_status_until_the_job_has_written_its_file() -> None:
    ticks = itertools.count()
    async with Sandbox(seed=0, results_delay=3) as sandbox:
        sandbox.jobs.clock = lambda: float(next(ticks))  # one tick a status request: pending for two
        job = await _enroll(sandbox, ["a@example.com"])
        async with sandbox.client() as client:
            rows = await client.enrollments.results(sandbox.data.customers[0].uuid, job, **FAST)
    assert [row.course_run_key for row in rows] == KEYS
    assert len(sandbox.requests.find("GET", ENROLL)) == 3


async def test_the_token_never_goes_to_the_storage_host(jobs: Sandbox) -> None:
    job = await _enroll(jobs, ["a@example.com"])
    async with jobs.client() as client:
        await client.enrollments.results(jobs.data.customers[0].uuid, job, **FAST)
    assert jobs.storage is not None
    assert [(request.status, request.authorization) for request in jobs.storage.requests] == [(200, False)]


async def test_an_expired_link_is_asked_for_again_through_the_status(jobs: Sandbox) -> None:
    job = await _enroll(jobs, ["a@example.com"])
    storage = jobs.storage
    assert storage is not None
    storage.read_late(1)  # the first link has expired by the time it is read
    async with jobs.client() as client:
        rows = await client.enrollments.results(jobs.data.customers[0].uuid, job, **FAST)
    assert len(rows) == len(KEYS)
    assert [request.status for request in storage.requests] == [403, 200]
    assert len(jobs.requests.find("GET", ENROLL)) >= 2


LINKS_DEADLINE = 1.0
"""Seconds ``results()`` follows links that keep expiring: at least two are asked for unless the
first status request and the read of its link take this long (a few milliseconds on loopback;
this is room for a loaded machine's stalls)."""


async def test_links_that_keep_expiring_end_in_a_typed_error_at_the_deadline() -> None:
    async with Sandbox(seed=0, results_delay=0, link_lifetime=0.001) as sandbox:
        storage = sandbox.storage
        assert storage is not None
        storage.lifetime = -1  # every link is born expired
        job = await _enroll(sandbox, ["a@example.com"])
        async with sandbox.client() as client:
            await client.catalogs.list().first_page()  # the token, outside the deadline
            # the deadline, LINKS_DEADLINE, is past long after the first link (one status request
            # and one read, milliseconds) expired and the next was asked for at once
            with pytest.raises(JobResultsUnavailableError, match="expired") as caught:
                await client.enrollments.results(
                    sandbox.data.customers[0].uuid, job, timeout=LINKS_DEADLINE, poll_interval=0.02
                )
    assert caught.value.links >= 2
    assert caught.value.job == job


async def test_a_job_with_no_link_at_the_deadline_says_the_service_may_have_no_results_storage() -> None:
    async with Sandbox(seed=0, results_delay=0, results_storage=False) as sandbox:
        job = await _enroll(sandbox, ["a@example.com"])
        async with sandbox.client() as client:
            with pytest.raises(JobResultsUnavailableError) as caught:
                await client.enrollments.results(
                    sandbox.data.customers[0].uuid, job, timeout=0.1, poll_interval=0.02
                )
    assert isinstance(caught.value, EnterpriseError)
    assert "no results storage configured" in str(caught.value)
    assert caught.value.links == 0


async def test_results_refuse_a_wait_that_is_not_positive_before_sending(jobs: Sandbox) -> None:
    async with jobs.client() as client:
        with pytest.raises(ClientValidationError, match="poll_interval"):
            await client.enrollments.results(
                jobs.data.customers[0].uuid, "49c1edb9-d0c6-41c5-a263-136c85a59aff", poll_interval=0
            )
    assert not jobs.requests.find("GET", ENROLL)


def test_the_results_columns_are_the_spec_data_of_the_services_csv_header() -> None:
    results = OPERATIONS["enrollments.job_status"].job_results
    assert results is not None
    assert [header for header, _ in results.columns] == [
        "email address",
        "course key",
        "enrollment status",
        "notes",
    ]
    assert results.link_lifetime == 300
    text = "email address,course key,enrollment status,notes,extra\r\na@x.org,course-v1:A+B+C,weird,n,1\r\n"
    (row,) = read_rows(results, text, CONVERSION)
    assert (row.email, row.status, row.extra) == ("a@x.org", "weird", {"extra": "1"})


# ---------------------------------------------------------------------------------- the service's limit


def test_chunks_and_the_limit_refusal_are_the_services_default_limit_in_the_spec() -> None:
    post = yaml.safe_load(SPEC.read_text(encoding="utf-8"))["paths"][ENROLL]["post"]
    operation = OPERATIONS["enrollments.bulk_enroll"]
    service_limit = post["x-sdk-service"]["max-product-items"]
    assert service_limit == 500
    assert operation.chunking is not None
    assert operation.chunking.size == service_limit
    assert [refusal.maximum for refusal in operation.limit_refusals] == [service_limit]


async def test_the_services_400_over_its_own_limit_is_a_typed_error_naming_the_limit(
    enterprise_sandbox: Sandbox,
) -> None:
    emails = [f"learner{number}@example.com" for number in range(251)]
    async with enterprise_sandbox.client() as client:
        with pytest.raises(RequestLimitError) as caught:
            await client.enrollments.bulk_enroll(
                enterprise_sandbox.data.customers[0].uuid, emails=emails, course_run_keys=KEYS, notify=False
            )
    assert isinstance(caught.value, BadRequestError)
    assert caught.value.limit == 500
    assert caught.value.setting == "BULK_ENROLL_REQUEST_LIMIT"
    assert "at most 500" in str(caught.value)


async def test_one_bulk_enroll_still_refuses_more_than_the_references_1000_before_sending(
    enterprise_sandbox: Sandbox,
) -> None:
    emails = [f"learner{number}@example.com" for number in range(501)]
    async with enterprise_sandbox.client() as client:
        with pytest.raises(ClientValidationError, match="1002 exceeds the limit of 1000"):
            await client.enrollments.bulk_enroll(
                enterprise_sandbox.data.customers[0].uuid, emails=emails, course_run_keys=KEYS, notify=False
            )
    assert not enterprise_sandbox.requests.find("POST", ENROLL)
