"""The sandbox at production's sizes (issue 41): `DataSize` accepts 1,000 plans and 100 policies a
customer, 5,000 assignments a configuration, 100,000 catalog items and learner rows; every
default page size and page cap shows at those sizes; what grows with the size is made when it is
read, the same for the same seed, so a sandbox starts as small at any size."""

from __future__ import annotations

import datetime
import tracemalloc

import aiohttp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enterprise_async.testing import DataSize, Sandbox
from enterprise_async.testing._state import SandboxData
from enterprise_async.testing._summary_data import SummaryRows

from .conftest import RawAPI

ANCHOR = datetime.datetime(2026, 3, 1, tzinfo=datetime.timezone.utc)
LARGEST = DataSize(
    plans_per_customer=1000,
    policies_per_customer=100,
    assignments_per_configuration=5000,
    catalog_items=100_000,
    summary_rows_per_customer=100_000,
)
POLICIES = "/enterprise/v1/subsidy-access-policies/"


def _held_bytes(size: DataSize) -> int:
    tracemalloc.start()
    try:
        data = SandboxData(0, size, ANCHOR)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert data.size == size
    return held


def test_a_sandbox_of_the_largest_sizes_holds_no_more_than_the_default_at_start() -> None:
    assert _held_bytes(LARGEST) < _held_bytes(DataSize()) + 500_000


def test_what_grows_with_the_size_is_made_when_read_and_the_same_for_the_same_seed() -> None:
    first, second = SandboxData(0, LARGEST, ANCHOR), SandboxData(0, LARGEST, ANCHOR)
    customer = first.customers[0].uuid
    assert len(first.plans) == len(first.customers) * 1000
    assert len(first.policies_of(customer)) == 100
    assert first.plans == second.plans
    assert first.policies == second.policies
    configuration = first.assignment_configurations[0]
    made = first.assignments(configuration)
    assert len(made) == 5000
    pairs = [(record.learner_email, record.content_key) for record in made if record.learner_email]
    assert len(set(pairs)) == len(pairs)  # one assignment a learner and content
    assert [record.uuid for record in made] == [record.uuid for record in second.assignments(configuration)]
    plan = first.plans[-1].uuid
    assert [license.uuid for license in first.licenses(plan)] == [
        license.uuid for license in second.licenses(plan)
    ]
    assert first.item(first.catalogs[0], 99_999) == second.item(second.catalogs[0], 99_999)


@pytest.fixture
async def large(session: aiohttp.ClientSession) -> RawAPI:
    size = DataSize(plans_per_customer=105, policies_per_customer=12, assignments_per_configuration=1200)
    async with Sandbox(seed=0, size=size) as sandbox:
        yield RawAPI(sandbox, session)


async def test_a_105_plan_customer_pages_by_100(large: RawAPI) -> None:
    """license-manager settings/base.py (REST_FRAMEWORK PAGE_SIZE 100)."""
    customer = large.sandbox.data.customers[0].uuid
    first = await large.get("/enterprise/v1/subscriptions", params={"enterprise_customer_uuid": customer})
    second = await large.get(
        "/enterprise/v1/subscriptions", params={"enterprise_customer_uuid": customer, "page": "2"}
    )
    assert (first.data["count"], len(first.data["results"]), len(second.data["results"])) == (105, 100, 5)
    assert first.data["next"]
    assert second.data["next"] is None
    uuids = {plan["uuid"] for plan in first.data["results"] + second.data["results"]}
    assert len(uuids) == 105


async def test_a_12_policy_customer_is_capped_at_10_a_page_asked_for(large: RawAPI) -> None:
    """enterprise-access views/subsidy_access_policy.py, SubsidyAccessPolicyPagination
    (max_page_size = 10; the default page of 100 is not capped)."""
    customer = large.sandbox.data.customers[0].uuid
    asked = await large.get(POLICIES, params={"enterprise_customer_uuid": customer, "page_size": "50"})
    default = await large.get(POLICIES, params={"enterprise_customer_uuid": customer})
    assert (asked.data["count"], len(asked.data["results"]), asked.data["num_pages"]) == (12, 10, 2)
    assert (len(default.data["results"]), default.data["num_pages"]) == (12, 1)
    names = [policy["display_name"] for policy in default.data["results"]]
    assert len(set(names)) == 12


async def test_assignments_page_by_100_and_at_most_500_at_1200(large: RawAPI) -> None:
    """enterprise-access views/utils.py, PaginationWithPageCount (100, max_page_size 500)."""
    configuration = large.sandbox.data.assignment_configurations[0]
    path = f"/enterprise/v1/assignment-configurations/{configuration}/admin/assignments/"
    default = await large.get(path)
    largest = await large.get(path, params={"page_size": "1000"})
    assert (default.data["count"], len(default.data["results"]), default.data["num_pages"]) == (1200, 100, 12)
    assert (len(largest.data["results"]), largest.data["num_pages"]) == (500, 3)


async def test_a_catalog_of_100000_items_and_a_report_of_100000_rows_page_as_the_services(
    session: aiohttp.ClientSession,
) -> None:
    """enterprise-catalog get_content_metadata (DefaultPagination: 10, at most 100) and
    edx-enterprise-data's learner report (10 a page)."""
    size = DataSize(catalog_items=100_000, summary_rows_per_customer=100_000)
    async with Sandbox(seed=0, size=size) as sandbox:
        api = RawAPI(sandbox, session)
        customer = sandbox.data.customers[0].uuid
        catalog = next(catalog.uuid for catalog in sandbox.data.catalogs if catalog.customer_uuid == customer)
        contents = await api.get(
            f"/enterprise/v2/enterprise-catalogs/{catalog}", headers={"Accept": "application/json"}
        )
        widest = await api.get(
            f"/enterprise/v2/enterprise-catalogs/{catalog}",
            params={"page_size": "100", "page": "1000"},
            headers={"Accept": "application/json"},
        )
        report = await api.get(f"/enterprise/v3/enterprise-customer/{customer}/learner-summary")
    assert (contents.data["count"], len(contents.data["results"]), contents.data["num_pages"]) == (
        100_000,
        10,
        10_000,
    )
    assert (len(widest.data["results"]), widest.data["next"]) == (100, None)
    assert (report.data["count"], len(report.data["results"]), report.data["num_pages"]) == (
        100_000,
        10,
        10_000,
    )


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(0, 250), learners=st.integers(1, 30), descending=st.booleans())
def test_learner_rows_in_the_default_order_are_every_row_sorted_by_its_last_activity(
    rows: int, learners: int, descending: bool
) -> None:
    """DRF's OrderingFilter over the rows (equal dates in row order), without making them."""
    data = SandboxData(0, DataSize(summary_rows_per_customer=rows, learners_per_customer=learners), ANCHOR)
    report = data.summaries(data.customers[0].uuid)
    assert isinstance(report, SummaryRows)
    dates = [row["last_activity_date"] for row in report]
    expected = sorted(range(len(dates)), key=dates.__getitem__, reverse=descending)
    assert list(report.ordered("last_activity_date", descending=descending)) == expected
    assert all(row["enrollment_date"] < row["last_activity_date"] for row in report)


async def test_a_learner_page_of_a_100000_row_report_makes_its_own_rows_alone(
    session: aiohttp.ClientSession,
) -> None:
    async with Sandbox(seed=0, size=DataSize(summary_rows_per_customer=100_000)) as sandbox:
        api = RawAPI(sandbox, session)
        customer = sandbox.data.customers[0].uuid
        path = f"/enterprise/v3/enterprise-customer/{customer}/learner-summary"
        report = sandbox.data.summaries(customer)
        assert isinstance(report, SummaryRows)
        first = await api.get(path)
        made = report.made
        last = await api.get(path, params={"ordering": "-last_activity_date", "page": "10000"})
    assert (first.data["count"], len(first.data["results"]), made) == (100_000, 10, 11)  # and row 0's fields
    oldest = {row["last_activity_date"] for row in first.data["results"] + last.data["results"]}
    assert len(oldest) == 1  # the first page oldest first, the last page newest first: the oldest day
    assert len(last.data["results"]) == 10
