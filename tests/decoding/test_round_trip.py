"""What the server sent is what the user reads and writes back.

For every fixture and for every answer of the sandbox, through the client:

- ``to_dict(from_dict(M, raw)) == raw``: the server's own values (enum spellings, date and decimal
  texts) and only the fields it sent;
- ``from_dict(M, to_dict(x)) == x``.

What equality means for XML. DRF XML carries only text, and renders None, ``[]`` and ``{}`` alike
as an empty element, so its text cannot be what is compared. The model decoded from an XML answer
equals the model decoded from the JSON of the same answer, and its ``to_dict`` equals that JSON:
numbers and booleans are written from their decoded values, text (strings, enum spellings, dates,
decimals) as received, and an empty element where an array is declared as ``[]``. The JSON of the
same answer is what the sandbox sent for that very request: a middleware asks for it and hands the
client the XML that the sandbox's renderer makes of it.
"""

from __future__ import annotations

import datetime
from collections.abc import AsyncIterator, Awaitable
from typing import Any

import attrs
import orjson
import pytest

from enterprise_async import APIResponse, EnterpriseClient, NotFoundError, OutgoingRequest, RawResponse, Send
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async._utils.xml import parse_drf_xml, render_drf_xml
from enterprise_async.models import (
    BulkRevokeFilter,
    Course,
    CourseRun,
    LevelType,
    LicenseStatus,
    PacingType,
    from_dict,
    to_dict,
)
from enterprise_async.testing import Sandbox
from tests.fixtures import MODELS, json_fixture, xml_fixture
from tests.openapi_spec import required

FIXTURES = sorted(MODELS)


def model_of(name: str) -> Any:
    from enterprise_async import models

    return getattr(models, MODELS[name])


# ---------------------------------------------------------------------------------- fixtures


@pytest.mark.parametrize("name", FIXTURES)
def test_to_dict_of_a_decoded_json_fixture_is_the_fixture(name: str) -> None:
    raw = json_fixture(name)
    assert to_dict(from_dict(model_of(name), raw)) == raw


@pytest.mark.parametrize("name", FIXTURES)
def test_to_dict_of_a_decoded_xml_fixture_is_the_json_fixture(name: str) -> None:
    assert to_dict(from_dict(model_of(name), parse_drf_xml(xml_fixture(name)))) == json_fixture(name)


@pytest.mark.parametrize("name", FIXTURES)
def test_from_dict_of_to_dict_is_the_model(name: str) -> None:
    model = from_dict(model_of(name), json_fixture(name))
    assert from_dict(model_of(name), to_dict(model)) == model


# ---------------------------------------------------------------------------------- spellings

RUN = {"key": "course-v1:edX+DemoX+1T2026", "level_type": "Intermediate", "pacing_type": "self_paced"}


def test_enum_spellings_are_written_as_sent() -> None:
    written = to_dict(from_dict(CourseRun, RUN))
    assert (written["level_type"], written["pacing_type"]) == ("Intermediate", "self_paced")


def test_enum_spellings_still_read_as_the_documented_members() -> None:
    run = from_dict(CourseRun, RUN)
    assert (run.level_type, run.pacing_type) == (LevelType.INTERMEDIATE, PacingType.SELF_PACED)


def test_a_field_changed_after_decoding_is_written_as_changed() -> None:
    run = from_dict(CourseRun, RUN)
    run.level_type = LevelType.ADVANCED
    assert to_dict(run)["level_type"] == "Advanced"


def test_a_field_the_server_left_out_stays_out() -> None:
    assert to_dict(from_dict(CourseRun, RUN)) == RUN


def test_a_field_left_out_but_set_after_decoding_is_written() -> None:
    run = from_dict(CourseRun, RUN)
    run.title = "Demo"
    assert to_dict(run) == {**RUN, "title": "Demo"}


def test_every_field_writes_the_fields_left_out_too() -> None:
    written = to_dict(from_dict(CourseRun, RUN), every_field=True)
    assert written["level_type"] == "Intermediate"
    assert (written["title"], written["seats"]) == (None, [])
    assert set(written) == {field.alias for field in attrs.fields(CourseRun) if field.init} - {"extra"}


def test_a_null_array_is_written_back_as_null() -> None:
    assert to_dict(from_dict(CourseRun, {**required(CourseRun), "seats": None})) == {
        **required(CourseRun),
        "seats": None,
    }


@pytest.mark.parametrize("moment", ["2026-01-05T00:00:00Z", "2026-01-05T00:00:00.000000+00:00", "2026-01-05"])
def test_datetimes_are_written_in_the_servers_text(moment: str) -> None:
    assert to_dict(from_dict(CourseRun, {**required(CourseRun), "start": moment})) == {
        **required(CourseRun),
        "start": moment,
    }


def test_decimals_are_written_in_the_servers_form() -> None:
    seats = {
        "key": "course-v1:edX+DemoX+1T2026",
        "seats": [{"price": "149.00"}, {"price": 149}, {"price": 149.5}],
    }
    assert to_dict(from_dict(CourseRun, seats)) == seats


def test_a_model_built_in_code_writes_every_field_from_its_values() -> None:
    written = to_dict(Course(key="edX+DemoX", level_type=LevelType.INTERMEDIATE))
    assert (written["key"], written["level_type"], written["title"]) == ("edX+DemoX", "Intermediate", None)


# ---------------------------------------------------------------------------------- the sandbox


@attrs.define
class Recorder:
    """Each answer the client received (by the call's operation), and for an XML answer the JSON of
    the same answer: a middleware asks the sandbox for JSON and hands the client the XML its
    renderer makes of the same data, as the sandbox would have rendered it."""

    answers: list[tuple[str, APIResponse[Any]]] = attrs.field(factory=list)
    json_of_xml: dict[bytes, bytes] = attrs.field(factory=dict)

    def json_body(self, answer: APIResponse[Any]) -> Any:
        return orjson.loads(self.json_of_xml.get(answer.content, answer.content))

    async def as_xml(self, request: OutgoingRequest, send: Send) -> RawResponse:
        response = await send(request.with_headers({"Accept": "application/json"}))
        if not response.body:
            return response
        xml = render_drf_xml(orjson.loads(response.body))
        self.json_of_xml[xml] = response.body
        headers = {**response.headers, "Content-Type": "application/xml"}
        return attrs.evolve(response, body=xml, headers=headers)

    async def pages(self, name: str, pager: Any) -> None:
        async for answer in pager:
            self.answers.append((name, answer))

    async def call(self, name: str, call: Awaitable[APIResponse[Any]]) -> Any:
        answer = await call
        self.answers.append((name, answer))
        return answer.parse()


async def every_operation(client: EnterpriseClient, sandbox: Sandbox, recorder: Recorder) -> None:
    """One call of each operation, with arguments the sandbox answers with a body."""
    raw, record = client.with_raw_response, recorder.call
    data = sandbox.data
    catalog = data.catalogs[0]
    customer = data.customers[0].uuid
    policy = next(policy for policy in data.policies if policy.assignment_configuration_uuid)
    configuration = policy.assignment_configuration_uuid
    assert configuration is not None
    records = data.assignments(configuration)
    await recorder.pages("policies.list", raw.policies.list(customer))
    await record(
        "policies.allocate",
        raw.policies.allocate(
            policy.uuid,
            learner_emails=["round@example.com"],
            content_key=records[0].content_key,
            content_price_cents=990,
        ),
    )
    await recorder.pages("assignments.list", raw.assignments.list(configuration))
    await record(
        "assignments.remind", raw.assignments.remind(configuration, assignment_uuids=[records[0].uuid])
    )
    await record(
        "assignments.cancel", raw.assignments.cancel(configuration, assignment_uuids=[records[1].uuid])
    )
    plan = data.plans[0]
    await recorder.pages("subscriptions.list", raw.subscriptions.list())
    await record(
        "subscriptions.assign_licenses",
        raw.subscriptions.assign_licenses(plan.uuid, user_emails=["trip@example.com"]),
    )
    revoke = raw.subscriptions.bulk_revoke(
        plan.uuid, filters=[BulkRevokeFilter(status_in=[LicenseStatus.ASSIGNED])]
    )
    await record("subscriptions.bulk_revoke", revoke)
    run_key = data.first(catalog, "courserun")["key"]
    job = await record(
        "enrollments.bulk_enroll",
        raw.enrollments.bulk_enroll(
            customer, emails=["a@example.com"], course_run_keys=[run_key], notify=False
        ),
    )
    await record("enrollments.job_status", raw.enrollments.job_status(customer, job.job_id))
    await recorder.pages("catalogs.list", raw.catalogs.list())
    await recorder.pages("catalogs.contents", raw.catalogs.contents(catalog.uuid, limit=30))
    await record("catalogs.course", raw.catalogs.course(catalog.uuid, data.first(catalog, "course")["key"]))
    await record("catalogs.course_run", raw.catalogs.course_run(catalog.uuid, run_key))
    await record(
        "catalogs.program", raw.catalogs.program(catalog.uuid, data.first(catalog, "program")["uuid"])
    )
    await recorder.pages("learner_summary.list", raw.learner_summary.list(customer))
    with pytest.raises(NotFoundError):  # an error body with a result: decoded too, not recorded
        await client.subscriptions.bulk_revoke(plan.uuid, user_emails=["nobody@example.com"])


SHAPES = [
    pytest.param({}, id="nested-paginated"),
    pytest.param({"catalog_shape": "flat", "learner_summary": "list"}, id="flat-list"),
]


@pytest.fixture(params=SHAPES)
async def shaped(request: pytest.FixtureRequest) -> AsyncIterator[Sandbox]:
    # the reference profile: every answer in both formats (the services render no XML)
    async with Sandbox(profile="reference", **request.param) as sandbox:
        yield sandbox


async def answers(sandbox: Sandbox, response_format: str) -> list[tuple[str, Any, Any, Any]]:
    """(operation, model, result, the JSON of the same answer) for each answer decoded to a model."""
    recorder = Recorder()
    middleware = [recorder.as_xml] if response_format == "xml" else []
    async with sandbox.client(response_format=response_format, middleware=middleware) as client:
        await every_operation(client, sandbox, recorder)
    found = []
    for name, answer in recorder.answers:
        outcome = OPERATIONS[name].outcomes.get(answer.status)
        assert outcome is not None, name
        if outcome.model is None:  # remind, cancel: no documented model, the body is returned as parsed
            continue
        result, raw = answer.parse(), recorder.json_body(answer)
        pagination = OPERATIONS[name].pagination
        if pagination is not None and pagination.items and isinstance(raw, list):
            result = getattr(result, pagination.items)  # a bare list, which the pager gives in its envelope
        found.append((name, outcome, result, raw))
    typed = {
        operation.name
        for operation in OPERATIONS.values()
        if any(outcome.success and outcome.model is not None for outcome in operation.outcomes.values())
    }
    assert {name for name, *_ in found} == typed
    return found


def written_by_the_server(result: Any, outcome: Any) -> Any:
    """``to_dict(result)`` without the fields the SDK sets from the status (bulk revoke's ``partial``)."""
    written = to_dict(result)
    for name in outcome.fields:
        written.pop(name, None)
    return written


@pytest.mark.parametrize("response_format", ["json", "xml"])
async def test_to_dict_of_every_sandbox_answer_is_its_json(shaped: Sandbox, response_format: str) -> None:
    for name, outcome, result, raw in await answers(shaped, response_format):
        assert (name, written_by_the_server(result, outcome)) == (name, raw)


@pytest.mark.parametrize("response_format", ["json", "xml"])
async def test_from_dict_of_to_dict_of_every_sandbox_answer_is_the_answer(
    shaped: Sandbox, response_format: str
) -> None:
    for name, outcome, result, _ in await answers(shaped, response_format):
        again = from_dict(outcome.model, to_dict(result))
        for field, value in outcome.fields.items():
            setattr(again, field, value)
        assert (name, again) == (name, result)


async def test_every_xml_answer_decodes_to_the_model_of_its_json(shaped: Sandbox) -> None:
    for name, outcome, result, raw in await answers(shaped, "xml"):
        from_json = from_dict(outcome.model, raw)
        for field, value in outcome.fields.items():
            setattr(from_json, field, value)
        assert (name, result) == (name, from_json)


def test_a_model_built_in_code_round_trips_through_to_dict() -> None:
    course = Course(
        key="edX+DemoX",
        level_type=LevelType.INTERMEDIATE,
        modified=datetime.datetime(2026, 1, 5, 12, 30, tzinfo=datetime.timezone.utc),
        course_runs=[CourseRun(key="course-v1:edX+DemoX+1T2026", pacing_type=PacingType.SELF_PACED)],
        extra={"kept": {"as": "given"}},
    )
    assert from_dict(Course, to_dict(course)) == course
