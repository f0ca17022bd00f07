"""An identity for every shape of catalog item (issue 41): a cursor names the last item given by
its `aggregation_key`, else by `<content_type>:<key>` (else `<content_type>:<uuid>`), the content
type of an item that names none being its variant's (`x-sdk-identity-field` of `ContentItem`), so
a resume after an item was removed or inserted before the cursor gives every remaining item
exactly once. Where an item has no identity at all, a resume that finds the items given changed
raises `ListingMovedError` instead of trusting positions."""

from __future__ import annotations

from typing import Any

import pytest

from enterprise_async import ListingCursor, ListingMovedError
from enterprise_async._paging import take
from enterprise_async.testing import Sandbox
from tests.conftest import ScriptedAPI
from tests.paging.test_pagination import CATALOGS, serve_pages

CATALOG = "5d1e6c0a-3b2f-4a8e-9c7d-1f0e2d3c4b5a"
CONTENTS = f"{CATALOGS}/{CATALOG}"


def nested(total: int) -> list[dict[str, Any]]:
    """Items in the reference's default shape: no `aggregation_key`, no `content_type`; a course
    (`course_runs`), a course run (`seats`), a program (`authoring_organizations`, no key) in turn."""
    items: list[dict[str, Any]] = []
    for number in range(total):
        kind = number % 3
        if kind == 0:
            items.append({"key": f"edX+C{number}", "title": f"Course {number}", "course_runs": []})
        elif kind == 1:
            run = f"course-v1:edX+R{number}+1T2026"
            items.append({"key": run, "course": f"edX+R{number}", "title": f"Run {number}", "seats": []})
        else:
            uuid = f"00000000-0000-4000-8000-{number:012d}"
            items.append({"uuid": uuid, "title": f"Program {number}", "authoring_organizations": []})
    return items


def names(items: list[dict[str, Any]]) -> list[str]:
    return [item["title"] for item in items]


async def given_then_cursor(api: ScriptedAPI, given: int) -> tuple[list[str], ListingCursor]:
    async with api.client() as client:
        pager = client.catalogs.contents(CATALOG, page_size=10)
        first = [item.title async for item in take(pager, given)]
        return first, ListingCursor.from_json(str(pager.cursor))


async def resumed(api: ScriptedAPI, cursor: ListingCursor) -> list[str]:
    async with api.client() as client:
        return [item.title async for item in client.catalogs.contents(CATALOG, page_size=10).resume(cursor)]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (1, "course:edX+C0"),
        (2, "courserun:course-v1:edX+R1+1T2026"),
        (3, "program:00000000-0000-4000-8000-000000000002"),
    ],
)
async def test_a_cursor_names_an_item_of_the_default_shape_by_type_and_key(
    api: ScriptedAPI, given: int, expected: str
) -> None:
    serve_pages(api, CONTENTS, nested(30), size=10)
    _, cursor = await given_then_cursor(api, given)
    assert cursor.last == expected


async def test_a_cursor_names_an_item_of_the_alternative_shape_by_its_aggregation_key(
    api: ScriptedAPI,
) -> None:
    flat = [{**item, "aggregation_key": f"flat:{number}"} for number, item in enumerate(nested(30))]
    serve_pages(api, CONTENTS, flat, size=10)
    _, cursor = await given_then_cursor(api, 5)
    assert cursor.last == "flat:4"


@pytest.mark.parametrize("given", [14, 10, 12])  # mid-page (a run, a program), and at a page boundary
@pytest.mark.parametrize("edit", ["removed", "inserted"])
async def test_a_resume_over_the_default_shape_gives_every_remaining_item_once(
    api: ScriptedAPI, given: int, edit: str
) -> None:
    items = nested(30)
    serve_pages(api, CONTENTS, items, size=10)
    first, cursor = await given_then_cursor(api, given)
    edited = [item for item in items if item["title"] != "Course 3"]
    if edit == "inserted":
        edited = [*items[:2], {"key": "edX+NEW", "title": "New", "course_runs": []}, *items[2:]]
    serve_pages(api, CONTENTS, edited, size=10)
    rest = await resumed(api, cursor)
    assert first == names(items)[:given]
    assert rest == names(items)[given:]


async def test_every_item_of_the_sandboxs_default_shape_has_an_identity() -> None:
    async with Sandbox(seed=0, profile="reference") as sandbox, sandbox.client() as client:
        catalog = sandbox.data.catalogs[0].uuid
        seen = []
        for given in range(1, 11):  # courses, course runs and a program (KIND_CYCLE)
            pager = client.catalogs.contents(catalog, page_size=10)
            items = [item async for item in take(pager, given)]
            seen.append((type(items[-1]).__name__, pager.cursor.last))
    assert {kind for kind, _ in seen} == {"Course", "CourseRun", "Program"}
    assert all(last for _, last in seen)
    assert len({last for _, last in seen}) == 10


# ---------------------------------------------------------------------------------- no identity


def anonymous(total: int) -> list[dict[str, Any]]:
    """Items with no identity at all: no aggregation_key, content_type, key or uuid."""
    return [{"title": f"Clip {number}", "normalized_metadata": None} for number in range(total)]


@pytest.mark.parametrize("given", [14, 10])  # mid-page, and at a page boundary
async def test_a_resume_without_identities_raises_when_the_items_given_changed(
    api: ScriptedAPI, given: int
) -> None:
    items = anonymous(30)
    serve_pages(api, CONTENTS, items, size=10)
    _, cursor = await given_then_cursor(api, given)
    assert (cursor.last, cursor.mark is not None) == (None, True)
    serve_pages(api, CONTENTS, items[1:], size=10)  # one item before the cursor removed
    with pytest.raises(ListingMovedError, match="changed") as raised:
        await resumed(api, cursor)
    assert raised.value.page == cursor.page


@pytest.mark.parametrize("given", [14, 10])
async def test_a_resume_without_identities_continues_when_unchanged(api: ScriptedAPI, given: int) -> None:
    items = anonymous(30)
    serve_pages(api, CONTENTS, items, size=10)
    first, cursor = await given_then_cursor(api, given)
    rest = await resumed(api, cursor)
    assert first + rest == names(items)
