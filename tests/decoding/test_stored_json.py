"""Catalog items as the services store and serve them: JSON that holds only what its service keys on.

enterprise-catalog serves each item's ``json_metadata`` as stored (``ContentMetadataSerializer``),
and edx-enterprise passes course-discovery's search documents on; neither guarantees a field inside
them but the content key (a course's or a run's ``key``, a program's ``uuid``) and the content type
(spec/README.md, "Required by a written rule"). Each shape below is built from what the services'
code and tests store: it decodes from JSON and from the XML the services' renderer writes, is
written back as sent, and a catalog holding it is listed whole. Without its content key the same
item is refused, naming the model and the field.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._utils.xml import render_drf_xml
from enterprise_async.errors import ResponseDecodeError
from enterprise_async.models import CatalogContentsPage, Course, CourseRun, Program, from_dict, to_dict
from enterprise_async.testing import Sandbox

EXECUTIVE_EDUCATION_COURSE: dict[str, Any] = {
    # enterprise-catalog's own test (enterprise_catalog/apps/api/v1/tests/test_views.py, the
    # exec-ed course of get_content_metadata) stores an entitlement with a mode and a sku alone;
    # the service reads no more of it (catalog/models.py, _get_exec_ed_2u_enrollment_url)
    "key": "HarvardX+LeadEx",
    "aggregation_key": "course:HarvardX+LeadEx",
    "uuid": "5b5e1c0a-9d2f-4c7e-8b1a-2f3e4d5c6b7a",
    "title": "Leadership in Practice",
    "content_type": "course",
    "course_type": "executive-education-2u",
    "entitlements": [{"mode": "paid-executive-education", "sku": "123456FW"}],
    "course_runs": [],
}
COURSE_WITHOUT_AN_IMAGE_SOURCE: dict[str, Any] = {
    # a card image whose source is not stored: course-discovery's image object is copied as it is,
    # and the integrated channels read its src with .get
    "key": "edX+NoCard",
    "aggregation_key": "course:edX+NoCard",
    "content_type": "course",
    "title": "A course without a card",
    "image": {"description": "Course card", "height": 480, "width": 640},
}
COURSE_OWNED_BY_AN_ORGANIZATION_WITHOUT_UUID: dict[str, Any] = {
    # an owner as enterprise-access reads it (get_partners: its name and logo_image_url) and
    # enterprise-catalog indexes it: no uuid, no key
    "key": "MITx+6.002x",
    "aggregation_key": "course:MITx+6.002x",
    "content_type": "course",
    "owners": [{"name": "MITx", "logo_image_url": "https://cdn.example.org/mitx.png"}],
    "subjects": [{"name": "Engineering"}],
}
PROGRAM_WITHOUT_A_TITLE: dict[str, Any] = {
    # enterprise-catalog's program factory (catalog/tests/factories.py: no key, the uuid is its
    # content key) without the title it stores from course-discovery
    "uuid": "0f9e8d7c-6b5a-4f3e-9d2c-1b0a9f8e7d6c",
    "aggregation_key": "program:0f9e8d7c-6b5a-4f3e-9d2c-1b0a9f8e7d6c",
    "content_type": "program",
    "type": "MicroMasters",
    "authoring_organizations": [{"name": "edX", "logo_image_url": "https://cdn.example.org/edx.png"}],
    "card_image_url": "https://cdn.example.org/program.jpg",
}
SPARSE_COURSE_RUN: dict[str, Any] = {
    # a run of course-discovery's search documents with a seat that has only its type, staff
    # named but without a uuid, and a subject's name alone
    "key": "course-v1:edX+DemoX+2T2024",
    "aggregation_key": "courserun:edX+DemoX",
    "content_type": "courserun",
    "availability": "Current",
    "seats": [{"type": "audit"}],
    "staff": [{"given_name": "Ada", "family_name": "Lovelace", "position": {"organization_name": "edX"}}],
}

SHAPES: dict[str, tuple[type[Any], dict[str, Any], str]] = {
    "executive education course": (Course, EXECUTIVE_EDUCATION_COURSE, "key"),
    "course without an image source": (Course, COURSE_WITHOUT_AN_IMAGE_SOURCE, "key"),
    "course owned by an organization without uuid": (
        Course,
        COURSE_OWNED_BY_AN_ORGANIZATION_WITHOUT_UUID,
        "key",
    ),
    "program without a title": (Program, PROGRAM_WITHOUT_A_TITLE, "uuid"),
    "sparse course run": (CourseRun, SPARSE_COURSE_RUN, "key"),
}
"""Each shape: the class its ``content_type`` names, the item, and its content key's field."""


def page(*items: dict[str, Any]) -> dict[str, Any]:
    return {"count": len(items), "next": None, "previous": None, "results": list(items)}


def from_json_and_xml(item: dict[str, Any]) -> tuple[Any, Any]:
    """The item read from a page of the catalog's contents in JSON, and in the XML the services write."""
    body = page(item)
    from_json = from_dict(CatalogContentsPage, copy.deepcopy(body))
    from_xml = from_dict(
        CatalogContentsPage, CONVERSION.read_drf_xml(render_drf_xml(body), CatalogContentsPage)
    )
    return from_json.results[0], from_xml.results[0]


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_stored_shape_decodes_from_json_and_xml_and_is_written_back_as_sent(name: str) -> None:
    model, item, _ = SHAPES[name]
    from_json, from_xml = from_json_and_xml(item)
    assert type(from_json) is model
    assert from_xml == from_json
    assert to_dict(from_json) == item
    assert to_dict(from_xml) == item
    assert from_dict(model, copy.deepcopy(item)) == from_json  # read alone, as a lookup by key answers it


def test_the_executive_education_entitlement_has_no_price_and_says_so() -> None:
    course = from_dict(Course, copy.deepcopy(EXECUTIVE_EDUCATION_COURSE))
    (entitlement,) = course.entitlements
    assert (entitlement.mode, entitlement.sku) == ("paid-executive-education", "123456FW")
    assert (entitlement.price, entitlement.currency) == (None, None)


def test_the_fields_inside_stored_json_that_were_left_out_read_as_none() -> None:
    image = from_dict(Course, copy.deepcopy(COURSE_WITHOUT_AN_IMAGE_SOURCE)).image
    assert image is not None
    assert (image.src, image.width) == (None, 640)
    (owner,) = from_dict(Course, copy.deepcopy(COURSE_OWNED_BY_AN_ORGANIZATION_WITHOUT_UUID)).owners
    assert (owner.uuid, owner.name) == (None, "MITx")
    assert from_dict(Program, copy.deepcopy(PROGRAM_WITHOUT_A_TITLE)).title is None
    run = from_dict(CourseRun, copy.deepcopy(SPARSE_COURSE_RUN))
    assert (run.seats[0].price, run.seats[0].currency, run.staff[0].uuid) == (None, None, None)
    assert run.staff[0].position is not None
    assert run.staff[0].position.title is None


@pytest.mark.parametrize("name", list(SHAPES))
def test_without_its_content_key_the_same_item_is_refused_naming_the_model_and_the_field(name: str) -> None:
    model, item, key = SHAPES[name]
    assert type(from_json_and_xml(item)[0]) is model  # with its key, the item is read
    keyless = {field: value for field, value in item.items() if field != key}
    expected = rf"{model.__name__}\.{key} is required and was left out"
    with pytest.raises(ResponseDecodeError, match=rf"results\[0\]: {expected}"):
        from_dict(CatalogContentsPage, page(keyless))
    with pytest.raises(ResponseDecodeError, match=rf"results\[0\]: {expected}"):
        from_dict(
            CatalogContentsPage, CONVERSION.read_drf_xml(render_drf_xml(page(keyless)), CatalogContentsPage)
        )
    with pytest.raises(ResponseDecodeError, match=expected):
        from_dict(model, keyless)


def test_the_content_type_names_the_class_whose_key_is_missing() -> None:
    """A run's fields under ``content_type: course`` are a course, read whole with its key (its owner
    named without a uuid), refused without it as a course."""
    as_course = {**SPARSE_COURSE_RUN, "content_type": "course", "owners": [{"name": "edX"}]}
    assert type(from_dict(CatalogContentsPage, page(as_course)).results[0]) is Course
    keyless = {field: value for field, value in as_course.items() if field != "key"}
    with pytest.raises(ResponseDecodeError, match=r"results\[0\]: Course\.key is required and was left out"):
        from_dict(CatalogContentsPage, page(keyless))


@pytest.mark.parametrize("response_format", ["json", "xml"])
async def test_a_catalog_holding_every_stored_shape_is_listed_whole(response_format: str) -> None:
    items = [item for _, item, _ in SHAPES.values()]
    async with Sandbox(seed=0) as sandbox, sandbox.client(response_format=response_format) as client:
        catalog = sandbox.data.catalogs[0].uuid
        sandbox.canned.add("catalogs.contents", page(*items))
        listed = await client.catalogs.contents(catalog).to_list()
    assert [type(item) for item in listed] == [model for model, _, _ in SHAPES.values()]
    assert [to_dict(item) for item in listed] == items
