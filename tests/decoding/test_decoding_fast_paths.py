"""The generated readers take the common values without their field's reader: the result is the
same as the readers', always."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from enterprise_async._decoding.exact import exact_decimal, utc_datetime
from enterprise_async._decoding.failure import DecodeError
from enterprise_async._decoding.scalars import SCALAR_HOOKS
from enterprise_async._decoding.writers import json_datetime
from enterprise_async.models import (
    Course,
    CourseRun,
    LevelType,
    PacingType,
    Seat,
    converter,
    from_dict,
    to_dict,
)
from tests.openapi_spec import required

_read_datetime = SCALAR_HOOKS[datetime.datetime]
_read_decimal = SCALAR_HOOKS[decimal.Decimal]

_UTC = datetime.timezone.utc
_FORMS = (
    lambda moment: json_datetime(moment),
    lambda moment: moment.isoformat(),
    lambda moment: moment.isoformat(sep=" ").replace("+00:00", "Z"),
    lambda moment: moment.isoformat(timespec="microseconds").replace("+00:00", "Z"),
    lambda moment: moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    lambda moment: moment.strftime("%Y%m%dT%H%M%S.%fZ")[:20],
    lambda moment: moment.strftime("%G-W%V-%uT%H:%M:%SZ"),
    lambda moment: json_datetime(moment).lower(),
)


def _parsed(read: Any, text: str) -> Any:
    try:
        return read(text)
    except DecodeError:  # what the reader refuses is kept as sent
        return None


@given(
    st.datetimes(min_value=datetime.datetime(1000, 1, 1), timezones=st.just(_UTC)),
    st.sampled_from(_FORMS),
)
def test_a_utc_datetime_is_taken_inline_exactly_when_it_is_written_back_as_sent(
    moment: datetime.datetime, form: Any
) -> None:
    text = form(moment)
    taken = utc_datetime(text)
    read = _parsed(_read_datetime, text)

    written_as_sent = read is not None and read.tzinfo is _UTC and json_datetime(read) == text
    assert (taken is not None) is written_as_sent
    if taken is not None:
        assert taken == read
        assert taken.tzinfo is _UTC


@given(st.decimals(allow_nan=True, allow_infinity=True), st.sampled_from((str, repr, lambda d: f" {d}")))
def test_a_decimal_is_taken_inline_exactly_when_it_is_written_back_as_sent(
    number: decimal.Decimal, form: Any
) -> None:
    text = form(number)
    taken = exact_decimal(text)
    read = _parsed(_read_decimal, text)

    assert (taken is not None) is (read is not None and str(read) == text)
    if taken is not None:
        assert taken == read


def test_odd_values_go_to_the_field_reader_and_keep_their_debug_record(caplog: Any) -> None:
    sent = {"price": "NaN", "upgrade_deadline": "2026-01-05 10:00:00Z", "type": "Verified", "sku": "A1"}

    with caplog.at_level("DEBUG", logger="enterprise_async"):
        seat = from_dict(Seat, sent)

    assert seat.price == "NaN"
    assert any("price" in record.getMessage() for record in caplog.records)
    assert seat.upgrade_deadline == datetime.datetime(2026, 1, 5, 10, tzinfo=_UTC)
    assert to_dict(seat) == sent


def test_fields_left_out_and_fields_unknown_are_told_apart_by_the_object_size() -> None:
    sent = {"key": "edX+DemoX", "title": None, "course_runs": None, "surprise": 1, "another": [2]}

    course = from_dict(Course, sent)

    assert course.extra == {"surprise": 1, "another": [2]}
    assert course.course_runs == []
    assert to_dict(course) == sent


@given(
    st.sampled_from([member.value for member in LevelType] + [member.value for member in PacingType]),
    st.sampled_from((str.lower, str.upper, str.title, str.capitalize, str.swapcase, lambda text: text)),
    st.sampled_from(("_", "-", " ")),
)
def test_an_enum_spelled_another_way_reads_as_its_reader_reads_it_and_is_written_back_as_sent(
    value: str, case: Any, joiner: str
) -> None:
    text = case(value).replace("_", joiner).replace("-", joiner)
    read = converter.get_structure_hook(LevelType | str)(text, LevelType | str)
    read_pacing = converter.get_structure_hook(PacingType | str)(text, PacingType | str)

    run = from_dict(CourseRun, {**required(CourseRun), "level_type": text, "pacing_type": text})

    assert run.level_type is read or (run.level_type == read and read.__class__ is str)
    assert run.pacing_type is read_pacing or (run.pacing_type == read_pacing and read_pacing.__class__ is str)
    assert to_dict(run) == {**required(CourseRun), "level_type": text, "pacing_type": text}


def test_a_model_with_an_odd_array_item_has_an_extra_of_its_own() -> None:
    course = from_dict(Course, {**required(Course), "key": "edX+DemoX", "course_runs": ["not an object"]})

    course.extra["region"] = "eu"

    assert to_dict(course) == {"key": "edX+DemoX", "course_runs": ["not an object"], "region": "eu"}


@given(
    st.datetimes(min_value=datetime.datetime(1000, 1, 1), timezones=st.just(_UTC)), st.sampled_from(_FORMS)
)
def test_a_datetime_read_twice_reads_the_same_and_equals_its_parse(
    moment: datetime.datetime, form: Any
) -> None:
    text = form(moment)
    read = _parsed(_read_datetime, text)

    first = from_dict(Seat, {**required(Seat), "upgrade_deadline": text})
    again = from_dict(Seat, {**required(Seat), "upgrade_deadline": text})

    assert again.upgrade_deadline == first.upgrade_deadline
    assert again.upgrade_deadline == (text if read is None else read)
    assert to_dict(again) == to_dict(first) == {"upgrade_deadline": text}
