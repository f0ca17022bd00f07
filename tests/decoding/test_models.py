"""The generated models decode JSON and DRF XML to the same values, keep what they do not know,
and round-trip through to_dict/from_dict."""

from __future__ import annotations

import datetime
import decimal
import logging
from typing import Any

import attrs
import orjson
import pytest

from enterprise_async import models
from enterprise_async._generated import models as generated
from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._utils.xml import parse_drf_xml
from enterprise_async.errors import ResponseDecodeError
from enterprise_async.models import (
    AccessToken,
    AllocationResult,
    Assignment,
    AssignmentAction,
    AssignmentState,
    Availability,
    CatalogContentsPage,
    Course,
    CourseRun,
    LearnerState,
    LearnerSummary,
    LearnerSummaryPage,
    LevelType,
    PacingType,
    Program,
    ProgramType,
    Revocations,
    SubscriptionPlan,
    SubsidyAccessPolicy,
    from_dict,
    to_dict,
)
from tests.fixtures import MODELS, json_fixture, xml_fixture
from tests.openapi_spec import required

FIXTURES = sorted(MODELS)
MODEL_CLASSES = sorted(
    (value for value in vars(generated).values() if isinstance(value, type) and attrs.has(value)),
    key=lambda cls: cls.__name__,
)
SDK_FIELDS = {
    "extra",
    "partial",
    "_sdk_wire",
}  # not sent by the server: unknowns, bulk revoke's flag, the wire record
REQUEST_MODELS = {"BulkRevokeFilter"}  # sent, never received


def decode_json(name: str) -> Any:
    return from_dict(getattr(models, MODELS[name]), json_fixture(name))


def decode_xml(name: str) -> Any:
    return from_dict(getattr(models, MODELS[name]), parse_drf_xml(xml_fixture(name)))


def walk(value: Any) -> Any:
    """Every model instance inside a decoded value."""
    if attrs.has(type(value)):
        yield value
        for field in attrs.fields(type(value)):
            yield from walk(getattr(value, field.name))
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


@pytest.mark.parametrize("name", FIXTURES)
def test_json_and_xml_fixtures_decode_to_equal_models(name: str) -> None:
    assert decode_json(name) == decode_xml(name)


@pytest.mark.parametrize("name", FIXTURES)
def test_fixtures_keep_no_unknown_fields(name: str) -> None:
    unknown = {(type(model).__name__, key) for model in walk(decode_json(name)) for key in model.extra}
    assert unknown == set()


def test_fixtures_exercise_every_field_of_every_model() -> None:
    seen: set[tuple[str, str]] = set()
    for name in FIXTURES:
        for model in walk(decode_json(name)):
            for field in attrs.fields(type(model)):
                value = getattr(model, field.name)
                if value is not None and value != []:
                    seen.add((type(model).__name__, field.name))
    expected = {
        (cls.__name__, field.name)
        for cls in MODEL_CLASSES
        if cls.__name__ not in REQUEST_MODELS
        for field in attrs.fields(cls)
        if field.name not in SDK_FIELDS
    }
    assert sorted(expected - seen) == []


@pytest.mark.parametrize("name", FIXTURES)
def test_to_dict_round_trips(name: str) -> None:
    model = decode_json(name)
    assert from_dict(getattr(models, MODELS[name]), to_dict(model)) == model


@pytest.mark.parametrize("name", FIXTURES)
def test_xml_decoded_models_round_trip_through_to_dict(name: str) -> None:
    model = decode_xml(name)
    assert from_dict(getattr(models, MODELS[name]), to_dict(model)) == model


def test_datetimes_are_timezone_aware() -> None:
    moments = [
        getattr(model, field.name)
        for name in FIXTURES
        for model in walk(decode_json(name))
        for field in attrs.fields(type(model))
        if isinstance(getattr(model, field.name), datetime.datetime)
    ]
    assert moments
    assert all(moment.tzinfo is not None for moment in moments)


def test_a_naive_datetime_stays_naive() -> None:
    policy = from_dict(
        SubsidyAccessPolicy,
        {**required(SubsidyAccessPolicy), "subsidy_active_datetime": "2026-11-22T21:16:18.795991"},
    )
    assert policy.subsidy_active_datetime == datetime.datetime(2026, 11, 22, 21, 16, 18, 795991)
    assert policy.subsidy_active_datetime.tzinfo is None


def test_a_naive_datetime_is_written_back_as_sent() -> None:
    sent = {"key": "course-v1:edX+DemoX+1T2026", "start": "2026-11-22T21:16:18"}
    assert to_dict(from_dict(CourseRun, sent)) == sent


def test_a_date_alone_where_a_datetime_is_declared_is_kept_as_sent(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="enterprise_async"):
        plan = from_dict(SubscriptionPlan, {**required(SubscriptionPlan), "start_date": "2020-12-01"})
    assert plan.start_date == "2020-12-01"
    (record,) = caplog.records
    assert (record.sdk_path, record.sdk_declared) == ("start_date", "datetime")
    assert record.sdk_value == "2020-12-01"


def test_a_datetime_where_a_date_is_declared_is_kept_as_sent(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="enterprise_async"):
        summary = from_dict(
            LearnerSummary, {**required(LearnerSummary), "passed_date": "2025-02-20T16:27:34Z"}
        )
    assert summary.passed_date == "2025-02-20T16:27:34Z"
    (record,) = caplog.records
    assert (record.sdk_path, record.sdk_declared) == ("passed_date", "date")


def test_a_datetime_object_where_a_date_is_declared_keeps_its_time_of_day() -> None:
    moment = datetime.datetime(2025, 2, 20, 16, 27, tzinfo=datetime.timezone.utc)
    assert (
        from_dict(LearnerSummary, {**required(LearnerSummary), "passed_date": moment}).passed_date == moment
    )


def test_datetimes_with_z_and_odd_fractions_parse() -> None:
    run = from_dict(
        CourseRun,
        {
            **required(CourseRun),
            "start": "2025-01-10T12:00:00.5Z",
            "end": "2025-01-10T12:00:00.1234567+02:00",
        },
    )
    assert run.start == datetime.datetime(2025, 1, 10, 12, 0, 0, 500000, tzinfo=datetime.timezone.utc)
    assert run.end is not None
    assert run.end.utcoffset() == datetime.timedelta(hours=2)


def test_dates_are_dates() -> None:
    summary = from_dict(
        LearnerSummary,
        {**required(LearnerSummary), "enrollment_date": "2025-12-31", "passed_date": "2025-02-20"},
    )
    assert summary.enrollment_date == datetime.date(2025, 12, 31)
    assert summary.passed_date == datetime.date(2025, 2, 20)


def test_decimal_strings_and_numbers_are_decimals() -> None:
    summary = from_dict(
        LearnerSummary, {**required(LearnerSummary), "amount_learner_paid": "12.10", "current_grade": 0.87}
    )
    assert summary.amount_learner_paid == decimal.Decimal("12.10")
    assert summary.current_grade == decimal.Decimal("0.87")


def test_created_and_updated_decode_as_lists_of_assignments() -> None:
    result = decode_json("allocation_result")
    assert isinstance(result, AllocationResult)
    assert [type(item) for item in result.created] == [Assignment]
    assert isinstance(result.updated, list)
    assert result.updated[0].state == AssignmentState.ERRORED


@pytest.mark.parametrize("wire", [3, "3"])
def test_created_and_updated_decode_as_declared_integers(wire: Any) -> None:
    result = from_dict(
        AllocationResult, {**required(AllocationResult), "created": wire, "updated": 0, "no_change": []}
    )
    assert result.created == 3
    assert result.updated == 0


def test_allocation_lists_missing_or_empty_in_xml_are_empty_lists() -> None:
    xml = b"<root><created></created><updated></updated><no_change></no_change></root>"
    result = from_dict(AllocationResult, parse_drf_xml(xml))
    assert (result.created, result.updated, result.no_change) == ([], [], [])


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ({"applied": 2, "remaining": 8}, Revocations(applied=2, remaining=8)),
        (
            {"total": 20, "used": 5, "applied": 5, "remaining": 15},
            Revocations(total=20, used=5, applied=5, remaining=15),
        ),
        (True, True),
        (False, False),
        (None, None),
    ],
)
def test_revocations_decode_as_object_boolean_or_null(wire: Any, expected: Any) -> None:
    assert (
        from_dict(SubscriptionPlan, {**required(SubscriptionPlan), "revocations": wire}).revocations
        == expected
    )


def test_revocations_as_xml_boolean_text() -> None:
    plan = from_dict(
        SubscriptionPlan,
        parse_drf_xml(
            b"<root><title>Plan</title><uuid>p</uuid><start_date>2024-01-01T00:00:00Z</start_date>"
            b"<expiration_date>2025-01-01T00:00:00Z</expiration_date><enterprise_catalog_uuid>c"
            b"</enterprise_catalog_uuid><is_active>True</is_active><is_current>True</is_current>"
            b"<created>2023-12-01T00:00:00Z</created><plan_type>Standard Paid</plan_type>"
            b"<salesforce_opportunity_line_item></salesforce_opportunity_line_item>"
            b"<revocations>False</revocations></root>"
        ),
    )
    assert plan.revocations is False


def test_original_image_is_a_url_or_an_image() -> None:
    assert (
        from_dict(
            Course, {**required(Course), "original_image": "https://cdn.example.org/x.jpg"}
        ).original_image
        == "https://cdn.example.org/x.jpg"
    )
    image = from_dict(
        Course,
        {**required(Course), "original_image": {"src": "https://cdn.example.org/x.jpg", "height": "100"}},
    ).original_image
    assert isinstance(image, models.Image)
    assert image.height == 100


def test_expires_in_given_as_a_string_is_an_integer() -> None:
    token = from_dict(AccessToken, json_fixture("access_token"))
    assert token.expires_in == 3600


@pytest.mark.parametrize("reason", ["email_error", {"code": "bounced", "detail": "Mailbox full"}])
def test_error_reason_is_a_string_or_an_object(reason: Any) -> None:
    assignment = from_dict(
        Assignment,
        {
            **required(Assignment),
            "error_reason": reason,
            "actions": [{**required(AssignmentAction), "error_reason": reason}],
        },
    )
    assert assignment.error_reason == reason
    assert assignment.actions[0].error_reason == reason


@pytest.mark.parametrize(
    ("wire", "member"), [("Intermediate", LevelType.INTERMEDIATE), ("high_school", LevelType.HIGH_SCHOOL)]
)
def test_level_type_matches_whatever_its_capitalisation(wire: str, member: LevelType) -> None:
    assert from_dict(CourseRun, {**required(CourseRun), "level_type": wire}).level_type is member
    assert from_dict(Course, {**required(Course), "level_type": wire}).level_type is member


@pytest.mark.parametrize("wire", ["self_paced", "self-paced", "Self-Paced"])
def test_pacing_type_with_underscores_matches(wire: str) -> None:
    assert (
        from_dict(CourseRun, {**required(CourseRun), "pacing_type": wire}).pacing_type
        is PacingType.SELF_PACED
    )


def test_program_types_outside_the_enum_are_kept_as_strings() -> None:
    program = from_dict(Program, {**required(Program), "type": "Doctorate"})
    assert program.type == "Doctorate"
    assert not isinstance(program.type, ProgramType)
    assert from_dict(Program, {**required(Program), "type": "XSeries"}).type is ProgramType.X_SERIES


def test_unknown_enum_values_survive_to_dict() -> None:
    run = from_dict(
        CourseRun,
        {
            **required(CourseRun),
            "availability": "Starting Soon",
            "program_types": ["MicroBachelors", "XSeries"],
        },
    )
    assert run.availability == "Starting Soon"
    assert run.program_types == ["MicroBachelors", ProgramType.X_SERIES]
    data = to_dict(run)
    assert data["availability"] == "Starting Soon"
    assert data["program_types"] == ["MicroBachelors", "XSeries"]


def test_a_member_equals_the_value_decoded_from_any_spelling_of_it() -> None:
    assert (
        from_dict(CourseRun, {**required(CourseRun), "level_type": "Intermediate"}).level_type
        == LevelType.INTERMEDIATE
    )


def test_models_decoded_from_two_spellings_of_one_value_are_equal() -> None:
    assert from_dict(CourseRun, {**required(CourseRun), "pacing_type": "self_paced"}) == from_dict(
        CourseRun, {**required(CourseRun), "pacing_type": "Self-Paced"}
    )


def test_models_decoded_from_two_spellings_keep_their_own_in_to_dict() -> None:
    runs = [
        from_dict(CourseRun, {**required(CourseRun), "level_type": spelling})
        for spelling in ("Intermediate", "intermediate")
    ]
    assert [to_dict(run)["level_type"] for run in runs] == ["Intermediate", "intermediate"]


def test_values_decoded_from_two_spellings_hash_alike() -> None:
    runs = [
        from_dict(CourseRun, {**required(CourseRun), "level_type": spelling})
        for spelling in ("Intermediate", "INTERMEDIATE")
    ]
    assert len({run.level_type for run in runs}) == 1


def test_members_hash_like_the_services_spelling_they_equal() -> None:
    assert hash(LevelType.INTERMEDIATE) == hash("Intermediate")
    assert {LevelType.INTERMEDIATE: "found"}["Intermediate"] == "found"
    assert {"Intermediate": "found"}[LevelType.INTERMEDIATE] == "found"


def test_a_decoded_level_equals_the_spelling_the_services_send() -> None:
    course = from_dict(Course, {**required(Course), "level_type": "Intermediate"})
    assert course.level_type == "Intermediate"
    assert course.level_type is LevelType.INTERMEDIATE


def test_a_decoded_pacing_equals_the_spelling_the_services_send() -> None:
    run = from_dict(CourseRun, {**required(CourseRun), "pacing_type": "instructor_paced"})
    assert run.pacing_type == "instructor_paced"
    assert run.pacing_type is PacingType.INSTRUCTOR_PACED


def test_a_members_equality_and_hash_agree_for_every_documented_value() -> None:
    for enum in (LevelType, PacingType, AssignmentState, Availability, ProgramType):
        for member in enum:
            assert member == member.value
            assert hash(member) == hash(member.value)
            assert member in {member.value}
            assert member.value in {member}


def test_the_references_spelling_finds_the_member_without_equalling_it() -> None:
    assert LevelType("intermediate") is LevelType.INTERMEDIATE
    assert (
        from_dict(CourseRun, {**required(CourseRun), "pacing_type": "self-paced"}).pacing_type
        is PacingType.SELF_PACED
    )
    assert LevelType.INTERMEDIATE != "intermediate"


def test_a_member_is_found_from_any_spelling() -> None:
    assert LevelType("Intermediate") is LevelType.INTERMEDIATE


def test_enum_members_compare_equal_to_their_wire_values() -> None:
    assert AssignmentState.ALLOCATED == "allocated"
    assert Availability("current") is Availability.CURRENT


def test_unknown_fields_are_kept_in_extra_and_written_back() -> None:
    assignment = from_dict(
        Assignment,
        {
            **required(Assignment),
            "uuid": "u",
            "state": "allocated",
            "new_field": {"nested": [1, 2]},
            "flag": True,
        },
    )
    assert assignment.extra == {"new_field": {"nested": [1, 2]}, "flag": True}
    data = to_dict(assignment)
    assert data["new_field"] == {"nested": [1, 2]}
    assert data["flag"] is True
    assert from_dict(Assignment, data) == assignment


def test_missing_fields_decode_to_none_and_arrays_to_empty_lists() -> None:
    course = from_dict(
        Course,
        {
            **required(Course),
        },
    )
    assert course.title is None
    assert course.image is None
    assert course.level_type is None
    assert course.course_runs == []
    assert course.owners == []
    assert course.skill_names == []


def test_null_arrays_decode_to_empty_lists() -> None:
    assert from_dict(Course, {**required(Course), "course_runs": None, "watchers": None}).course_runs == []


def test_xml_one_element_list_stays_a_list() -> None:
    xml = (
        b"<root><key>edX+DemoX</key><watchers><list-item>a@example.org</list-item></watchers>"
        b"<owners><list-item><uuid>o</uuid><key>MITx</key></list-item></owners></root>"
    )
    course = from_dict(Course, parse_drf_xml(xml))
    assert course.watchers == ["a@example.org"]
    assert [owner.key for owner in course.owners] == ["MITx"]


def test_xml_text_is_coerced_by_field_type() -> None:
    xml = (
        b"<root><key>edX+DemoX</key><enrollment_count>42</enrollment_count><editable>False</editable>"
        b"<modified>2025-01-12T09:30:00Z</modified><title>1984</title></root>"
    )
    course = from_dict(Course, parse_drf_xml(xml))
    assert course.enrollment_count == 42
    assert course.editable is False
    assert course.modified == datetime.datetime(2025, 1, 12, 9, 30, tzinfo=datetime.timezone.utc)
    assert course.title == "1984"


def test_content_items_are_told_apart_by_shape() -> None:
    page = decode_json("catalog_contents_page")
    assert isinstance(page, CatalogContentsPage)
    assert [type(item) for item in page.results] == [Course, CourseRun, Program]


def test_flat_content_items_are_told_apart_by_content_type() -> None:
    page = decode_json("catalog_contents_flat")
    assert [type(item) for item in page.results] == [CourseRun, Program]
    assert page.uuid is not None
    assert page.title == "Acme all-access"


def test_learner_summary_decodes_with_or_without_an_envelope() -> None:
    page = decode_json("learner_summary_page")
    bare = decode_json("learner_summary_list")
    assert isinstance(page, LearnerSummaryPage)
    assert bare == page.results


def test_assignment_learner_states_are_enum_members() -> None:
    page = decode_json("assignment_page")
    assert [assignment.learner_state for assignment in page.results] == [
        LearnerState.WAITING,
        LearnerState.FAILED,
        None,
    ]


def test_a_value_of_the_wrong_type_is_kept_as_sent(caplog: pytest.LogCaptureFixture) -> None:
    course = from_dict(
        Course,
        {
            **required(Course),
            "course_runs": [{"key": "r1"}, {"key": "r2", "seats": [{"price": "ten dollars"}]}],
        },
    )
    assert course.course_runs[1].seats[0].price == "ten dollars"


def test_a_value_kept_as_sent_is_logged_with_model_path_and_declared_type(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.DEBUG, logger="enterprise_async"):
        from_dict(
            Course,
            {
                **required(Course),
                "course_runs": [{"key": "r1"}, {"key": "r2", "seats": [{"price": "ten dollars"}]}],
            },
        )
    (record,) = caplog.records
    assert (record.levelno, record.sdk_model, record.sdk_path, record.sdk_declared) == (
        logging.DEBUG,
        "Seat",
        "course_runs[1].seats[0].price",
        "Decimal",
    )


def test_an_object_where_a_list_is_due_is_kept_as_sent() -> None:
    assert from_dict(Course, {**required(Course), "owners": {"key": "MITx"}}).owners == {"key": "MITx"}


def test_one_odd_item_leaves_the_other_items_of_its_list_decoded() -> None:
    run = from_dict(CourseRun, {**required(CourseRun), "seats": [{"price": "10.00"}, "audit"]})
    assert run.seats == [models.Seat(price=decimal.Decimal("10.00")), "audit"]


def test_a_top_level_that_is_not_an_object_raises_decode_error() -> None:
    with pytest.raises(ResponseDecodeError, match="Course"):
        from_dict(Course, "course-v1:edX+DemoX")


def test_a_top_level_that_is_not_a_list_raises_decode_error() -> None:
    with pytest.raises(ResponseDecodeError):
        from_dict(list[Course], {"key": "a"})


def test_odd_items_of_a_top_level_list_are_kept_as_sent() -> None:
    assert from_dict(list[CourseRun], [{"key": "a"}, 7]) == [CourseRun(key="a"), 7]


def test_from_dict_reads_lists_of_models() -> None:
    runs = from_dict(list[CourseRun], [{"key": "a"}, {"key": "b"}])
    assert [run.key for run in runs] == ["a", "b"]


def test_structure_and_from_dict_use_the_same_converter() -> None:
    data = json_fixture("course")
    assert CONVERSION.structure(data, Course) == from_dict(Course, data)


def test_to_dict_of_a_hand_built_model_with_odd_values_is_still_json_ready() -> None:
    course = Course(
        key="edX+DemoX",
        title=5,  # type: ignore[arg-type]
        modified="2025-01-01",  # type: ignore[arg-type]
        level_type="Expert",
        owners=[{"key": "MITx"}],  # type: ignore[list-item]
        skill_names=("Python",),  # type: ignore[arg-type]
        extra={"when": datetime.date(2025, 1, 2)},
    )
    data = to_dict(course)
    assert orjson.loads(orjson.dumps(data)) == data
    assert data["owners"] == [{"key": "MITx"}]
    assert data["skill_names"] == ["Python"]
    assert data["when"] == "2025-01-02"


def test_to_dict_output_does_not_share_lists_with_the_model() -> None:
    course = from_dict(Course, {**required(Course), "skill_names": ["Python"]})
    to_dict(course)["skill_names"].append("SQL")
    assert course.skill_names == ["Python"]
