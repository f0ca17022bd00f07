"""The compiled structuring functions take the common values without their field's reader, and
build models slot by slot: the result is the same as the readers' and ``__init__``'s, always."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import attrs
import orjson
from hypothesis import given
from hypothesis import strategies as st

from enterprise_async._decoding.emitter import fills_slots
from enterprise_async._decoding.empty import EMPTY_EXTRA
from enterprise_async._decoding.exact import READ_DATETIMES, exact_decimal, read_utc_datetime, utc_datetime
from enterprise_async._decoding.failure import DecodeError
from enterprise_async._decoding.keys import parser_key
from enterprise_async._decoding.registry import converter
from enterprise_async._decoding.scalars import SCALAR_HOOKS
from enterprise_async._decoding.writers import json_datetime
from enterprise_async.models import Course, CourseRun, LevelType, PacingType, Seat, from_dict, to_dict

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


_is_text = attrs.validators.instance_of(str)


def test_a_model_that_validates_or_finishes_itself_is_built_through_its_init() -> None:
    @attrs.define(kw_only=True)
    class Checked:
        name: str | None = attrs.field(default=None, validator=attrs.validators.optional(_is_text))
        extra: dict[str, Any] = attrs.field(factory=dict)
        _sdk_wire: Any = attrs.field(default=None, init=False, eq=False, repr=False)

    @attrs.define(kw_only=True)
    class Finished:
        name: str | None = None
        extra: dict[str, Any] = attrs.field(factory=dict)
        seen: list[str] = attrs.field(factory=list, init=False)
        _sdk_wire: Any = attrs.field(default=None, init=False, eq=False, repr=False)

        def __attrs_post_init__(self) -> None:
            self.seen.append("post-init")

    assert fills_slots(Seat)
    assert not fills_slots(Checked)
    assert not fills_slots(Finished)
    assert from_dict(Finished, {"name": "a"}).seen == ["post-init"]
    assert from_dict(Checked, {"name": "a"}).name == "a"


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

    run = from_dict(CourseRun, {"level_type": text, "pacing_type": text})

    assert run.level_type is read or (run.level_type == read and read.__class__ is str)
    assert run.pacing_type is read_pacing or (run.pacing_type == read_pacing and read_pacing.__class__ is str)
    assert to_dict(run) == {"level_type": text, "pacing_type": text}


def test_a_model_rebuilt_for_an_odd_array_item_still_shares_the_empty_extra() -> None:
    course = from_dict(Course, {"key": "edX+DemoX", "course_runs": ["not an object"]})

    assert course.extra is EMPTY_EXTRA
    assert to_dict(course) == {"key": "edX+DemoX", "course_runs": ["not an object"]}


def test_a_field_is_looked_up_with_the_key_object_the_json_parser_gives_for_its_name() -> None:
    key = parser_key("organization_logo_image_url")

    assert key == "organization_logo_image_url"
    assert key is next(iter(orjson.loads(b'{"organization_logo_image_url": 1}')))


@given(
    st.datetimes(min_value=datetime.datetime(1000, 1, 1), timezones=st.just(_UTC)), st.sampled_from(_FORMS)
)
def test_a_datetime_read_again_is_looked_up_and_equals_its_parse(
    moment: datetime.datetime, form: Any
) -> None:
    text = form(moment)
    read = _parsed(_read_datetime, text)

    first = from_dict(Seat, {"upgrade_deadline": text})
    again = from_dict(Seat, {"upgrade_deadline": text})

    assert again.upgrade_deadline == first.upgrade_deadline
    assert again.upgrade_deadline == (text if read is None else read)
    assert (text in READ_DATETIMES) is (utc_datetime(text) is not None)
    assert to_dict(again) == to_dict(first) == {"upgrade_deadline": text}


def test_the_datetimes_read_lately_are_held_up_to_a_bound() -> None:
    start = datetime.datetime(2000, 1, 1, tzinfo=_UTC)
    texts = [json_datetime(start + datetime.timedelta(minutes=minute)) for minute in range(10_000)]

    read = [read_utc_datetime(text) for text in texts]

    assert read == [start + datetime.timedelta(minutes=minute) for minute in range(10_000)]
    assert 0 < len(READ_DATETIMES) <= 4096
