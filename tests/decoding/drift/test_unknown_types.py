"""``client.drift()`` names every discriminator value that names no type of the spec, with the
model the value was decoded as instead: a content type (``ContentItem``'s fallback) and a policy
type (the types ``SubsidyAccessPolicy`` lists), from JSON and from XML answers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from enterprise_async import DriftEntry, DriftReport
from enterprise_async._decoding import DecodeError, structure
from enterprise_async._decoding.drift import DriftCollector
from enterprise_async.models import ContentItem, ContentMetadata, SubsidyAccessPolicy, to_dict
from enterprise_async.testing import Sandbox

PODCAST = {
    "content_type": "podcast",
    "key": "edX+Pod1",
    "uuid": "6a7b1c2d-0000-4000-8000-000000000001",
    "title": "Learning in the open",
    "aggregation_key": "podcast:edX+Pod1",
    "episodes": 12,
}


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=0, profile="reference") as running:  # XML answers: the reference
        yield running


def page(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"count": len(items), "next": None, "previous": None, "results": items}


def unknown_types(report: DriftReport) -> list[DriftEntry]:
    return list(report.of_kind("unknown_type"))


@pytest.mark.parametrize("response_format", ["json", "xml"])
async def test_a_content_type_the_spec_does_not_know_is_named_with_the_model_it_fell_back_to(
    sandbox: Sandbox, response_format: str
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client(response_format=response_format) as client:
        sandbox.canned.add("catalogs.contents", page([PODCAST, {**PODCAST, "key": "edX+Pod2"}]))
        items = await client.catalogs.contents(catalog).to_list()
        report = client.drift()
    assert [type(item) for item in items] == [ContentMetadata, ContentMetadata]
    (entry,) = unknown_types(report)
    assert (entry.operation, entry.model, entry.field, entry.value, entry.declared, entry.count) == (
        "catalogs.contents",
        "ContentMetadata",
        "content_type",
        "podcast",
        "ContentItem",
        2,
    )
    assert entry.example == "catalogs.contents > results[0].content_type"
    assert "'podcast', decoded as ContentMetadata" in str(report)


@pytest.mark.parametrize("response_format", ["json", "xml"])
async def test_a_policy_type_the_spec_does_not_list_is_named_with_the_model_it_was_read_as(
    sandbox: Sandbox, response_format: str
) -> None:
    customer = sandbox.data.customers[0].uuid
    async with sandbox.client(response_format=response_format) as client:
        policies = [to_dict(policy) for policy in await client.policies.list(customer).to_list()]
        assert not client.drift(reset=True)
        sent = [{**policy, "policy_type": "CappedEnrollmentLearnerCreditAccessPolicy"} for policy in policies]
        sandbox.canned.add("policies.list", page(sent))
        await client.policies.list(customer).to_list()
        report = client.drift()
    (entry,) = unknown_types(report)
    assert (entry.operation, entry.model, entry.field, entry.value, entry.count) == (
        "policies.list",
        "SubsidyAccessPolicy",
        "policy_type",
        "CappedEnrollmentLearnerCreditAccessPolicy",
        len(policies),
    )
    assert entry.example == "policies.list > results[0].policy_type"


async def test_each_unknown_type_is_an_entry_of_its_own(sandbox: Sandbox) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        sandbox.canned.add("catalogs.contents", page([PODCAST, {**PODCAST, "content_type": "webinar"}]))
        await client.catalogs.contents(catalog).to_list()
        report = client.drift()
    assert sorted(entry.value or "" for entry in unknown_types(report)) == ["podcast", "webinar"]


def test_an_item_without_a_type_is_no_unknown_type() -> None:
    findings: list[Any] = []
    item = structure({"key": "edX+Vid", "title": "A video record without its type"}, ContentItem, findings)
    assert isinstance(item, ContentMetadata)
    assert findings == []


def test_a_policy_without_a_type_breaks_the_promise_and_is_no_unknown_type() -> None:
    """enterprise-access sets policy_type on every save: a policy without one is no policy of it."""
    findings: list[Any] = []
    with pytest.raises(
        DecodeError, match=r"SubsidyAccessPolicy\.policy_type is required and was sent as null"
    ):
        structure(
            {"uuid": "6a7b1c2d-0000-4000-8000-000000000002", "policy_type": None},
            SubsidyAccessPolicy,
            findings,
        )
    assert findings == []


def test_an_unknown_type_is_told_to_the_collector_with_its_value_and_union() -> None:
    findings: list[Any] = []
    structure(PODCAST, ContentItem, findings)
    collector = DriftCollector()
    collector.record("catalogs.content_metadata", findings)
    kinds = {entry.kind: entry for entry in collector.report().entries}
    assert kinds["unknown_type"].to_dict()["value"] == "podcast"
    assert kinds["unknown_type"].declared == "ContentItem"
    assert kinds["unknown_field"].field == "episodes"  # what the fallback keeps in extra: reported too
