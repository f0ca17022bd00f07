"""Catalogs as openedx/enterprise-catalog serves them behind its gateway (issue 22): the rows of
spec/README.md's table "Where the services differ from the reference" about catalogs, each shown
through the public client against the sandbox."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from enterprise_async import APIStatusError, ClientValidationError, ContentMismatchError
from enterprise_async._utils.xml import parse_drf_xml
from enterprise_async.cli import export_catalogs
from enterprise_async.models import (
    Catalog,
    CatalogContentsPage,
    ContentItem,
    ContentMetadata,
    Course,
    CourseRun,
    LearnerPathway,
    Program,
    Video,
    from_dict,
    to_dict,
)
from enterprise_async.testing import DataSize, Sandbox
from tests.conftest import ScriptedAPI
from tests.fixtures import json_fixture, xml_fixture

CATALOG = "00000000-0000-4000-8000-000000000007"
"""A catalog id (a UUID, as every catalog's is) that the test's server does not know."""

CONTENTS = "catalogs.contents"


def _page_sizes(sandbox: Sandbox, operation: str) -> list[str | None]:
    """The ``page_size`` each request of ``operation`` sent (None: none sent)."""
    return [dict(entry.query).get("page_size") for entry in sandbox.requests.find(operation=operation)]


# ---------------------------------------------------------------------------------- page size


async def test_contents_send_the_page_size_the_service_reads(enterprise_sandbox: Sandbox) -> None:
    catalog = enterprise_sandbox.data.catalogs[0].uuid
    async with enterprise_sandbox.client() as client:
        pages = [page async for page in client.catalogs.contents(catalog, page_size=20).pages()]
    assert [len(page.results) for page in pages] == [20, 20, 5]
    assert _page_sizes(enterprise_sandbox, CONTENTS) == ["20", "20", "20"]


async def test_the_references_limit_is_sent_as_page_size(enterprise_sandbox: Sandbox) -> None:
    catalog = enterprise_sandbox.data.catalogs[0].uuid
    async with enterprise_sandbox.client() as client:
        page = await client.catalogs.contents(catalog, limit=30).first_page()
    (request,) = enterprise_sandbox.requests.find(operation=CONTENTS)
    assert len(page.results) == 30
    assert request.query == (("page_size", "30"),)


async def test_without_a_page_size_a_page_holds_the_services_ten(enterprise_sandbox: Sandbox) -> None:
    catalog = enterprise_sandbox.data.catalogs[0].uuid
    async with enterprise_sandbox.client() as client:
        page = await client.catalogs.contents(catalog).first_page()
    assert len(page.results) == 10


async def test_a_page_size_beyond_the_services_maximum_is_refused_before_sending(
    enterprise_sandbox: Sandbox,
) -> None:
    catalog = enterprise_sandbox.data.catalogs[0].uuid
    async with enterprise_sandbox.client() as client:
        with pytest.raises(ClientValidationError, match="page_size: must be <= 100"):
            client.catalogs.contents(catalog, page_size=500)
        with pytest.raises(ClientValidationError, match="limit: must be <= 100"):
            client.catalogs.contents(catalog, limit=101)
    assert not enterprise_sandbox.requests.find(operation=CONTENTS)


async def test_page_size_and_limit_together_are_refused(enterprise_sandbox: Sandbox) -> None:
    async with enterprise_sandbox.client() as client:
        with pytest.raises(ClientValidationError, match="limit: gives the page size again"):
            client.catalogs.contents(enterprise_sandbox.data.catalogs[0].uuid, page_size=20, limit=20)


async def test_to_list_reads_the_largest_pages_the_service_allows() -> None:
    async with Sandbox(size=DataSize(catalog_items=250)) as sandbox, sandbox.client() as client:
        items = await client.catalogs.contents(sandbox.data.catalogs[0].uuid).to_list()
        catalogs = await client.catalogs.list().to_list()
    assert len(items) == 250
    assert _page_sizes(sandbox, CONTENTS) == ["100", "100", "100"]
    # the token's customer's catalogs (enterprise-catalog enterprise_catalog_crud.py, get_queryset)
    mine = sandbox.data.catalogs_of(sandbox.data.customers[0].uuid)
    assert (len(catalogs), _page_sizes(sandbox, "catalogs.list")) == (len(mine), ["100"])


async def test_to_list_takes_another_page_size(enterprise_sandbox: Sandbox) -> None:
    catalog = enterprise_sandbox.data.catalogs[0].uuid
    async with enterprise_sandbox.client() as client:
        assert len(await client.catalogs.contents(catalog).to_list(page_size=20)) == 45
        with pytest.raises(ClientValidationError, match="page_size: must be <= 100"):
            await client.catalogs.contents(catalog).to_list(page_size=1000)
    assert _page_sizes(enterprise_sandbox, CONTENTS) == ["20", "20", "20"]


async def test_to_list_keeps_the_page_size_of_the_call(enterprise_sandbox: Sandbox) -> None:
    catalog = enterprise_sandbox.data.catalogs[0].uuid
    async with enterprise_sandbox.client() as client:
        assert len(await client.catalogs.contents(catalog, limit=15).to_list()) == 45
    assert _page_sizes(enterprise_sandbox, CONTENTS) == ["15", "15", "15"]


async def test_an_export_reads_catalogs_in_pages_of_a_hundred(tmp_path: Path) -> None:
    async with Sandbox(size=DataSize(catalog_items=250)) as sandbox, sandbox.client() as client:
        summary = await export_catalogs(client, tmp_path)
    mine = sandbox.data.catalogs_of(sandbox.data.customers[0].uuid)  # all the catalog list shows
    assert summary.items == 250 * len(mine)
    assert set(_page_sizes(sandbox, CONTENTS)) == {"100"}
    assert len(sandbox.requests.find(operation=CONTENTS)) == 3 * len(mine)


async def test_a_whole_catalog_takes_a_tenth_of_the_requests_it_took() -> None:
    """Before, every page held the service's default 10 (``limit`` never reached it); now
    ``to_list()`` asks for its maximum, 100."""
    async with Sandbox(size=DataSize(catalog_items=1000)) as sandbox, sandbox.client() as client:
        catalog = sandbox.data.catalogs[0].uuid
        one_by_one = [item async for item in client.catalogs.contents(catalog)]
        before = len(sandbox.requests.find(operation=CONTENTS))
        in_bulk = await client.catalogs.contents(catalog).to_list()
        after = len(sandbox.requests.find(operation=CONTENTS)) - before
    assert len(one_by_one) == len(in_bulk) == 1000
    assert (before, after) == (100, 10)


# ---------------------------------------------------------------------------------- content types
# Records as enterprise-catalog's ContentMetadataSerializer writes them (its factories' json_metadata,
# plus parent_content_key and content_last_modified); a video's factory record names no content_type.

PATHWAY = {
    "key": "pathway+0001",
    "aggregation_key": "learnerpathway:pathway+0001",
    "uuid": "8c0b4a2e-3f7d-4a51-9e0a-2b1f5c9d7e31",
    "title": "Data Engineer",
    "normalized_metadata": {"enroll_by_date": "2026-01-26T23:59:59Z"},
    "content_type": "learnerpathway",
    "name": "Data Engineer",
    "status": "active",
    "overview": "Pathway for a data engineer.",
    "published": True,
    "visible_via_association": True,
    "created": "2026-11-23T22:02:40Z",
    "card_image": {"card": {"url": "https://media.example.org/p.jpg", "width": 378, "height": 225}},
    "steps": [{"uuid": "0d8b", "min_requirement": 1, "courses": [{"key": "edX+DemoX"}], "programs": []}],
    "parent_content_key": None,
    "content_last_modified": "2026-11-23T22:02:40.957663Z",
}
VIDEO = {
    "key": "video+0042",
    "aggregation_key": "video:video+0042",
    "uuid": "5a1d3c4e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
    "title": "Welcome",
    "normalized_metadata": {"enroll_by_date": "2026-01-26T23:59:59Z"},
    "parent_content_key": "course-v1:edX+DemoX+2T2024",
    "content_last_modified": "2026-11-23T22:02:40.957663Z",
}


def test_a_learner_pathway_decodes_as_a_pathway() -> None:
    item = from_dict(ContentItem, PATHWAY)
    assert isinstance(item, LearnerPathway)
    assert not isinstance(item, CourseRun)
    assert item.steps[0].courses == [{"key": "edX+DemoX"}]
    assert to_dict(item.card_image) == PATHWAY["card_image"]
    assert to_dict(item) == PATHWAY


def test_a_video_record_without_content_type_is_generic_content_that_keeps_every_field() -> None:
    item = from_dict(ContentItem, VIDEO)
    assert type(item) is ContentMetadata
    assert not isinstance(item, (CourseRun, Course, Program))
    assert item.aggregation_key == "video:video+0042"
    assert item.parent_content_key == "course-v1:edX+DemoX+2T2024"
    assert to_dict(item) == VIDEO


def test_a_video_as_the_video_serializer_writes_it_decodes_as_a_video() -> None:
    video = {
        "edx_video_id": "a1b2",
        "client_video_id": "welcome.mp4",
        "video_usage_key": "block-v1:edX+DemoX+2T2024+type@video+block@a1b2",
        "title": "Welcome",
        "json_metadata": {"status": "Ready", "transcripts": ["en"]},
        "summary_transcripts": ["An introduction."],
        "parent_content_metadata": {"key": "course-v1:edX+DemoX+2T2024", "content_type": "courserun"},
        "skills": [{"skill_id": "s1", "name": "Data"}],
    }
    item = from_dict(ContentItem, video)
    assert isinstance(item, Video)
    assert item.skills[0].name == "Data"
    assert to_dict(item) == video


def test_a_video_naming_its_type_decodes_as_a_video() -> None:
    assert isinstance(from_dict(ContentItem, {**VIDEO, "content_type": "video"}), Video)


def test_an_unknown_content_type_is_never_taken_for_a_known_one() -> None:
    podcast = {"content_type": "podcast", "key": "pod+1", "title": "Talks", "seats": [], "course": "x"}
    item = from_dict(ContentItem, podcast)
    assert type(item) is ContentMetadata
    assert item.extra == {"seats": [], "course": "x"}
    assert to_dict(item) == podcast


# ---------------------------------------------------------------------------------- XML datetimes


@pytest.mark.parametrize(
    ("text", "written"),
    [
        # enterprise-catalog's XMLRenderer writes the datetimes it computes with str()...
        ("2026-11-23 22:02:40.957663+00:00", "2026-11-23T22:02:40.957663Z"),
        # ...and those of its records as the text they hold
        ("2026-11-23T22:02:40.957663+00:00", "2026-11-23T22:02:40.957663+00:00"),
        ("2026-11-23T22:02:40.957663Z", "2026-11-23T22:02:40.957663Z"),
    ],
)
def test_an_xml_datetime_in_any_form_the_renderers_write_decodes_to_the_same_value(
    text: str, written: str
) -> None:
    xml = f"<root><content_last_modified>{text}</content_last_modified></root>"
    from_xml = from_dict(Catalog, parse_drf_xml(xml.encode()))
    from_json = from_dict(Catalog, {"content_last_modified": "2026-11-23T22:02:40.957663Z"})
    assert from_xml == from_json
    assert to_dict(from_xml) == {"content_last_modified": written}


def test_an_xml_page_of_enterprise_catalog_writes_the_json_of_the_same_answer() -> None:
    from_xml = from_dict(
        CatalogContentsPage, parse_drf_xml(xml_fixture("catalog_contents_enterprise_catalog"))
    )
    from_json = from_dict(CatalogContentsPage, json_fixture("catalog_contents_enterprise_catalog"))
    assert from_xml == from_json
    assert to_dict(from_xml) == json_fixture("catalog_contents_enterprise_catalog")
    assert [type(item).__name__ for item in from_xml.results] == [
        "Course",
        "LearnerPathway",
        "Video",
        "ContentMetadata",
    ]


# ---------------------------------------------------------------------------------- lookups by key


@pytest.fixture
async def catalog_service() -> AsyncIterator[Sandbox]:
    """A sandbox serving catalogs as openedx/enterprise-catalog does."""
    async with Sandbox(catalog_service="enterprise-catalog") as sandbox:
        yield sandbox


def _nested_run(sandbox: Sandbox) -> tuple[str, str, str]:
    """A catalog, a course of it and the key of one of that course's runs."""
    catalog = sandbox.data.catalogs[0]
    course = sandbox.data.item(catalog, 0)
    return catalog.uuid, course["key"], course["course_runs"][0]["key"]


async def test_a_run_key_answered_with_its_course_raises_with_the_course(catalog_service: Sandbox) -> None:
    catalog, course_key, run_key = _nested_run(catalog_service)
    async with catalog_service.client() as client:
        with pytest.raises(ContentMismatchError) as raised:
            await client.catalogs.course_run(catalog, run_key)
    error = raised.value
    assert isinstance(error.received, Course)
    assert error.received.key == course_key
    assert error.expected == {"key": run_key, "content_type": "courserun"}
    assert f"asked for courserun {run_key!r} and the service answered course {course_key!r}" in str(error)


async def test_a_lookup_answering_the_item_asked_for_returns_it(catalog_service: Sandbox) -> None:
    catalog, course_key, _ = _nested_run(catalog_service)
    async with catalog_service.client() as client:
        course = await client.catalogs.course(catalog, course_key)
    assert (course.key, course.content_type) == (course_key, "course")
    assert isinstance(course, Course)


async def test_a_lookup_by_key_refused_in_xml_is_asked_once_more_in_json(
    catalog_service: Sandbox, caplog: pytest.LogCaptureFixture
) -> None:
    catalog, course_key, _ = _nested_run(catalog_service)
    caplog.set_level(logging.DEBUG, logger="enterprise_async")
    async with catalog_service.client(response_format="xml") as client:
        course = await client.catalogs.course(catalog, course_key)
        page = await client.catalogs.contents(catalog).first_page()
        assert client.response_format == "xml"
    accepted = [
        entry.headers.get("Accept") for entry in catalog_service.requests.find(operation="catalogs.course")
    ]
    assert accepted == ["application/xml", "application/json"]
    assert [entry.status for entry in catalog_service.requests.find(operation="catalogs.course")] == [
        406,
        200,
    ]
    (contents,) = catalog_service.requests.find(operation=CONTENTS)
    assert contents.headers.get("Accept") == "application/xml"
    assert course.key == course_key
    assert page.results
    (record,) = [record for record in caplog.records if "once more in JSON" in record.getMessage()]
    assert "catalogs.course" in record.getMessage()
    assert "406" in record.getMessage()


async def test_a_406_to_json_is_raised_without_asking_again(api: ScriptedAPI) -> None:
    path = f"/enterprise/v2/enterprise-catalogs/{CATALOG}/courses/edX+DemoX"
    api.json("GET", path, {"detail": "Could not satisfy the request Accept header."}, status=406)
    async with api.client() as client:
        with pytest.raises(APIStatusError, match="Could not satisfy the request Accept header") as raised:
            await client.catalogs.course(CATALOG, "edX+DemoX")
    assert raised.value.status == 406
    assert len(api.calls("GET", path)) == 1


async def test_a_406_still_refused_in_json_is_raised(api: ScriptedAPI) -> None:
    path = f"/enterprise/v2/enterprise-catalogs/{CATALOG}/courses/edX+DemoX"
    api.json("GET", path, {"detail": "Could not satisfy the request Accept header."}, status=406)
    async with api.client(response_format="xml") as client:
        with pytest.raises(APIStatusError) as raised:
            await client.catalogs.course(CATALOG, "edX+DemoX")
    assert raised.value.status == 406
    assert [call.headers.get("Accept") for call in api.calls("GET", path)] == [
        "application/xml",
        "application/json",
    ]


async def test_the_service_serves_pathways_and_videos_among_the_contents(catalog_service: Sandbox) -> None:
    catalog = catalog_service.data.catalogs[0]
    async with catalog_service.client(response_format="xml") as xml, catalog_service.client() as json:
        from_xml = await xml.catalogs.contents(catalog.uuid).to_list()
        from_json = await json.catalogs.contents(catalog.uuid).to_list()
    kinds = {type(item).__name__ for item in from_json}
    assert kinds == {"Course", "CourseRun", "Program", "LearnerPathway", "ContentMetadata"}
    videos = [item for item in from_json if isinstance(item, ContentMetadata)]
    assert all(item.aggregation_key and item.aggregation_key.startswith("video:") for item in videos)
    assert not any(isinstance(item, CourseRun) for item in videos)
    assert from_xml == from_json


async def test_a_contents_page_decodes_to_equal_models_from_json_and_from_xml(
    enterprise_sandbox: Sandbox,
) -> None:
    """The page's envelope too: XML carries every number as text, and the spec's types read
    `num_pages`, `current_page` and `start` back as the integers JSON sends."""
    catalog = enterprise_sandbox.data.catalogs[0].uuid
    async with (
        enterprise_sandbox.client() as json_client,
        enterprise_sandbox.client(response_format="xml") as xml_client,
    ):
        json_page = await json_client.catalogs.contents(catalog, page_size=20).first_page()
        xml_page = await xml_client.catalogs.contents(catalog, page_size=20).first_page()
    assert json_page.num_pages == xml_page.num_pages == 3
    assert (json_page.current_page, json_page.start) == (1, 0)
    assert json_page == xml_page
