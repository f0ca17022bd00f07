"""Decoding state has an owner: a ``Conversion``, made explicitly, holds every hook, reader, union
rule and XML schema; importing a module changes no other module's state, and two conversions
share nothing either could change."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from enterprise_async._decoding import Conversion
from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._generated.readers import readers as generated_readers
from enterprise_async._spec import VariantRule
from enterprise_async.models import (
    CatalogContentsPage,
    ContentItem,
    Course,
    LevelType,
    Program,
    from_dict,
    to_dict,
)

# Every module of ``_decoding`` imported, then ``enterprise_async.models``: which module-level names
# of ``_decoding`` changed (rebound, or a container whose content changed)?
_SNAPSHOT = r"""
import importlib, json, pkgutil
import enterprise_async._decoding as package

names = [found.name for found in pkgutil.iter_modules(package.__path__)]
modules = [package] + [importlib.import_module(f"{package.__name__}.{name}") for name in names]

def snapshot():
    taken = {}
    for module in modules:
        for name, value in vars(module).items():
            content = repr(sorted(map(repr, value.items() if isinstance(value, dict) else value)))\
                if isinstance(value, (dict, list, set)) else ""
            taken[f"{module.__name__}.{name}"] = (id(value), content)
    return taken

before = snapshot()
import enterprise_async.models
from enterprise_async.models import Course, from_dict
from_dict(Course, {"key": "edX+DemoX", "title": "Demo"})
after = snapshot()
changed = [name for name in before.keys() | after.keys() if before.get(name) != after.get(name)]
print(json.dumps(sorted(changed)))
"""


def test_importing_the_models_changes_no_decoding_module() -> None:
    finished = subprocess.run(
        [sys.executable, "-c", _SNAPSHOT], capture_output=True, text=True, timeout=120, check=True
    )
    changed = json.loads(finished.stdout)
    # The caches keyed by a class alone (its fields) may fill on a decode; nothing else may change.
    class_keyed = {
        "enterprise_async._decoding.fields._FIELDS",
        "enterprise_async._decoding.fields._FIELD_NAMES",
        "enterprise_async._decoding.fields._PLANS",
        "enterprise_async._decoding.tolerance._MODEL_CLASSES",
        "enterprise_async._decoding.record._SHARED",
        "enterprise_async._decoding.record._LEFT_OUT",
    }
    assert sorted(set(changed) - class_keyed) == []


_COURSE_AS_PROGRAM = {
    ContentItem: VariantRule(discriminator="content_type", mapping={"course": Program}, markers=())
}
_SENT = {"content_type": "course", "key": "edX+DemoX", "uuid": "b7e9", "title": "Demo"}


def test_two_conversions_keep_their_own_union_rules() -> None:
    own = Conversion(readers=generated_readers, variants=lambda: _COURSE_AS_PROGRAM)

    assert type(own.from_dict(ContentItem, _SENT)) is Program
    assert type(from_dict(ContentItem, _SENT)) is Course  # the models' conversion, unchanged
    assert type(own.from_dict(ContentItem, _SENT)) is Program


def test_a_conversions_generated_readers_read_nested_unions_by_its_own_rules() -> None:
    page = {"count": 1, "next": None, "previous": None, "results": [_SENT]}
    own = Conversion(readers=generated_readers, variants=lambda: _COURSE_AS_PROGRAM)

    assert [type(item) for item in from_dict(CatalogContentsPage, page).results] == [Course]
    assert [type(item) for item in own.from_dict(CatalogContentsPage, page).results] == [Program]
    assert [type(item) for item in CONVERSION.from_dict(CatalogContentsPage, page).results] == [Course]


def test_a_reader_given_to_one_conversion_is_not_anothers() -> None:
    def read_course(data: Any, _: Any = None) -> Course:
        return Course(key=str(data["key"]).upper(), title="read by the test's reader")

    own = Conversion(readers=lambda conversion: {Course: read_course})

    assert own.from_dict(Course, _SENT).title == "read by the test's reader"
    assert from_dict(Course, _SENT).key == "edX+DemoX"
    assert from_dict(Course, _SENT).title == "Demo"


def test_a_hook_registered_on_one_converter_is_not_on_another() -> None:
    class Slug(str):
        """A type of the test's own."""

    own = Conversion()
    own.converter.register_structure_hook(Slug, lambda value, _: Slug(value.lower()))

    assert own.from_dict(list[Slug], ["A"]) == ["a"]
    assert from_dict(list[Slug], ["A"]) == ["A"]


def test_a_conversion_without_readers_reads_and_writes_models_field_by_field() -> None:
    plain = Conversion()
    course = plain.from_dict(Course, _SENT)

    assert course == from_dict(Course, _SENT)
    assert plain.to_dict(course) == to_dict(course) == _SENT


def test_the_public_from_dict_and_to_dict_round_trip() -> None:
    course = from_dict(Course, {**_SENT, "level_type": "Intermediate", "surprise": 1})

    assert course.level_type is LevelType.INTERMEDIATE
    assert course.extra == {"surprise": 1}
    assert to_dict(course) == {**_SENT, "level_type": "Intermediate", "surprise": 1}
