"""Decoded models behave like any Python object: their lists are lists, their ``extra`` a dict.

Each decoded model holds arrays and an ``extra`` of its own, which take ``append`` and item
assignment as a model built in code does; ``to_dict`` still writes each field as the server did.
"""

from __future__ import annotations

import copy
import pickle

from enterprise_async.models import Course, CourseRun, Program, from_dict, to_dict
from tests.openapi_spec import required

SENT = {"key": "edX+DemoX", "title": "Demo", "subjects": [], "course_runs": [], "prerequisites_raw": []}


def test_a_left_out_array_is_an_empty_list_that_takes_append() -> None:
    course = from_dict(Course, {**required(Course), "key": "x"})

    course.sponsors.append(1)

    assert course.sponsors == [1]
    assert type(course.sponsors) is list


def test_decoded_models_hold_arrays_of_their_own() -> None:
    first, second = (
        from_dict(Course, {**required(Course), "key": "a"}),
        from_dict(Course, {**required(Course), "key": "b"}),
    )

    first.course_runs.append(CourseRun(key="course-v1:a+b+c"))

    assert second.course_runs == []
    assert first.owners is not first.sponsors
    assert from_dict(Program, {**required(Program), "uuid": "p"}).courses == []


def test_an_array_sent_empty_is_a_list_of_its_own() -> None:
    course = from_dict(Course, SENT)

    course.subjects.append("x")

    assert course.course_runs == course.prerequisites_raw == []


def test_an_array_appended_to_is_written_back_with_its_items() -> None:
    course = from_dict(Course, {**required(Course), "key": "a"})
    course.course_runs.append(CourseRun(key="course-v1:a+b+d"))

    assert [run["key"] for run in to_dict(course)["course_runs"]] == ["course-v1:a+b+d"]


def test_to_dict_leaves_out_what_was_left_out_and_writes_empty_what_was_sent_empty() -> None:
    assert to_dict(from_dict(Course, SENT)) == SENT
    assert to_dict(from_dict(Course, {**required(Course), "key": "a"})) == {"key": "a"}
    assert to_dict(from_dict(Course, {**required(Course), "key": "a"}), every_field=True)["course_runs"] == []


def test_extra_is_a_dict_of_its_own_that_takes_new_fields() -> None:
    first, second = (
        from_dict(Course, {**required(Course), "key": "a"}),
        from_dict(Course, {**required(Course), "key": "b"}),
    )

    first.extra["region"] = "eu"

    assert type(first.extra) is dict
    assert second.extra == {}
    assert to_dict(first) == {"key": "a", "region": "eu"}


def test_fields_the_spec_lacks_are_kept_in_extra_and_written_back() -> None:
    course = from_dict(Course, {**required(Course), "key": "a", "region": "eu"})
    course.extra["tier"] = 1

    assert to_dict(course) == {"key": "a", "region": "eu", "tier": 1}


def test_copies_and_pickles_of_a_decoded_model_equal_it_and_write_back_the_same() -> None:
    course = from_dict(Course, SENT)

    for twin in (copy.copy(course), copy.deepcopy(course), pickle.loads(pickle.dumps(course))):
        assert twin == course
        assert to_dict(twin) == SENT


def test_a_decoded_model_equals_the_same_model_built_in_code() -> None:
    decoded = from_dict(Course, {**required(Course), "key": "x"})
    built = Course(key="x")

    decoded.sponsors.append("a")
    built.sponsors.append("a")

    assert decoded == built
