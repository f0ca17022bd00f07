"""What a resume checks: a cursor names its listing (``extra_query`` included), and a resumed
listing finds the last item given in the refetched page, so that a redeploy (another page size) or
a concurrent edit (an item removed or inserted before the cursor) never loses or repeats an item
silently."""

from __future__ import annotations

from typing import Any

import pytest

from enterprise_async import ListingCursor, ListingCursorError, ListingMovedError
from enterprise_async._paging import take
from tests.conftest import ScriptedAPI
from tests.paging.test_pagination import CATALOGS, catalogs, serve_pages


def uuids(rows: list[dict[str, Any]]) -> list[str]:
    return [row["uuid"] for row in rows]


async def given_then_cursor(api: ScriptedAPI, given: int, **call: Any) -> tuple[list[str], ListingCursor]:
    async with api.client() as client:
        pager = client.catalogs.list(**call)
        first = [item.uuid async for item in take(pager, given)]
        return first, ListingCursor.from_json(str(pager.cursor))


async def resumed(api: ScriptedAPI, cursor: ListingCursor, **call: Any) -> list[str]:
    async with api.client() as client:
        return [item.uuid async for item in client.catalogs.list(**call).resume(cursor)]


@pytest.mark.parametrize("other", [{"content_type": "program"}, None])
async def test_a_cursor_taken_with_an_extra_query_filter_is_refused_by_another_filter_or_none(
    api: ScriptedAPI, other: dict[str, str] | None
) -> None:
    serve_pages(api, CATALOGS, catalogs(30), size=10)
    _, cursor = await given_then_cursor(api, 12, extra_query={"content_type": "course"})
    sent = len(api.requests)
    async with api.client() as client:
        with pytest.raises(ListingCursorError, match="extra_query"):
            client.catalogs.list(extra_query=other).resume(cursor)
    assert len(api.requests) == sent


async def test_a_cursor_records_the_page_sizes_and_the_last_item_given(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(30), size=10)
    _, cursor = await given_then_cursor(api, 14, page_size=10)
    assert (cursor.asked, cursor.answered, cursor.last) == (10, 10, "catalog-0013")


@pytest.mark.parametrize("given", [80, 50])  # mid-page 2, and at the end of page 1
async def test_a_resume_after_the_service_changed_its_page_size_raises_what_changed(
    api: ScriptedAPI, given: int
) -> None:
    rows = catalogs(200)
    serve_pages(api, CATALOGS, rows, size=50)
    _, cursor = await given_then_cursor(api, given)
    serve_pages(api, CATALOGS, rows, size=20)  # a redeploy: the service now pages by 20
    with pytest.raises(ListingMovedError, match="pages by 20 items, not 50") as raised:
        await resumed(api, cursor)
    assert raised.value.changed


@pytest.mark.parametrize("given", [14, 10])  # mid-page, and at a page boundary
@pytest.mark.parametrize("edit", ["removed", "inserted"])
async def test_an_item_removed_or_inserted_before_the_cursor_loses_and_repeats_nothing(
    api: ScriptedAPI, given: int, edit: str
) -> None:
    rows = catalogs(30)
    serve_pages(api, CATALOGS, rows, size=10)
    first, cursor = await given_then_cursor(api, given, page_size=10)
    edited = [row for row in rows if row["uuid"] != "catalog-0003"]
    if edit == "inserted":
        edited = [*rows[:2], {"uuid": "catalog-new", "title": "New", "enterprise_customer": "c"}, *rows[2:]]
    serve_pages(api, CATALOGS, edited, size=10)
    rest = await resumed(api, cursor, page_size=10)
    assert first + rest == uuids(rows)[:given] + uuids(rows)[given:]
    assert rest == uuids(rows)[given:]


async def test_a_resume_whose_last_item_is_gone_raises_rather_than_guessing(api: ScriptedAPI) -> None:
    rows = catalogs(30)
    serve_pages(api, CATALOGS, rows, size=10)
    _, cursor = await given_then_cursor(api, 14, page_size=10)
    serve_pages(api, CATALOGS, [row for row in rows if row["uuid"] != "catalog-0013"], size=10)
    with pytest.raises(ListingMovedError, match="catalog-0013"):
        await resumed(api, cursor, page_size=10)


async def test_a_raw_pager_has_a_cursor_and_resumes_from_it(api: ScriptedAPI) -> None:
    serve_pages(api, CATALOGS, catalogs(30), size=10)
    async with api.client() as client:
        raw = client.with_raw_response.catalogs.list(page_size=10)
        async for response in take(raw, 1):
            assert response.status == 200
        cursor = raw.cursor
        again = client.with_raw_response.catalogs.list(page_size=10).resume(str(cursor))
        pages = [response.parse() async for response in again]
    assert [item.uuid for page in pages for item in page.results] == uuids(catalogs(30))[10:]
