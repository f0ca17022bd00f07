"""``client.drift()``: what the answers held that the spec does not describe, counted per operation,
model and field, with the first place each was seen; shared by a client's views; never a secret."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import attrs
import pytest

from enterprise_async import DriftEntry, DriftReport, EnterpriseClient
from enterprise_async._decoding import Finding
from enterprise_async._decoding.drift import MAX_DRIFT_ENTRIES, DriftCollector
from enterprise_async._generated.conversion import CONVERSION
from enterprise_async.models import CatalogPage, CourseRun, SubsidyAccessPolicy, to_dict
from enterprise_async.testing import Sandbox


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=0, profile="reference") as running:  # XML answers: the reference
        yield running


@pytest.fixture
async def client(sandbox: Sandbox) -> AsyncIterator[EnterpriseClient]:
    async with sandbox.client() as opened:
        yield opened


async def policy_payloads(client: EnterpriseClient, sandbox: Sandbox) -> list[dict[str, Any]]:
    """Policies as the sandbox sends them (the drift they caused is forgotten)."""
    policies = await client.policies.list(sandbox.data.customers[0].uuid).to_list()
    client.drift(reset=True)
    return [to_dict(policy) for policy in policies]


CLEAN_CATALOG = {"uuid": "c", "title": "T", "enterprise_customer": "e"}


def page(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"count": len(items), "next": None, "previous": None, "results": items}


async def list_policies(client: EnterpriseClient, sandbox: Sandbox) -> list[SubsidyAccessPolicy]:
    return await client.policies.list(sandbox.data.customers[0].uuid).to_list()


def only(report: DriftReport) -> DriftEntry:
    assert len(report.entries) == 1, str(report)
    return report.entries[0]


async def test_answers_that_fit_the_spec_report_no_drift(client: EnterpriseClient, sandbox: Sandbox) -> None:
    await client.catalogs.list().to_list()
    await list_policies(client, sandbox)
    report = client.drift()
    assert not report
    assert report.entries == ()
    assert "none" in str(report)


async def test_an_unknown_field_is_counted_with_its_operation_and_first_path(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    policies = await policy_payloads(client, sandbox)
    sandbox.canned.add("policies.list", page([{**policy, "group_uuid": "g-1"} for policy in policies[:3]]))
    await list_policies(client, sandbox)
    entry = only(client.drift())
    assert (entry.kind, entry.operation, entry.model, entry.field) == (
        "unknown_field",
        "policies.list",
        "SubsidyAccessPolicy",
        "group_uuid",
    )
    assert entry.count == 3
    assert entry.example == "policies.list > results[0].group_uuid"
    assert entry.sent == ("string",)


async def test_an_unknown_field_is_reported_from_xml_answers_too(sandbox: Sandbox) -> None:
    async with sandbox.client(response_format="xml") as client:
        policies = await policy_payloads(client, sandbox)
        sandbox.canned.add("policies.list", page([{**policies[0], "reporting_tag": 500}]))
        await list_policies(client, sandbox)
        entry = only(client.drift())
    assert (entry.kind, entry.model, entry.field) == ("unknown_field", "SubsidyAccessPolicy", "reporting_tag")


async def test_an_enum_value_outside_the_spec_is_reported_with_the_value(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    configuration = next(
        policy.assignment_configuration_uuid
        for policy in sandbox.data.policies
        if policy.assignment_configuration_uuid
    )
    assignments = await client.assignments.list(configuration).to_list()
    client.drift(reset=True)
    sent = [{**to_dict(assignment), "state": "paused"} for assignment in assignments[:2]]
    sandbox.canned.add("assignments.list", page(sent))
    await client.assignments.list(configuration).to_list()
    entry = only(client.drift())
    assert (entry.kind, entry.operation, entry.model, entry.field, entry.value, entry.count) == (
        "enum_value",
        "assignments.list",
        "Assignment",
        "state",
        "paused",
        2,
    )
    assert entry.declared == "AssignmentState | str"


async def test_a_value_kept_as_sent_is_reported_with_its_declared_type_and_the_kind_sent(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    policies = await policy_payloads(client, sandbox)
    sandbox.canned.add("policies.list", page([{**policy, "spend_limit": "lots"} for policy in policies[:2]]))
    await list_policies(client, sandbox)
    entry = only(client.drift())
    assert (entry.kind, entry.field, entry.count, entry.declared, entry.sent) == (
        "kept_as_sent",
        "spend_limit",
        2,
        "int",
        ("string",),
    )
    assert entry.example == "policies.list > results[0].spend_limit"


async def test_a_success_status_the_operation_does_not_document_is_reported(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    sandbox.canned.add("catalogs.list", page([]), status=203)
    await client.catalogs.list().to_list()
    entry = only(client.drift())
    assert (entry.kind, entry.operation, entry.value, entry.declared) == (
        "undocumented_status",
        "catalogs.list",
        "203",
        "200",
    )
    assert entry.example.startswith("catalogs.list > GET /enterprise/v2/enterprise-catalogs")


async def test_a_view_reports_to_the_client_it_belongs_to(client: EnterpriseClient, sandbox: Sandbox) -> None:
    policies = await policy_payloads(client, sandbox)
    view = client.with_options(timeout=30, max_retries=0)
    sandbox.canned.add("policies.list", page([{**policies[0], "reporting_tag": 1}]))
    await list_policies(view, sandbox)
    assert only(client.drift()).field == "reporting_tag"
    assert view.drift() == client.drift()


async def test_reset_returns_the_report_and_starts_a_new_count(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    policies = await policy_payloads(client, sandbox)
    sandbox.canned.add("policies.list", page([{**policies[0], "reporting_tag": 1}]))
    await list_policies(client, sandbox)
    assert only(client.drift(reset=True)).field == "reporting_tag"
    assert not client.drift()


async def test_no_secret_shows_in_a_report(client: EnterpriseClient, sandbox: Sandbox) -> None:
    secret = sandbox.client_secret
    policies = await policy_payloads(client, sandbox)
    echoed = {**policies[0], f"echo_{secret}": secret, "spend_limit": secret}
    sandbox.canned.add("policies.list", page([echoed]))
    await list_policies(client, sandbox)
    report = client.drift()
    assert {entry.kind for entry in report.entries} == {"unknown_field", "kept_as_sent"}
    assert secret not in str(report)
    assert secret not in json.dumps(report.to_dict())


async def test_the_report_is_immutable(client: EnterpriseClient, sandbox: Sandbox) -> None:
    policies = await policy_payloads(client, sandbox)
    sandbox.canned.add("policies.list", page([{**policies[0], "reporting_tag": 1}]))
    await list_policies(client, sandbox)
    report = client.drift()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        report.entries[0].count = 0  # type: ignore[misc]
    assert isinstance(report.entries, tuple)


async def test_to_dict_is_json_ready_and_str_reads_as_a_list(
    client: EnterpriseClient, sandbox: Sandbox
) -> None:
    policies = await policy_payloads(client, sandbox)
    sandbox.canned.add("policies.list", page([{**policies[0], "reporting_tag": 1}]))
    await list_policies(client, sandbox)
    report = client.drift()
    data = json.loads(json.dumps(report.to_dict()))
    assert data["entries"][0]["field"] == "reporting_tag"
    assert data["entries"][0]["count"] == 1
    assert "unknown field: SubsidyAccessPolicy.reporting_tag" in str(report)


def test_an_array_of_enums_reports_each_value_outside_the_spec() -> None:
    findings: list[Any] = []
    run = {"key": "course-v1:A+B+C", "content_type": "courserun", "seat_types": ["verified", "galactic"]}
    CONVERSION.structure(run, CourseRun, findings)
    collector = DriftCollector()
    collector.record("catalogs.course_run", findings)
    entry = only(collector.report())
    assert (entry.kind, entry.field, entry.value, entry.example) == (
        "enum_value",
        "seat_types[]",
        "galactic",
        "catalogs.course_run > seat_types[1]",
    )


def test_distinct_findings_past_the_limit_are_counted_not_listed() -> None:
    collector = DriftCollector()
    names = [f"field_{index}" for index in range(MAX_DRIFT_ENTRIES + 5)]
    findings = [("unknown_field", name, "Course", name, None, 1) for name in names]
    collector.record("catalogs.course", findings)
    report = collector.report()
    assert len(report.entries) == MAX_DRIFT_ENTRIES
    assert report.omitted == 5
    assert "5 more" in str(report)


async def test_a_clean_listing_leaves_the_report_empty(client: EnterpriseClient, sandbox: Sandbox) -> None:
    policies = await list_policies(client, sandbox)
    assert policies
    assert not client.drift()


def test_a_clean_answer_asks_for_no_paths_and_finds_nothing() -> None:
    asked: list[list[Finding]] = []
    findings: list[Finding] = []
    CONVERSION.structure(
        page([CLEAN_CATALOG]), CatalogPage, findings, lambda found: asked.append(found) or True
    )
    assert (asked, findings) == ([], [])


@pytest.mark.parametrize(("wanted", "place"), [(True, "results[0].reporting_tag"), (False, "reporting_tag")])
def test_the_answer_is_searched_for_a_findings_place_only_when_the_report_wants_it(
    wanted: bool, place: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A finding the report has counted already (``paths_wanted`` says no) is handed on by its field
    alone: the answer is not searched again for where it was."""
    caplog.set_level(logging.INFO, logger="enterprise_async")  # DEBUG records name paths, so they search
    findings: list[Finding] = []
    tagged = page([{**CLEAN_CATALOG, "reporting_tag": 1}])
    CONVERSION.structure(tagged, CatalogPage, findings, lambda _: wanted)
    assert findings == [("unknown_field", place, "Catalog", "reporting_tag", None, 1)]


async def test_a_repeat_is_counted_with_the_place_it_was_first_found(
    client: EnterpriseClient, sandbox: Sandbox, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="enterprise_async")  # DEBUG records name paths, so they search
    policies = await policy_payloads(client, sandbox)
    drifted = page([{**policy, "reporting_tag": 1} for policy in policies[:2]])
    sandbox.canned.add("policies.list", drifted, drifted)
    await list_policies(client, sandbox)
    await list_policies(client, sandbox)
    entry = only(client.drift())
    assert entry.count == 4
    assert entry.example == "policies.list > results[0].reporting_tag"


async def test_a_value_kept_as_sent_that_echoes_the_secret_is_hidden_in_its_debug_record(
    client: EnterpriseClient, sandbox: Sandbox, caplog: pytest.LogCaptureFixture
) -> None:
    secret = sandbox.client_secret
    policies = await policy_payloads(client, sandbox)
    sandbox.canned.add("policies.list", page([{**policies[0], "spend_limit": secret}]))
    with caplog.at_level(logging.DEBUG, logger="enterprise_async"):
        await list_policies(client, sandbox)
    kept = [
        record for record in caplog.records if getattr(record, "sdk_path", None) == "results[0].spend_limit"
    ]
    assert kept
    assert secret not in kept[0].getMessage()
    assert secret not in str(kept[0].sdk_value)
