"""The sandbox's catalogs change between two runs: items created, updated, removed and touched, a
customer changed, each seen through the client as the services would show it; a catalog never
edited answers byte for byte as before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest

from enterprise_async import EnterpriseClient
from enterprise_async.models import to_dict
from enterprise_async.testing import Sandbox


@pytest.fixture(params=["services", "reference-nested", "reference-flat"])
async def sandbox(request: pytest.FixtureRequest) -> AsyncIterator[Sandbox]:
    options: dict[str, Any] = {
        "services": {},
        "reference-nested": {"profile": "reference"},
        "reference-flat": {"profile": "reference", "catalog_shape": "flat"},
    }[request.param]
    async with Sandbox(seed=3, **options) as running:
        yield running


async def contents(client: EnterpriseClient, catalog: str) -> list[dict[str, Any]]:
    return [to_dict(item) for item in await client.catalogs.contents(catalog).to_list()]


async def record(client: EnterpriseClient, catalog: str) -> Any:
    return next(found for found in await client.catalogs.list().to_list() if found.uuid == catalog)


async def test_an_unedited_catalog_answers_byte_for_byte_as_before(sandbox: Sandbox) -> None:
    catalog, other = sandbox.data.catalogs[0].uuid, sandbox.data.catalogs[1].uuid
    async with sandbox.client() as client:
        before = await client.with_raw_response.catalogs.contents(other, page_size=7).first_page()
        sandbox.edits.update(catalog, 1, title="Elsewhere")
        after = await client.with_raw_response.catalogs.contents(other, page_size=7).first_page()
    assert after.content == before.content
    assert sandbox.edits.revision(other) == 0
    assert sandbox.edits.revision(catalog) == 1


async def test_items_created_updated_and_removed_are_served_in_place(sandbox: Sandbox) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        before = await contents(client, catalog)
        new = {**before[0], "title": "A new course"}
        if "key" in new:
            new["key"] = "NEWX+NEW.1x"
        sandbox.edits.create(catalog, new, at=2)
        sandbox.edits.update(catalog, 5, title="Renamed")
        sandbox.edits.remove(catalog, 0)
        after = await contents(client, catalog)
        page = await client.catalogs.contents(catalog, page_size=10).first_page()
    assert len(after) == len(before)  # one created, one removed
    assert page.count == len(before)
    assert after[1]["title"] == "A new course"
    assert after[4]["title"] == "Renamed"
    assert [item.get("uuid") for item in after[5:]] == [item.get("uuid") for item in before[5:]]
    assert after[0] == before[1]


async def test_item_edits_move_the_item_and_its_catalog_a_removal_moves_neither(sandbox: Sandbox) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        listed = await record(client, catalog)
        sandbox.edits.remove(catalog, 3)
        assert (await record(client, catalog)).content_last_modified == listed.content_last_modified
        sandbox.edits.touch(catalog, 4)
        touched = await contents(client, catalog)
        moved = await record(client, catalog)
    assert moved.content_last_modified > listed.content_last_modified
    stamp = touched[4].get("content_last_modified")
    if stamp is not None:  # the reference's nested shape sends none
        assert stamp > touched[5]["content_last_modified"]


async def test_a_customer_change_moves_every_items_time_and_nothing_else(sandbox: Sandbox) -> None:
    catalog = sandbox.data.catalogs[0]
    async with sandbox.client() as client:
        before = await contents(client, catalog.uuid)
        listed = await record(client, catalog.uuid)
        sandbox.edits.change_customer(catalog.customer_uuid)
        after = await contents(client, catalog.uuid)
        relisted = await record(client, catalog.uuid)
    assert relisted.content_last_modified == listed.content_last_modified

    def without_time(item: dict[str, Any]) -> bytes:
        return orjson.dumps({key: value for key, value in item.items() if key != "content_last_modified"})

    assert [without_time(item) for item in after] == [without_time(item) for item in before]
    stamps = [
        (old.get("content_last_modified"), new.get("content_last_modified"))
        for old, new in zip(before, after, strict=True)
    ]
    assert all(new > old for old, new in stamps if old is not None)


async def test_items_are_found_by_key_and_a_missing_one_is_named(sandbox: Sandbox) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        before = await contents(client, catalog)
        key = before[6].get("key") or before[6]["uuid"]
        sandbox.edits.update(catalog, key, title="Found by key")
        assert (await contents(client, catalog))[6]["title"] == "Found by key"
    with pytest.raises(KeyError, match="no item 'nothing-like-it'"):
        sandbox.edits.remove(catalog, "nothing-like-it")
    with pytest.raises(IndexError):
        sandbox.edits.remove(catalog, len(before) + 5)
    with pytest.raises(KeyError, match="no catalog"):
        sandbox.edits.touch("00000000-0000-4000-8000-000000000000", 0)
