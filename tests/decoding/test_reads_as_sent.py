"""Values read as the reference and the services send them, the same from JSON and from XML: a
date or a datetime where the reference declares a date and the service sends a datetime, None
for a nullable field sent empty, a decimal exactly as written, an integer written back as one, and
the fields of enterprise-access and enterprise-catalog that the spec now describes."""

from __future__ import annotations

import datetime
import decimal
from collections.abc import AsyncIterator
from typing import Any

import pytest

from enterprise_async import EnterpriseClient, errors
from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._utils.xml import render_drf_xml
from enterprise_async.models import (
    ContentItem,
    ContentMetadata,
    Course,
    LearnerSummary,
    ListPrice,
    Program,
    SubsidyAccessPolicy,
    from_dict,
    to_dict,
)
from enterprise_async.testing import Sandbox
from tests.openapi_spec import required


def from_json_and_xml(model: Any, payload: dict[str, Any]) -> tuple[Any, Any]:
    """``payload`` (with the fields its model requires) read as JSON, and as the XML the services'
    renderer writes of it."""
    payload = {**required(model), **payload}
    return from_dict(model, payload), from_dict(
        model, CONVERSION.read_drf_xml(render_drf_xml(payload), model)
    )


# ------------------------------------------------------------------ a date or a datetime


@pytest.mark.parametrize("field", ["course_start", "course_end"])
def test_a_date_alone_where_the_reference_declares_a_date_reads_as_a_date(field: str) -> None:
    for summary in from_json_and_xml(LearnerSummary, {field: "2024-03-01"}):
        assert getattr(summary, field) == datetime.date(2024, 3, 1)
        assert type(getattr(summary, field)) is datetime.date
        assert to_dict(summary) == {**required(LearnerSummary), field: "2024-03-01"}


@pytest.mark.parametrize("field", ["course_start", "course_end"])
@pytest.mark.parametrize(
    "sent", ["2024-03-01T10:00:00Z", "2024-03-01T10:00:00.250000Z", "2024-03-01T10:00:00+02:00"]
)
def test_a_datetime_where_the_reference_declares_a_date_reads_as_a_datetime(field: str, sent: str) -> None:
    for summary in from_json_and_xml(LearnerSummary, {field: sent}):
        assert getattr(summary, field) == datetime.datetime.fromisoformat(sent.replace("Z", "+00:00"))
        assert to_dict(summary) == {**required(LearnerSummary), field: sent}


# ------------------------------------------------------------------ empty and null


@pytest.mark.parametrize(
    ("model", "field"),
    [
        (Program, "level_type_override"),
        (Program, "degree"),
        (Program, "product_source"),
        (SubsidyAccessPolicy, "spend_limit"),
        (ContentMetadata, "normalized_metadata"),
    ],
)
def test_a_nullable_field_sent_as_null_reads_as_none_from_an_empty_xml_element(
    model: Any, field: str
) -> None:
    from_json, from_xml = from_json_and_xml(model, {field: None})
    assert getattr(from_json, field) is None
    assert getattr(from_xml, field) is None
    assert to_dict(from_xml) == {**required(model), field: None}


# ------------------------------------------------------------------ decimals


@pytest.mark.parametrize("sent", ["0.00", "149.50", 0.0, 149, 12.5])
def test_a_decimal_reads_the_same_value_from_json_and_from_xml(sent: Any) -> None:
    from_json, from_xml = from_json_and_xml(LearnerSummary, {"course_list_price": sent})
    assert isinstance(from_xml.course_list_price, decimal.Decimal)
    assert str(from_xml.course_list_price) == str(from_json.course_list_price)


@pytest.mark.parametrize("sent", ["0.00", 149.0, 12.5, 149])
def test_a_decimal_is_written_back_from_xml_as_the_json_sent_it(sent: Any) -> None:
    _, from_xml = from_json_and_xml(LearnerSummary, {"amount_learner_paid": sent})
    assert to_dict(from_xml) == {**required(LearnerSummary), "amount_learner_paid": sent}


# ------------------------------------------------------------------ integers written back


@pytest.fixture
async def xml_client() -> AsyncIterator[tuple[Sandbox, EnterpriseClient]]:
    async with (
        Sandbox(seed=0, profile="reference") as sandbox,
        sandbox.client(response_format="xml") as client,
    ):
        yield sandbox, client


async def test_an_integer_of_an_error_result_read_from_xml_is_written_back_as_a_number(
    xml_client: tuple[Sandbox, EnterpriseClient],
) -> None:
    sandbox, client = xml_client
    with pytest.raises(errors.NotFoundError) as raised:
        await client.subscriptions.bulk_revoke(sandbox.data.plans[0].uuid, user_emails=["gone@example.com"])
    (failure,) = to_dict(raised.value.result)["unsuccessful_revocations"]
    assert failure["error_response_status"] == 404


# ------------------------------------------------------------------ fields the spec describes now


def test_the_policy_fields_of_the_mfe_specification_read_typed_from_xml() -> None:
    sent = {"spent_limit": 10000, "remaining_balance_for_learner": 200, "list_price": 199}
    from_json, from_xml = from_json_and_xml(SubsidyAccessPolicy, sent)
    assert from_xml == from_json
    assert (from_xml.spent_limit, from_xml.remaining_balance_for_learner, from_xml.list_price) == (
        10000,
        200,
        199,
    )
    assert from_xml.extra == {}
    assert to_dict(from_xml) == {**required(SubsidyAccessPolicy), **sent}


def test_a_list_price_object_reads_typed_from_xml() -> None:
    sent = {"list_price": {"usd": 149.5, "usd_cents": 14950}}
    from_json, from_xml = from_json_and_xml(SubsidyAccessPolicy, sent)
    assert from_xml.list_price == from_json.list_price == ListPrice(usd=149.5, usd_cents=14950)
    assert to_dict(from_xml) == {**required(SubsidyAccessPolicy), **sent}


def test_active_on_content_metadata_reads_as_a_boolean_from_xml() -> None:
    sent = {"content_type": "podcast", "key": "edX+Pod", "active": True}
    from_json, from_xml = from_json_and_xml(ContentItem, sent)  # type: ignore[arg-type]
    assert isinstance(from_xml, ContentMetadata)
    assert from_xml.active is True
    assert from_xml == from_json
    assert to_dict(from_xml) == sent


def test_the_numbers_of_corporate_endorsements_read_as_numbers_from_xml() -> None:
    endorser = {
        "uuid": "789aa881-e44b-4675-9377-fa103c12bbfc",
        "position": {"title": "Engineer", "organization_id": 1},
    }
    endorsement = {
        "corporation_name": "Bob's Company",
        "image": {"src": "https://example.org/logo.jpg", "description": None, "height": 576, "width": 1024},
        "individual_endorsements": [{"endorser": endorser, "quote": "Life is hard for us engineers."}],
    }
    from_json, from_xml = from_json_and_xml(Program, {"corporate_endorsements": [endorsement]})
    assert from_xml == from_json
    assert to_dict(from_xml) == {**required(Program), "corporate_endorsements": [endorsement]}


def test_the_normalized_metadata_of_any_content_type_reads_its_price_as_a_number_from_xml() -> None:
    sent = {"content_type": "podcast", "normalized_metadata": {"content_price": 149, "start_date": None}}
    _, from_xml = from_json_and_xml(ContentItem, sent)  # type: ignore[arg-type]
    assert to_dict(from_xml) == sent


def test_the_numbers_of_each_runs_normalized_metadata_read_as_numbers_from_xml() -> None:
    run_key = "course-v1:edX+DemoX+Demo_Course"
    sent = {
        "normalized_metadata_by_run": {run_key: {"content_price": 149, "start_date": "2013-02-05T05:00:00Z"}}
    }
    from_json, from_xml = from_json_and_xml(Course, sent)
    assert from_xml == from_json
    assert to_dict(from_xml) == {**required(Course), **sent}
