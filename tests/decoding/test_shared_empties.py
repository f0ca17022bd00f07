"""Decoded models share one empty array and one empty ``extra``, which refuse to grow.

A real catalog item leaves out or sends empty a score of arrays; a list of its own for each
weighed a quarter of the item (B4, B8). The shared ones are lists and dicts like any other for
reading and comparing, refuse what would change every model at once, and ``to_dict`` still writes
each field as the server did.
"""

from __future__ import annotations

import copy
import pickle

import pytest

from enterprise_async.models import Course, CourseRun, Program, from_dict, to_dict

SENT = {"key": "edX+DemoX", "title": "Demo", "subjects": [], "course_runs": [], "prerequisites_raw": []}


def test_a_left_out_array_is_an_empty_list_shared_by_decoded_models() -> None:
    first, second = from_dict(Course, {"key": "a"}), from_dict(Course, {"key": "b"})

    assert first.course_runs == []
    assert isinstance(first.course_runs, list)
    assert first.course_runs is second.course_runs
    assert first.owners is second.sponsors


def test_an_array_sent_empty_is_the_same_shared_list() -> None:
    course = from_dict(Course, SENT)

    assert course.subjects == []
    assert course.subjects is course.course_runs is course.prerequisites_raw
    assert course.subjects is from_dict(Program, {"uuid": "p"}).courses


def test_adding_to_a_shared_empty_array_raises_a_type_error_that_says_what_to_do() -> None:
    course = from_dict(Course, {"key": "a"})

    for change in (
        lambda runs: runs.append(1),
        lambda runs: runs.extend([1]),
        lambda runs: runs.insert(0, 1),
        lambda runs: runs.__setitem__(slice(None), [1]),
        lambda runs: runs.__iadd__([1]),
    ):
        with pytest.raises(TypeError, match="assign the field a list of its own"):
            change(course.course_runs)
    assert course.course_runs == []
    assert from_dict(Course, {"key": "b"}).course_runs == []


def test_an_array_assigned_in_place_of_the_shared_one_is_written_back() -> None:
    course = from_dict(Course, {"key": "a"})
    course.course_runs = [CourseRun(key="course-v1:a+b+c")]
    course.course_runs.append(CourseRun(key="course-v1:a+b+d"))

    assert [run["key"] for run in to_dict(course)["course_runs"]] == ["course-v1:a+b+c", "course-v1:a+b+d"]


def test_to_dict_leaves_out_what_was_left_out_and_writes_empty_what_was_sent_empty() -> None:
    assert to_dict(from_dict(Course, SENT)) == SENT
    assert to_dict(from_dict(Course, {"key": "a"})) == {"key": "a"}
    assert to_dict(from_dict(Course, {"key": "a"}), every_field=True)["course_runs"] == []


def test_an_object_with_nothing_extra_shares_one_empty_extra_that_refuses_to_grow() -> None:
    first, second = from_dict(Course, {"key": "a"}), from_dict(Course, {"key": "b"})

    assert first.extra == {}
    assert first.extra is second.extra
    with pytest.raises(TypeError, match="assign the model's extra a dict of its own"):
        first.extra["region"] = "eu"
    with pytest.raises(TypeError, match="assign the model's extra a dict of its own"):
        first.extra.update(region="eu")
    assert second.extra == {}


def test_an_extra_assigned_in_place_of_the_shared_one_is_written_back() -> None:
    course = from_dict(Course, {"key": "a"})
    course.extra = {"region": "eu"}

    assert to_dict(course) == {"key": "a", "region": "eu"}


def test_fields_the_spec_lacks_get_an_extra_of_their_own() -> None:
    course = from_dict(Course, {"key": "a", "region": "eu"})
    course.extra["tier"] = 1

    assert to_dict(course) == {"key": "a", "region": "eu", "tier": 1}
    assert from_dict(Course, {"key": "b"}).extra == {}


def test_copies_and_pickles_of_a_decoded_model_equal_it_and_write_back_the_same() -> None:
    course = from_dict(Course, SENT)

    for twin in (copy.copy(course), copy.deepcopy(course), pickle.loads(pickle.dumps(course))):
        assert twin == course
        assert to_dict(twin) == SENT
        assert twin.owners is course.owners


def test_a_model_built_in_code_has_lists_and_extra_of_its_own() -> None:
    course = Course(key="a")
    course.course_runs.append(CourseRun(key="course-v1:a+b+c"))
    course.extra["region"] = "eu"

    assert Course(key="b").course_runs == []
    assert Course(key="b").extra == {}
