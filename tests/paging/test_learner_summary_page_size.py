"""``learner_summary.list`` pages at the size asked for, up to the service's maximum (1000: the
spec's data, from edx-enterprise-data's EnterpriseEnrollmentsPagination)."""

from __future__ import annotations

import pytest

from enterprise_async import ClientValidationError
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async.testing import Sandbox

SUMMARY = "/enterprise/v3/enterprise-customer/{}/learner-summary"


def test_the_learner_summarys_largest_page_is_the_services_maximum_in_the_spec() -> None:
    pagination = OPERATIONS["learner_summary.list"].pagination
    assert pagination is not None
    assert (pagination.size_param, pagination.default_size, pagination.max_size) == ("page_size", 10, 1000)
    assert pagination.bulk_size == 1000


async def test_learner_summary_takes_a_page_size(enterprise_sandbox: Sandbox) -> None:
    customer = enterprise_sandbox.data.customers[0].uuid
    async with enterprise_sandbox.client() as client:
        page = await client.learner_summary.list(customer, page_size=1000).first_page()
    (request,) = enterprise_sandbox.requests.find("GET", SUMMARY.format(customer))
    assert ("page_size", "1000") in request.query
    assert len(page.results) == len(enterprise_sandbox.data.summaries(customer))


async def test_a_page_size_over_the_services_maximum_is_refused_before_sending(
    enterprise_sandbox: Sandbox,
) -> None:
    customer = enterprise_sandbox.data.customers[0].uuid
    async with enterprise_sandbox.client() as client:
        with pytest.raises(ClientValidationError, match="page_size"):
            client.learner_summary.list(customer, page_size=1001)
    assert not enterprise_sandbox.requests.find("GET", SUMMARY.format(customer))
