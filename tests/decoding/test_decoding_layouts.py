"""Objects that share a layout (the same size, the same fields left out) are read by a function
compiled for it: the models, their records, the DEBUG records and the drift findings are the ones
the class's own function gives, whatever an object of that size holds."""

from __future__ import annotations

import datetime
import decimal
import logging
from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from enterprise_async._decoding import structure
from enterprise_async._decoding.layouts import _SIGHTINGS
from enterprise_async._decoding.registry import converter
from enterprise_async._xml import TextObject
from enterprise_async.models import LevelType, Seat, from_dict, to_dict


def _fresh_model() -> Any:
    """A model class of its own, so that no other test has compiled a layout for it."""

    @attrs.define(kw_only=True)
    class Sample:
        name: str | None = None
        when: datetime.datetime | None = None
        price: decimal.Decimal | None = None
        level: LevelType | str | None = None
        tags: list[str] = attrs.field(factory=list)
        seat: Seat | None = None
        seats: list[Seat] = attrs.field(factory=list)
        ready: bool = False
        extra: dict[str, Any] = attrs.field(factory=dict)
        _sdk_wire: Any = attrs.field(default=None, init=False, eq=False, repr=False)

    return Sample


_BASE: dict[str, Any] = {
    "name": "Intro",
    "when": "2026-01-05T10:00:00Z",
    "price": "149.00",
    "level": "Intermediate",
    "tags": ["a", "b"],
    "seat": {"type": "verified", "price": "10.00"},
    "seats": [{"type": "audit"}],
    "ready": True,
}

_ODD_VALUES = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.just("2026-01-05 10:00:00"),
    st.just("advanced"),
    st.just("Intermediate"),
    st.lists(st.one_of(st.text(max_size=3), st.integers(), st.just({"type": "verified"})), max_size=3),
    st.just({"type": "audit", "surprise": 1}),
    st.just({}),
)


_BASE_WITH_UNKNOWN = {key: value for key, value in _BASE.items() if key != "price"} | {"surprise": [1]}


@st.composite
def _same_size_variants(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """An object of a layout, and one as large: some fields changed, some left out for others."""
    base = draw(st.sampled_from([_BASE, _BASE_WITH_UNKNOWN]))
    variant = dict(base)
    for key in draw(st.lists(st.sampled_from(sorted(base)), unique=True)):
        variant[key] = draw(_ODD_VALUES)
    for index, key in enumerate(draw(st.lists(st.sampled_from(sorted(base)), unique=True, max_size=3))):
        del variant[key]
        variant[draw(st.sampled_from([f"unknown_{index}", key, "price"]))] = draw(_ODD_VALUES)
    return base, variant


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
        decoded = structure(data, model, findings)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    return decoded, repr(decoded._sdk_wire), to_dict(decoded), findings, handler.messages


def _layouts(model: Any, xml: bool = False) -> dict[int, Any]:
    """The fields left out by the layouts of ``model``, by size, of its JSON objects or its XML ones."""
    layouts = converter.get_structure_hook(model).__globals__["learn"].layouts
    return {size: left for (text, size), left in layouts.items() if text is xml}


def _as_read_from_xml(value: Any) -> Any:
    """``value`` as the XML reader gives it: objects as ``TextObject``, numbers and booleans as text."""
    if isinstance(value, dict):
        return TextObject({key: _as_read_from_xml(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_as_read_from_xml(item) for item in value]
    return value if value is None or isinstance(value, str) else str(value)


@settings(max_examples=150, deadline=None)
@given(objects=_same_size_variants())
def test_an_object_of_a_layouts_size_reads_as_the_classs_own_function_reads_it(
    objects: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    base, variant = objects
    model = _fresh_model()
    expected = _decoded(model, variant)
    for _ in range(_SIGHTINGS):
        from_dict(model, dict(base))
    assert len(base) in _layouts(model)

    assert _decoded(model, variant) == expected


@settings(max_examples=100, deadline=None)
@given(objects=_same_size_variants())
def test_an_xml_object_of_a_layouts_size_reads_as_the_classs_own_function_reads_it(
    objects: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    base, variant = (_as_read_from_xml(sent) for sent in objects)
    model = _fresh_model()
    expected = _decoded(model, variant)
    for _ in range(_SIGHTINGS):
        from_dict(model, _as_read_from_xml(base))
    assert len(base) in _layouts(model, xml=True)

    assert _decoded(model, variant) == expected


def test_objects_that_share_a_layout_are_read_by_a_function_compiled_for_it() -> None:
    model = _fresh_model()
    sent = {key: value for key, value in _BASE.items() if key != "price"}

    first = [from_dict(model, dict(sent)) for _ in range(_SIGHTINGS)]
    assert len(sent) in _layouts(model)
    later = from_dict(model, dict(sent))

    assert "layouts of size" in converter.get_structure_hook(model).__code__.co_filename
    assert later == first[0]
    assert later._sdk_wire is first[-1]._sdk_wire  # the record of the fields left out, shared
    assert to_dict(later) == sent


def test_a_layout_that_objects_of_its_size_keep_missing_is_dropped() -> None:
    model = _fresh_model()
    for _ in range(_SIGHTINGS):
        from_dict(model, dict(_BASE))
    other = {key: value for key, value in _BASE.items() if key != "name"} | {"surprise": 1}

    readings = [from_dict(model, dict(other)) for _ in range(100)]

    assert len(other) not in _layouts(model)
    assert all(reading.extra == {"surprise": 1} and to_dict(reading) == other for reading in readings)


def test_an_array_item_that_is_no_object_is_kept_as_sent_by_a_layout_too(caplog: Any) -> None:
    model = _fresh_model()
    for _ in range(_SIGHTINGS):
        from_dict(model, dict(_BASE))
    sent = dict(_BASE) | {"seats": [{"type": "audit"}, "not an object"]}

    with caplog.at_level(logging.DEBUG, logger="enterprise_async"):
        decoded = from_dict(model, sent)

    assert decoded.seats[0] == Seat(type="audit")
    assert decoded.seats[1] == "not an object"
    assert any("seats" in record.getMessage() for record in caplog.records)
    assert to_dict(decoded) == sent


def test_xml_objects_and_json_objects_have_layouts_of_their_own() -> None:
    model = _fresh_model()
    for _ in range(_SIGHTINGS):
        from_dict(model, TextObject(name="Intro", ready="true"))

    assert _layouts(model) == {}
    assert 2 in _layouts(model, xml=True)
    assert from_dict(model, {"name": "Intro", "ready": True}) == model(name="Intro", ready=True)
    assert to_dict(from_dict(model, TextObject(name="Intro", ready="true"))) == {
        "name": "Intro",
        "ready": True,
    }


def test_a_field_sent_where_a_layout_has_an_unknown_one_is_read_as_declared() -> None:
    model = _fresh_model()
    for _ in range(_SIGHTINGS):
        from_dict(model, dict(_BASE_WITH_UNKNOWN))
    sent = {key: value for key, value in _BASE_WITH_UNKNOWN.items() if key != "surprise"} | {"price": "1.50"}
    assert len(sent) in _layouts(model)

    decoded = from_dict(model, sent)

    assert decoded.price == decimal.Decimal("1.50")
    assert decoded.extra == {}
    assert to_dict(decoded) == sent


def test_a_layout_of_one_field_reads_it() -> None:
    model = _fresh_model()
    for _ in range(_SIGHTINGS):
        from_dict(model, {"name": "Intro"})
    assert 1 in _layouts(model)

    assert from_dict(model, {"name": "Other"}) == model(name="Other")
    assert to_dict(from_dict(model, {"level": "advanced"})) == {"level": "advanced"}


_is_text = attrs.validators.instance_of(str)


def test_a_model_built_through_its_init_is_built_the_same_by_its_layout() -> None:
    @attrs.define(kw_only=True)
    class Checked:
        name: str | None = attrs.field(default=None, validator=attrs.validators.optional(_is_text))
        price: decimal.Decimal | None = None
        extra: dict[str, Any] = attrs.field(factory=dict)
        _sdk_wire: Any = attrs.field(default=None, init=False, eq=False, repr=False)

    sent = {"name": "Intro", "price": "1.50", "surprise": 1}
    before = from_dict(Checked, dict(sent))
    for _ in range(_SIGHTINGS):
        from_dict(Checked, dict(sent))
    assert len(sent) in _layouts(Checked)

    after = from_dict(Checked, dict(sent))

    assert after == before
    assert after.extra == {"surprise": 1}
    assert to_dict(after) == sent
