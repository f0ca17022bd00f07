"""The readers the generator writes read every object as the runtime's field-by-field reader does.

``_generated/readers.py`` takes the values a field mostly holds inline and hands the others to the
runtime's readers; ``_decoding.readers.model_reader`` reads a class the generator did not see with
those readers alone. For any object, odd values included, from JSON or from XML, both give the same
model, the same record of what was sent, the same ``to_dict``, drift findings and DEBUG records.
"""

from __future__ import annotations

import decimal
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import enterprise_async
from enterprise_async._decoding import DecodeError
from enterprise_async._decoding.readers import model_reader
from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._utils.xml import TextObject
from enterprise_async.models import Course, CourseRun, Seat, from_dict, to_dict
from tests.openapi_spec import required

_BASE: dict[str, Any] = {
    "key": "course-v1:edX+DemoX+1T2026",
    "start": "2026-01-05T10:00:00Z",
    "pacing_type": "self_paced",
    "level_type": "Intermediate",
    "weeks_to_complete": 6,
    "is_enrollable": True,
    "image": {"src": "https://example.com/a.png"},
    "seats": [{"type": "verified", "price": "149.00", "upgrade_deadline": "2026-02-01T00:00:00.250000Z"}],
    "video": {"src": "v"},
}

_ODD_VALUES = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.just("2026-01-05 10:00:00"),
    st.just("2026-01-05T10:00:00+00:00"),
    st.just("advanced"),
    st.just("Intermediate"),
    st.just("self-paced"),
    st.just("INSTRUCTOR_PACED"),
    st.just("high school"),
    st.just("Self_Paced"),
    st.just("149.00"),
    st.lists(st.one_of(st.text(max_size=3), st.integers(), st.just({"type": "verified"})), max_size=3),
    st.just({"type": "audit", "surprise": 1}),
    st.just({}),
)


@st.composite
def _variants(draw: Any) -> dict[str, Any]:
    """The base object with some fields changed to odd values, some left out, some unknown added."""
    variant = dict(_BASE)
    for key in draw(st.lists(st.sampled_from(sorted(_BASE)), unique=True)):
        variant[key] = draw(_ODD_VALUES)
    for key in draw(st.lists(st.sampled_from(sorted(_BASE)), unique=True, max_size=3)):
        del variant[key]
    for index in range(draw(st.integers(0, 2))):
        variant[f"unknown_{index}"] = draw(_ODD_VALUES)
    return variant


class _Messages(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _decoded(model: Any, data: Any) -> tuple[Any, str, Any, list[Any], list[str]]:
    """The model, its record, its ``to_dict``, the drift findings and the DEBUG records of a decode."""
    findings: list[Any] = []
    logger = logging.getLogger("enterprise_async")
    handler, level = _Messages(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        decoded = CONVERSION.structure(data, model, findings)
    except DecodeError as error:  # a required field left out or null: both readers refuse alike
        return type(error).__name__, str(error), None, findings, handler.messages
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    return decoded, repr(decoded._sdk_wire), to_dict(decoded), findings, handler.messages


@pytest.fixture(scope="module")
def both_readers() -> Iterator[tuple[Any, Any]]:
    """The generated reader of ``CourseRun``, and one that reads it field by field."""
    generated = CONVERSION.converter.get_structure_hook(CourseRun)
    field_by_field = model_reader(CONVERSION, CourseRun)
    yield generated, field_by_field
    CONVERSION.converter.register_structure_hook(CourseRun, generated)


def _read_with(reader: Any, data: Any) -> tuple[Any, str, Any, list[Any], list[str]]:
    CONVERSION.converter.register_structure_hook(CourseRun, reader)
    return _decoded(CourseRun, data)


def _as_read_from_xml(value: Any) -> Any:
    """``value`` as the XML reader gives it: objects as ``TextObject``, numbers and booleans as text."""
    if isinstance(value, dict):
        return TextObject({key: _as_read_from_xml(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_as_read_from_xml(item) for item in value]
    return value if value is None or isinstance(value, str) else str(value)


@settings(max_examples=150, deadline=None)
@given(variant=_variants())
def test_a_generated_reader_reads_an_object_as_the_field_by_field_reader(
    both_readers: tuple[Any, Any], variant: dict[str, Any]
) -> None:
    generated, field_by_field = both_readers

    assert _read_with(generated, dict(variant)) == _read_with(field_by_field, dict(variant))


@settings(max_examples=100, deadline=None)
@given(variant=_variants())
def test_a_generated_reader_reads_an_xml_object_as_the_field_by_field_reader(
    both_readers: tuple[Any, Any], variant: dict[str, Any]
) -> None:
    generated, field_by_field = both_readers
    sent = _as_read_from_xml(variant)

    assert _read_with(generated, sent) == _read_with(field_by_field, sent)


def test_an_array_item_that_is_no_object_is_kept_as_sent(caplog: Any) -> None:
    sent = dict(_BASE) | {"seats": [{"type": "audit"}, "not an object"]}

    with caplog.at_level(logging.DEBUG, logger="enterprise_async"):
        decoded = from_dict(CourseRun, sent)

    assert decoded.seats[0] == Seat(type="audit")
    assert decoded.seats[1] == "not an object"
    assert decoded.extra == {}
    assert any("seats" in record.getMessage() for record in caplog.records)
    assert to_dict(decoded) == sent


def test_an_xml_object_reads_as_the_json_one() -> None:
    sent = {"key": "k", "weeks_to_complete": 6, "is_enrollable": True}

    from_xml = from_dict(CourseRun, TextObject(key="k", weeks_to_complete="6", is_enrollable="true"))

    assert from_xml == from_dict(CourseRun, sent)
    assert to_dict(from_xml) == sent


_is_text = attrs.validators.instance_of(str)


def test_a_class_the_generator_did_not_see_is_read_through_its_init() -> None:
    @attrs.define(kw_only=True)
    class Checked:
        name: str | None = attrs.field(default=None, validator=attrs.validators.optional(_is_text))
        price: decimal.Decimal | None = None
        extra: dict[str, Any] = attrs.field(factory=dict)
        _sdk_wire: Any = attrs.field(default=None, init=False, eq=False, repr=False)

    sent = {"name": "Intro", "price": "1.50", "surprise": 1}

    decoded = from_dict(Checked, dict(sent))

    assert decoded.price == decimal.Decimal("1.50")
    assert decoded.extra == {"surprise": 1}
    assert to_dict(decoded) == sent


def test_the_package_compiles_no_code_while_it_runs() -> None:
    package = Path(enterprise_async.__file__).parent
    compiling = re.compile(r"(?<![\w.])(exec|compile)\(|__code__|linecache")  # not re.compile(
    found = [
        f"{path.relative_to(package)}: {match.group()}"
        for path in sorted(package.rglob("*.py"))
        for match in compiling.finditer(path.read_text(encoding="utf-8"))
    ]

    assert found == []


@pytest.mark.parametrize(
    "image",
    [
        "https://example.com/a.png",
        {"src": "https://example.com/a.png", "height": 10},
        {"src": "s", "height": "10", "surprise": 1},
        {"height": 10},  # the image's required src left out
        TextObject({"src": "s", "height": "10"}),
        12,
        None,
    ],
    ids=repr,
)
@pytest.mark.parametrize("pacing", ["self_paced", "self-paced", "SELF PACED", "Self-Paced", "slow", 3])
def test_a_text_or_model_field_and_an_enum_spelling_read_as_the_field_by_field_reader(
    image: Any, pacing: Any
) -> None:
    """A course's ``original_image`` (``str | Image``) and a run's ``pacing_type`` in another
    spelling are taken by the generated reader's own branches: the model, its record, its
    ``to_dict``, the drift and the log are those of the field-by-field reader."""
    run = {"key": "course-v1:edX+DemoX+1T2026", "pacing_type": pacing}
    course = {**required(Course), "original_image": image, "course_runs": [run]}
    generated = {cls: CONVERSION.converter.get_structure_hook(cls) for cls in (Course, CourseRun)}
    try:
        by_generated = _decoded(Course, dict(course))
        for cls in generated:
            CONVERSION.converter.register_structure_hook(cls, model_reader(CONVERSION, cls))
        by_fields = _decoded(Course, dict(course))
    finally:
        for cls, hook in generated.items():
            CONVERSION.converter.register_structure_hook(cls, hook)
    assert by_generated == by_fields
