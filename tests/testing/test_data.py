"""The generated world: deterministic, complete (every field of the spec on the wire), quirky
where the reference is, and lazy for large catalogs."""

from __future__ import annotations

import datetime
import decimal
import pathlib
import re
import tracemalloc
import uuid
from collections.abc import Iterable
from typing import Any

import pytest
import yaml

from enterprise_async.testing import DataSize, SandboxData

SPEC = pathlib.Path(__file__).resolve().parents[2] / "spec" / "openapi.yaml"
ANCHOR = datetime.datetime(2026, 3, 1, tzinfo=datetime.timezone.utc)
FLAT_ONLY = frozenset(
    {
        "aggregation_key",
        "authoring_organization_uuids",
        "content_type",
        "enrollment_mode",
        "first_enrollable_paid_seat_sku",
        "has_enrollable_seats",
        "image_url",
        "language",
        "logo_image_urls",
        "number",
        "org",
        "partner",
        "program_types",
        "published",
        "seat_types",
        "staff_uuids",
        "subject_uuids",
    }
)


@pytest.fixture(scope="module")
def schemas() -> dict[str, Any]:
    return yaml.safe_load(SPEC.read_text())["components"]["schemas"]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def data() -> SandboxData:
    return SandboxData(0, DataSize(), ANCHOR)


def _fields(schemas: dict[str, Any], name: str) -> set[str]:
    return set(schemas[name]["properties"]) - {"partial"}


def _items(data: SandboxData, kind: str) -> Iterable[dict[str, Any]]:
    catalog = data.catalogs[0]
    return (
        data.item(catalog, index) for index in range(catalog.item_count) if data.content.kind(index) == kind
    )


# ---------------------------------------------------------------------------------- determinism


def test_same_seed_gives_the_same_world() -> None:
    first, second = SandboxData(7, DataSize(), ANCHOR), SandboxData(7, DataSize(), ANCHOR)
    assert [customer.uuid for customer in first.customers] == [customer.uuid for customer in second.customers]
    assert [first.policy_wire(policy) for policy in first.policies] == [
        second.policy_wire(policy) for policy in second.policies
    ]
    configuration = first.assignment_configurations[0]
    assert [record.wire() for record in first.assignments(configuration)] == [
        record.wire() for record in second.assignments(configuration)
    ]
    assert first.item(first.catalogs[3], 44) == second.item(second.catalogs[3], 44)


def test_another_seed_gives_another_world() -> None:
    first, second = SandboxData(1, DataSize(), ANCHOR), SandboxData(2, DataSize(), ANCHOR)
    assert first.customers[0].uuid != second.customers[0].uuid
    assert first.item(first.catalogs[0], 0)["key"] != second.item(second.catalogs[0], 0)["key"]


def test_size_sets_how_much_is_generated() -> None:
    data = SandboxData(0, DataSize(customers=2, catalogs_per_customer=3, plans_per_customer=3), ANCHOR)
    assert (len(data.customers), len(data.catalogs), len(data.plans)) == (2, 6, 6)


def test_size_refuses_more_customers_than_names() -> None:
    with pytest.raises(ValueError, match="customers"):
        DataSize(customers=100)


def test_large_catalog_items_are_generated_on_demand() -> None:
    tracemalloc.start()
    try:
        data = SandboxData(0, DataSize(catalog_items=100_000), ANCHOR)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert data.catalogs[0].item_count == 100_000
    assert held < 20_000_000
    assert data.item(data.catalogs[0], 99_999) == data.item(data.catalogs[0], 99_999)


# ---------------------------------------------------------------------------------- completeness


def test_policies_carry_every_field_of_the_spec(data: SandboxData, schemas: dict[str, Any]) -> None:
    wire = data.policy_wire(data.policies[0])
    assert set(wire) == _fields(schemas, "SubsidyAccessPolicy")
    assert set(wire["aggregates"]) == _fields(schemas, "PolicyAggregates")
    assert set(wire["assignment_configuration"]) == _fields(schemas, "AssignmentConfiguration")


def test_assignments_carry_every_field_of_the_spec(data: SandboxData, schemas: dict[str, Any]) -> None:
    record = next(r for r in data.assignments(data.assignment_configurations[0]) if r.state == "cancelled")
    wire = record.wire()
    assert set(wire) == _fields(schemas, "Assignment")
    assert set(wire["actions"][0]) == _fields(schemas, "AssignmentAction")
    assert set(wire["earliest_possible_expiration"]) == _fields(schemas, "EarliestPossibleExpiration")
    assert set(wire["recent_action"]) == _fields(schemas, "RecentAction")


def test_plans_carry_every_field_of_the_spec(data: SandboxData, schemas: dict[str, Any]) -> None:
    wire = data.plan_wire(data.plans[0])
    assert set(wire) == _fields(schemas, "SubscriptionPlan")
    assert set(wire["licenses"]) == _fields(schemas, "LicenseCounts")
    assert set(wire["prior_renewals"][0]) == _fields(schemas, "PriorRenewal")


def test_catalogs_carry_every_field_of_the_spec(data: SandboxData, schemas: dict[str, Any]) -> None:
    assert set(data.catalogs[0].wire()) == _fields(schemas, "Catalog")


def test_courses_carry_every_field_of_the_spec(data: SandboxData, schemas: dict[str, Any]) -> None:
    course = next(iter(_items(data, "course")))
    served_only = {"course", "image_url"}  # enterprise-catalog's records of a course add them
    assert set(course) == _fields(schemas, "Course") - served_only
    assert set(data.content.as_served(course, "course")) == _fields(schemas, "Course")
    assert set(course["entitlements"][0]) == _fields(schemas, "Entitlement")
    assert set(course["owners"][0]) == _fields(schemas, "Organization")
    assert set(course["subjects"][0]) == _fields(schemas, "Subject")
    assert set(course["image"]) == _fields(schemas, "Image")
    assert set(course["product_source"]) == _fields(schemas, "ProductSource")


def test_course_runs_carry_every_field_of_the_spec(data: SandboxData, schemas: dict[str, Any]) -> None:
    run = next(iter(_items(data, "courserun")))
    assert set(run) == _fields(schemas, "CourseRun") - FLAT_ONLY
    assert set(run["seats"][1]) == _fields(schemas, "Seat")
    assert set(run["staff"][0]) == _fields(schemas, "Staff")
    assert set(run["staff"][0]["position"]) == _fields(schemas, "Position")


def test_programs_carry_every_field_of_the_spec(data: SandboxData, schemas: dict[str, Any]) -> None:
    program = next(iter(_items(data, "program")))
    assert set(program) == _fields(schemas, "Program") - FLAT_ONLY
    assert set(program["type_attrs"]) == _fields(schemas, "TypeAttrs")
    assert set(program["curricula"][0]) == _fields(schemas, "Curriculum")
    assert set(program["level_type_override"]) == _fields(schemas, "LevelTypeOverride")


def test_degree_programs_carry_every_degree_field(schemas: dict[str, Any]) -> None:
    big = SandboxData(0, DataSize(catalog_items=2000), ANCHOR)
    degrees = (big.item(big.catalogs[0], index)["degree"] for index in range(9, 2000, 10))
    degree = next(degree for degree in degrees if degree)
    assert set(degree) == _fields(schemas, "Degree")
    assert set(degree["additional_metadata"]) == _fields(schemas, "DegreeAdditionalMetadata")


def test_flat_items_carry_the_flat_fields_too(data: SandboxData, schemas: dict[str, Any]) -> None:
    run = next(iter(_items(data, "courserun")))
    program = next(iter(_items(data, "program")))
    assert set(data.content.flat(run, "courserun")) == _fields(schemas, "CourseRun")
    assert set(data.content.flat(program, "program")) == _fields(schemas, "Program")


def test_learner_summary_rows_carry_every_field_of_the_spec(
    data: SandboxData, schemas: dict[str, Any]
) -> None:
    row = data.summaries(data.customers[0].uuid)[0]
    assert set(row) == _fields(schemas, "LearnerSummary")


# ---------------------------------------------------------------------------------- realism and quirks


def test_seat_prices_are_decimal_strings(data: SandboxData) -> None:
    for run in _items(data, "courserun"):
        for seat in run["seats"]:
            assert isinstance(seat["price"], str)
            assert decimal.Decimal(seat["price"]).as_tuple().exponent == -2


def test_original_image_is_sometimes_a_url_and_sometimes_an_image(data: SandboxData) -> None:
    kinds = {type(course["original_image"]) for course in _items(data, "course")}
    assert kinds == {str, dict}


def test_course_level_type_is_capitalised(data: SandboxData) -> None:
    assert all(course["level_type"][0].isupper() for course in _items(data, "course"))


def test_some_runs_spell_pacing_with_an_underscore(data: SandboxData) -> None:
    big = SandboxData(0, DataSize(catalog_items=200), ANCHOR)
    pacings = {run["pacing_type"] for course in _items(big, "course") for run in course["course_runs"]}
    assert {"self_paced", "self-paced", "instructor-paced"} <= pacings


def test_some_programs_have_a_type_outside_the_documented_enum() -> None:
    big = SandboxData(0, DataSize(catalog_items=500), ANCHOR)
    types = {program["type"] for program in _items(big, "program")}
    assert types - {"Professional Certificate", "XSeries", "MicroMasters"}


def test_error_reason_is_sometimes_an_object(data: SandboxData) -> None:
    reasons = [
        r.error_reason for r in data.assignments(data.assignment_configurations[0]) if r.state == "errored"
    ]
    assert {type(reason) for reason in reasons} == {str, dict}


def test_some_expired_assignments_have_their_email_scrubbed_to_a_retired_address(data: SandboxData) -> None:
    expired = [r for r in data.assignments(data.assignment_configurations[0]) if r.state == "expired"]
    scrubbed = [r.learner_email for r in expired if r.learner_email.endswith("@retired.invalid")]
    assert scrubbed
    assert all(re.fullmatch(r"retired_user[0-9a-f]{16}@retired\.invalid", email) for email in scrubbed)
    assert all(record.created < ANCHOR - datetime.timedelta(days=90) for record in expired)


def test_free_form_objects_hold_strings_so_xml_reads_them_back_equal(data: SandboxData) -> None:
    course = next(iter(_items(data, "course")))
    for name in ("video", "geolocation", "in_year_value", "additional_metadata"):
        assert all(isinstance(value, (str, list)) for value in course[name].values()), name


def test_dates_are_laid_out_around_the_anchor(data: SandboxData) -> None:
    current = [plan for plan in data.plans if data.current_plan(plan)]
    assert len(current) == len(data.customers)
    course = next(iter(_items(data, "course")))
    assert [run["availability"] for run in course["course_runs"]] == ["Current", "Upcoming"]


def test_generated_ids_are_version_4_uuids(data: SandboxData) -> None:
    catalog = data.catalogs[0]
    ids = [
        *(customer.uuid for customer in data.customers),
        *(policy.uuid for policy in data.policies),
        *(record.uuid for record in data.assignments(data.assignment_configurations[0])),
        *(license.uuid for license in data.licenses(data.plans[0].uuid)),
        *(data.item(catalog, index)["uuid"] for index in range(catalog.item_count)),
        *(run["uuid"] for run in data.first(catalog, "course")["course_runs"]),
    ]
    for text in ids:
        parsed = uuid.UUID(text)
        assert (parsed.version, parsed.variant) == (4, uuid.RFC_4122), text
