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
same answer is what the sandbox would have sent for that very request, recorded as it renders.
"""

from __future__ import annotations

import datetime
from collections.abc import AsyncIterator
from typing import Any

import attrs
import orjson
import pytest

from enterprise_async import EnterpriseClient, NotFoundError
from enterprise_async._client import answers as _answers
from enterprise_async._decoding.spec import Operation
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async._paging import reading as _reading
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
from enterprise_async.testing import Sandbox, _server
from tests.fixtures import MODELS, json_fixture, xml_fixture

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
    assert to_dict(from_dict(CourseRun, {"seats": None})) == {"seats": None}


@pytest.mark.parametrize("moment", ["2026-01-05T00:00:00Z", "2026-01-05T00:00:00.000000+00:00", "2026-01-05"])
def test_datetimes_are_written_in_the_servers_text(moment: str) -> None:
    assert to_dict(from_dict(CourseRun, {"start": moment})) == {"start": moment}


def test_decimals_are_written_in_the_servers_form() -> None:
    seats = {"seats": [{"price": "149.00"}, {"price": 149}, {"price": 149.5}]}
    assert to_dict(from_dict(CourseRun, seats)) == seats


def test_a_model_built_in_code_writes_every_field_from_its_values() -> None:
    written = to_dict(Course(key="edX+DemoX", level_type=LevelType.INTERMEDIATE))
    assert (written["key"], written["level_type"], written["title"]) == ("edX+DemoX", "Intermediate", None)


# ---------------------------------------------------------------------------------- the sandbox


@attrs.define
class Recorder:
    """Each answer the client decoded, and the JSON the sandbox had for each body it rendered."""

    answers: list[tuple[Operation[Any], Any, Any]] = attrs.field(factory=list)
    json_of_xml: dict[bytes, bytes] = attrs.field(factory=dict)

    def json_body(self, response: Any) -> Any:
        if response.body.lstrip().startswith(b"<"):
            return orjson.loads(self.json_of_xml[response.body])
        return orjson.loads(response.body)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recorded = Recorder()
    render, read_result, result_of = _server.render, _answers.read_result, _reading.result_of

    def recording_render(reply: Any, wants_json: bool) -> Any:
        if reply.data is not None:
            recorded.json_of_xml[render_drf_xml(reply.data)] = orjson.dumps(reply.data)
        return render(reply, wants_json)

    def recording_read_result(operation: Operation[Any], response: Any, *drift: Any) -> Any:
        result = read_result(operation, response, *drift)
        recorded.answers.append((operation, response, result))
        return result

    def recording_result_of(operation: Operation[Any], response: Any, data: Any, *drift: Any) -> Any:
        result = result_of(operation, response, data, *drift)
        recorded.answers.append((operation, response, result))
        return result

    monkeypatch.setattr(_server, "render", recording_render)
    monkeypatch.setattr(_answers, "read_result", recording_read_result)
    monkeypatch.setattr(_reading, "result_of", recording_result_of)  # a listing's pages
    return recorded


async def every_operation(client: EnterpriseClient, sandbox: Sandbox) -> None:
    """One call of each operation, with arguments the sandbox answers with a body."""
    data = sandbox.data
    catalog = data.catalogs[0]
    customer = data.customers[0].uuid
    policy = next(policy for policy in data.policies if policy.assignment_configuration_uuid)
    configuration = policy.assignment_configuration_uuid
    assert configuration is not None
    records = data.assignments(configuration)
    await client.policies.list(customer).to_list()
    await client.policies.allocate(
        policy.uuid,
        learner_emails=["round@example.com"],
        content_key=records[0].content_key,
        content_price_cents=990,
    )
    await client.assignments.list(configuration).to_list()
    await client.assignments.remind(configuration, assignment_uuids=[records[0].uuid])
    await client.assignments.cancel(configuration, assignment_uuids=[records[1].uuid])
    plan = data.plans[0]
    await client.subscriptions.list().to_list()
    await client.subscriptions.assign_licenses(plan.uuid, user_emails=["trip@example.com"])
    await client.subscriptions.bulk_revoke(
        plan.uuid, filters=[BulkRevokeFilter(status_in=[LicenseStatus.ASSIGNED])]
    )
    run_key = data.first(catalog, "courserun")["key"]
    job = await client.enrollments.bulk_enroll(
        customer, emails=["a@example.com"], course_run_keys=[run_key], notify=False
    )
    await client.enrollments.job_status(customer, job.job_id)
    await client.catalogs.list().to_list()
    await client.catalogs.contents(catalog.uuid, limit=30).to_list()
    await client.catalogs.course(catalog.uuid, data.first(catalog, "course")["key"])
    await client.catalogs.course_run(catalog.uuid, run_key)
    await client.catalogs.program(catalog.uuid, data.first(catalog, "program")["uuid"])
    await client.learner_summary.list(customer).to_list()
    with pytest.raises(NotFoundError):  # an error body with a result: decoded too, not by read_result
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


async def answers(
    sandbox: Sandbox, response_format: str, recorder: Recorder
) -> list[tuple[str, Any, Any, Any]]:
    """(operation, model, result, the JSON of the same answer) for each decoded answer."""
    async with sandbox.client(response_format=response_format) as client:
        await every_operation(client, sandbox)
    found = []
    for operation, response, result in recorder.answers:
        outcome = operation.outcomes.get(response.status)
        assert outcome is not None, operation.name
        if outcome.model is None:  # remind, cancel: no documented model, the body is returned as parsed
            continue
        found.append((operation.name, outcome, result, recorder.json_body(response)))
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
async def test_to_dict_of_every_sandbox_answer_is_its_json(
    shaped: Sandbox, response_format: str, recorder: Recorder
) -> None:
    for name, outcome, result, raw in await answers(shaped, response_format, recorder):
        assert (name, written_by_the_server(result, outcome)) == (name, raw)


@pytest.mark.parametrize("response_format", ["json", "xml"])
async def test_from_dict_of_to_dict_of_every_sandbox_answer_is_the_answer(
    shaped: Sandbox, response_format: str, recorder: Recorder
) -> None:
    for name, outcome, result, _ in await answers(shaped, response_format, recorder):
        again = from_dict(outcome.model, to_dict(result))
        for field, value in outcome.fields.items():
            setattr(again, field, value)
        assert (name, again) == (name, result)


async def test_every_xml_answer_decodes_to_the_model_of_its_json(shaped: Sandbox, recorder: Recorder) -> None:
    for name, outcome, result, raw in await answers(shaped, "xml", recorder):
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
