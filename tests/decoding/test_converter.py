"""``models.converter`` is the one cattrs converter: the generated hooks are its own, a user's join them."""

from __future__ import annotations

from enterprise_async.models import Course, converter, from_dict, to_dict

SENT = {"key": "edX+DemoX", "title": "Demo", "level_type": "advanced", "course_runs": [{"key": "run"}]}


class Slug(str):
    """A type of the user's own."""


def test_the_converter_structures_a_model_as_from_dict_does() -> None:
    assert converter.structure(SENT, Course) == from_dict(Course, SENT)


def test_the_converter_unstructures_a_decoded_model_as_to_dict_does() -> None:
    assert converter.unstructure(from_dict(Course, SENT)) == to_dict(from_dict(Course, SENT)) == SENT


def test_a_hook_a_user_registers_is_used_by_from_dict() -> None:
    converter.register_structure_hook(Slug, lambda value, _: Slug(value.lower()))

    assert from_dict(list[Slug], ["A", "b"]) == ["a", "b"]
    assert all(type(slug) is Slug for slug in from_dict(list[Slug], ["A"]))
