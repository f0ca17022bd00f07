"""A catalog page shaped like the services' own data decodes, keeps every value and says where.

``tests/fixtures/real/catalog_contents_page.json`` is written for these tests; its values take the
shapes the services' data really has (openedx/enterprise-catalog: the content metadata fixture and
factories; openedx/course-discovery serializers), which the reference's types do not allow:

- ``prerequisites_raw`` is the raw text of a course's prerequisites, a string, where the reference
  declares an array;
- a run's ``logo_image_urls`` holds ``null`` for an organisation without a logo;
- spellings other than the reference's: ``"Intermediate"``, ``"self_paced"``, ``"instructor_paced"``,
  an ``availability`` of ``"current"``;
- an item of a content type the reference does not know (a learner pathway), with its own fields.
"""

from __future__ import annotations

import gc
import json
import logging
from pathlib import Path
from typing import Any

import attrs
import pytest

from enterprise_async import models
from enterprise_async._utils.xml import parse_drf_xml, render_drf_xml
from enterprise_async.models import (
    Availability,
    CatalogContentsPage,
    Course,
    CourseRun,
    LevelType,
    PacingType,
    from_dict,
    to_dict,
)
from tests.decoding.test_realdata import is_document

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "catalog_contents_page.json"


def raw_page() -> Any:
    return json.loads(REAL.read_text(encoding="utf-8"))


def test_a_real_shaped_page_decodes_every_item() -> None:
    page = from_dict(CatalogContentsPage, raw_page())
    kinds = [type(item).__name__ for item in page.results]
    assert kinds == ["Course", "CourseRun", "Program", "LearnerPathway"]


def test_values_the_declared_types_do_not_allow_are_kept_as_sent() -> None:
    course, run, *_ = from_dict(CatalogContentsPage, raw_page()).results
    assert isinstance(course, Course)
    assert isinstance(run, CourseRun)
    assert course.prerequisites_raw == "<p>High-school algebra and a taste for data.</p>"
    assert run.logo_image_urls == [None]


def test_the_other_values_of_the_same_items_are_decoded() -> None:
    course, run, *_ = from_dict(CatalogContentsPage, raw_page()).results
    assert course.level_type == LevelType.INTERMEDIATE
    assert course.course_runs[0].pacing_type == PacingType.SELF_PACED
    assert course.course_runs[0].availability == Availability.CURRENT
    assert run.first_enrollable_paid_seat_price == 149


def test_each_value_kept_as_sent_is_logged_with_its_model_path_and_declared_type(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.DEBUG, logger="enterprise_async"):
        from_dict(CatalogContentsPage, raw_page())
    found = sorted(
        (record.sdk_model, record.sdk_path, record.sdk_declared)
        for record in caplog.records
        if record.levelno == logging.DEBUG and hasattr(record, "sdk_path")
    )
    assert found == [("Course", "results[0].prerequisites_raw", "list[Any]")]


def test_a_real_shaped_page_is_written_back_exactly() -> None:
    raw = raw_page()
    assert to_dict(from_dict(CatalogContentsPage, raw)) == raw


def test_a_real_shaped_page_in_xml_decodes_to_the_same_documented_values() -> None:
    """Fields the spec does not describe stay text in XML (``"378"``); every documented one is equal."""
    from_json = from_dict(CatalogContentsPage, raw_page())
    from_xml = from_dict(CatalogContentsPage, parse_drf_xml(render_drf_xml(raw_page())))
    documented = [attrs.evolve(item, extra={}) for item in from_json.results]
    assert [attrs.evolve(item, extra={}) for item in from_xml.results] == documented


# -------------------------------------------------------------------- the services' own payloads

REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"


def real_records() -> list[Any]:
    """Every record of ``../shared/realdata/`` (relative to the repository's root) but the documents
    its models refuse (``tests/decoding/test_realdata.py``, ``DOCUMENTS``), or none."""
    if not REALDATA.is_dir():
        return []
    return [
        record
        for path in sorted(REALDATA.glob("*.json"))
        for record in json.loads(path.read_bytes())
        if not is_document(record)
    ]


def record_id(record: Any) -> str:
    return f"{record['model']}:{record['name'][:60]}"


needs_realdata = pytest.mark.skipif(
    not REALDATA.is_dir(), reason=f"the services' real payloads are not at {REALDATA} (../shared/realdata)"
)


@needs_realdata
@pytest.mark.parametrize("record", real_records(), ids=record_id)
def test_every_real_payload_decodes_and_is_written_back_as_sent(record: Any) -> None:
    model = getattr(models, record["model"])
    decoded = from_dict(model, record["payload"])
    assert to_dict(decoded) == record["payload"]
    assert from_dict(model, to_dict(decoded)) == decoded


@needs_realdata
def test_a_decoded_real_item_does_not_keep_the_object_it_was_read_from() -> None:
    """Models keep only what their values cannot say (fields left out, spellings): not the whole answer."""
    (payload,) = [record["payload"] for record in real_records() if record["name"] == "FAKE_COURSE_RUN"][:1]
    raw = json.loads(json.dumps(payload))
    run = from_dict(CourseRun, raw)
    assert not any(referrer is run or attrs.has(type(referrer)) for referrer in gc.get_referrers(raw))
    assert to_dict(run) == payload


# -------------------------------------------------------------------- values of the wrong type

WRONG_TYPES = {
    "key": "course-v1:edX+DemoX+Demo_Course",
    "title": 42,  # an integer where a string is declared
    "start": "2013-02-05T05:00:00Z",
    "level_type": "Intermediate",
    "transcript_languages": ["en-us", None, "fr"],  # a null inside a list of strings
    "image": "https://example.org/card.png",  # a string where an object is declared
    "seats": [{"type": "verified", "price": "149.00", "upgrade_deadline": None}],
}


def test_values_of_the_wrong_type_are_kept_as_sent_and_the_rest_is_decoded() -> None:
    run = from_dict(CourseRun, dict(WRONG_TYPES))
    assert run.title == "42"  # a number read as the text it is, as JSON and XML both send it
    assert run.transcript_languages == ["en-us", None, "fr"]
    assert run.image == "https://example.org/card.png"
    assert run.start is not None
    assert run.start.tzinfo is not None
    assert run.level_type == LevelType.INTERMEDIATE
    assert str(run.seats[0].price) == "149.00"


def test_values_of_the_wrong_type_are_written_back_as_sent() -> None:
    assert to_dict(from_dict(CourseRun, dict(WRONG_TYPES))) == WRONG_TYPES


def test_each_value_of_the_wrong_type_is_logged_with_its_path_and_declared_type(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.DEBUG, logger="enterprise_async"):
        from_dict(CourseRun, dict(WRONG_TYPES))
    found = sorted(
        (record.sdk_path, record.sdk_declared, record.sdk_value)
        for record in caplog.records
        if hasattr(record, "sdk_path")
    )
    assert found == [
        ("image", "Image", "https://example.org/card.png"),
        ("transcript_languages[1]", "str", None),
    ]


def test_a_value_of_the_wrong_type_inside_a_listing_keeps_its_neighbours_decoded() -> None:
    page = from_dict(
        CatalogContentsPage,
        {
            "count": 2,
            "next": None,
            "previous": None,
            "results": [dict(WRONG_TYPES, content_type="courserun")] * 2,
        },
    )
    assert [type(item) for item in page.results] == [CourseRun, CourseRun]
    assert all(item.image == "https://example.org/card.png" for item in page.results)
    assert all(item.seats[0].type == "verified" for item in page.results)
