"""XML read by a model in one pass from the element tree gives exactly the data of the two passes
it replaces (``parse_drf_xml`` then ``fill_empty_elements``), at once and in steps: the sandbox's
pages of every listing and item, the services' real payloads, and the shapes the renderer never
writes, which the one pass hands back to the two."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from enterprise_async import models
from enterprise_async._decoding.xml_reading import read_drf_xml, read_drf_xml_in_steps
from enterprise_async._decoding.xml_schema import fill_empty_elements
from enterprise_async._utils.xml import XMLDecodeError, parse_drf_xml, render_drf_xml
from enterprise_async.testing import DataSize, Sandbox
from tests.decoding.test_realdata import RECORDS


def in_steps(body: bytes, model: Any) -> tuple[Any, int]:
    """What the stepped reader returns, and the steps it took."""
    steps = read_drf_xml_in_steps(body, model)
    taken = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value, taken
        taken += 1


def assert_read_as_in_two_passes(body: bytes, model: Any) -> None:
    expected = fill_empty_elements(parse_drf_xml(body), model)
    once = read_drf_xml(body, model)
    stepped, _ = in_steps(body, model)
    assert once == expected
    assert stepped == expected
    assert orjson.dumps(once) == orjson.dumps(expected)  # the same keys in the same order, the same types


async def sandbox_bodies() -> list[tuple[bytes, Any]]:
    """The sandbox's answers in JSON, rendered as its XML, with the model each is read as."""
    async with Sandbox(seed=3, size=DataSize(catalog_items=60)) as sandbox:
        data = sandbox.data
        catalog = data.catalogs[0]
        async with sandbox.client() as client:
            raw = client.with_raw_response.catalogs
            course, program = data.first(catalog, "course")["key"], data.first(catalog, "program")["uuid"]
            answers: list[tuple[Any, Any]] = [
                (await raw.contents(catalog.uuid, page_size=60).first_page(), models.CatalogContentsPage),
                (await raw.course(catalog.uuid, course), models.Course),
                (await raw.program(catalog.uuid, program), models.Program),
            ]
    return [(render_drf_xml(orjson.loads(answer.content)), model) for answer, model in answers]


async def test_the_sandboxs_pages_and_items_read_in_one_pass_as_in_two() -> None:
    for body, model in await sandbox_bodies():
        assert_read_as_in_two_passes(body, model)


@pytest.mark.skipif(not RECORDS, reason="the services' real payloads (../shared/realdata) are not present")
def test_every_real_payload_reads_in_one_pass_as_in_two() -> None:
    for param in RECORDS:
        record = param.values[0]
        assert_read_as_in_two_passes(render_drf_xml(record["payload"]), getattr(models, record["model"]))


@pytest.mark.parametrize(
    "body",
    [
        b"<root><count>3</count><count>4</count></root>",  # a repeated name
        b"<root>text<count>3</count></root>",  # text beside elements
        b"<root><results><list-item><uuid>a</uuid></list-item>tail</results></root>",
        b"<root><course-v1:edX+DemoX+Demo_Course><key>k</key></course-v1:edX+DemoX+Demo_Course></root>",
        b"<!-- a comment --><root><count>3</count></root>",
        b"<root><count></count><results></results><next></next></root>",
        b"<root></root>",
    ],
)
def test_shapes_the_renderer_never_writes_read_as_in_two_passes(body: bytes) -> None:
    assert_read_as_in_two_passes(body, models.CatalogContentsPage)


def test_a_malformed_document_raises_the_same_error_at_once_and_in_steps() -> None:
    body = render_drf_xml({"count": 1, "results": [{"uuid": "a"}]})[:-9]
    with pytest.raises(XMLDecodeError):
        read_drf_xml(body, models.CatalogContentsPage)
    with pytest.raises(XMLDecodeError):
        in_steps(body, models.CatalogContentsPage)


def test_a_page_is_read_a_few_items_at_a_time() -> None:
    page = {"count": 100, "next": None, "previous": None, "results": [{"uuid": str(n)} for n in range(100)]}
    body = render_drf_xml(page)
    value, taken = in_steps(body, models.CatalogContentsPage)
    assert value == fill_empty_elements(parse_drf_xml(body), models.CatalogContentsPage)
    assert taken >= 100 // 20
