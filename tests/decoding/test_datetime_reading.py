"""Datetimes in the form most services send (``2026-01-05T10:00:00Z``) are read in one step; any other
form still goes through the lenient reader, and every form is written back as sent."""

from __future__ import annotations

import datetime

import pytest

from enterprise_async.models import Course, from_dict, to_dict
from tests.openapi_spec import required


def test_a_utc_datetime_in_whole_seconds_is_an_aware_utc_datetime_written_back_as_sent() -> None:
    course = from_dict(Course, {**required(Course), "key": "a", "modified": "2026-01-05T10:00:00Z"})

    assert course.modified == datetime.datetime(2026, 1, 5, 10, tzinfo=datetime.timezone.utc)
    assert to_dict(course) == {"key": "a", "modified": "2026-01-05T10:00:00Z"}


@pytest.mark.parametrize(
    "sent",
    [
        "2026-W02-1T10:00:00Z",  # an ISO week date, as long as the common form
        "2026-01-05T100000.1Z",  # a basic-format time with a fraction, as long too
        "2026-01-05T100000.0Z",  # the same, a whole second
        "2026-01-05T10:00:00+00:00",
        "2026-01-05T10:00:00.250000Z",
        "2026-01-05T10:00:00",
    ],
)
def test_datetimes_in_other_forms_are_written_back_as_sent(sent: str) -> None:
    course = from_dict(Course, {**required(Course), "key": "a", "modified": sent})

    assert to_dict(course) == {"key": "a", "modified": sent}


def test_text_shaped_like_the_common_form_that_is_no_datetime_is_kept_as_sent() -> None:
    course = from_dict(Course, {**required(Course), "key": "a", "modified": "2026-13-45T10:00:00Z"})

    assert course.modified == "2026-13-45T10:00:00Z"
    assert to_dict(course) == {"key": "a", "modified": "2026-13-45T10:00:00Z"}
