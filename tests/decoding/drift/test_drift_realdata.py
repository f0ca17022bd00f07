"""The drift report over the services' real payloads (``../shared/realdata``), served by the sandbox.

Every record that a listing answers (an item, or a whole page) is served, through
``sandbox.canned``, as the answer of its listing, and fetched through the client in JSON and in XML.
The report then names, as unknown fields, exactly the fields the records carry that the spec does
not describe. The records of the POST operations (allocation, assignment, revocation, enrollment
results) are left out: answering them needs a call with a valid body each, and none of their fields
is missing from the spec (``tests/decoding/test_realdata.py`` checks that on the models).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from enterprise_async import EnterpriseClient
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async.testing import Sandbox
from tests.decoding.test_realdata import REALDATA, UNDOCUMENTED, is_document

pytestmark = pytest.mark.skipif(
    not sorted(REALDATA.glob("*.json")),
    reason=f"the services' real payloads are not present at {REALDATA} (../shared/realdata/*.json)",
)

LISTING_OF_MODEL = {
    "SubsidyAccessPolicy": "policies.list",
    "PolicyPage": "policies.list",
    "Assignment": "assignments.list",
    "AssignmentPage": "assignments.list",
    "SubscriptionPlan": "subscriptions.list",
    "SubscriptionPlanPage": "subscriptions.list",
    "LearnerSummary": "learner_summary.list",
    "LearnerSummaryPage": "learner_summary.list",
    "Catalog": "catalogs.list",
    "ContentItem": "catalogs.contents",
    "Course": "catalogs.contents",
    "CourseRun": "catalogs.contents",
    "Program": "catalogs.contents",
}
"""The listing whose answer holds each model: an item in its page, or the page itself."""


def served_records() -> dict[str, list[Any]]:
    """The records by the listing that serves them, read where they are (never copied)."""
    by_listing: dict[str, list[Any]] = {}
    for path in sorted(REALDATA.glob("*.json")):
        for record in json.loads(path.read_text(encoding="utf-8")):
            listing = LISTING_OF_MODEL.get(record["model"])
            if listing is not None and not is_document(record):
                by_listing.setdefault(listing, []).append(record)
    return by_listing


def answers(listing: str, records: list[Any]) -> list[Any]:
    """The bodies to serve: each page record as it is (a last page: no link to follow off
    loopback), and the item records together in one page of the listing's envelope."""
    pagination = OPERATIONS[listing].pagination
    assert pagination is not None
    pages = [{**record["payload"], "next": None} for record in records if record["model"].endswith("Page")]
    items = [record["payload"] for record in records if not record["model"].endswith("Page")]
    if items:
        pages.append({"count": len(items), "next": None, "previous": None, pagination.items: items})
    return pages


def listing_calls(client: EnterpriseClient, sandbox: Sandbox) -> dict[str, Callable[[], Awaitable[Any]]]:
    customer = sandbox.data.customers[0].uuid
    configuration = next(
        p.assignment_configuration_uuid for p in sandbox.data.policies if p.assignment_configuration_uuid
    )
    catalog = sandbox.data.catalogs[0].uuid
    return {
        "policies.list": lambda: client.policies.list(customer).to_list(),
        "assignments.list": lambda: client.assignments.list(configuration).to_list(),
        "subscriptions.list": lambda: client.subscriptions.list(enterprise_customer_uuid=customer).to_list(),
        "learner_summary.list": lambda: client.learner_summary.list(customer).to_list(),
        "catalogs.list": lambda: client.catalogs.list().to_list(),
        "catalogs.contents": lambda: client.catalogs.contents(catalog).to_list(),
    }


@pytest.mark.parametrize("response_format", ["json", "xml"])
async def test_the_report_names_the_fields_the_spec_lacks(response_format: str) -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client(response_format=response_format) as client:
        calls = listing_calls(client, sandbox)
        for listing, records in served_records().items():
            bodies = answers(listing, records)
            sandbox.canned.add(listing, *bodies)
            for _ in bodies:
                await calls[listing]()
            assert sandbox.canned.pending() == 0
        report = client.drift()
    unknown = {(entry.model, entry.field) for entry in report.of_kind("unknown_field")}
    assert unknown == UNDOCUMENTED, str(report)
    for entry in report.of_kind("unknown_field"):
        assert entry.example.startswith(f"{entry.operation} > ")
        assert entry.example.endswith(f".{entry.field}")
