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

import json
import logging
from pathlib import Path
from typing import Any

import attrs
import pytest

from enterprise_async._xml import parse_drf_xml, render_drf_xml
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

REAL = Path(__file__).parent / "fixtures" / "real" / "catalog_contents_page.json"


def raw_page() -> Any:
    return json.loads(REAL.read_text(encoding="utf-8"))


def test_a_real_shaped_page_decodes_every_item() -> None:
    page = from_dict(CatalogContentsPage, raw_page())
    assert [type(item).__name__ for item in page.results] == ["Course", "CourseRun", "Program", "Program"]


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
