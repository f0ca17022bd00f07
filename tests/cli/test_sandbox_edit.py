"""``sandbox-edit``: a sandbox served in another process changes between two exports, from the
command line (create, update, remove, touch, change a customer), as ``sandbox.edits`` does in code."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from enterprise_async.testing import Sandbox

from .conftest import CommandLine

CONTENTS = "/enterprise/v2/enterprise-catalogs/{}"


def contents(sandbox: Sandbox, catalog: str) -> dict[str, Any]:
    """The catalog's first page as served now (100 items), through a client of the test's own."""

    async def read() -> dict[str, Any]:
        async with sandbox.client() as client:
            page: dict[str, Any] = await client.request(
                "GET", CONTENTS.format(catalog), params={"page_size": 100}
            )
            return page

    return asyncio.run(read())


def test_each_edit_changes_the_served_catalog(cli: CommandLine, served: Sandbox) -> None:
    catalog = served.data.catalogs[0]
    before = contents(served, catalog.uuid)
    updated = cli("sandbox-edit", "update", catalog.uuid, "5", "title=Renamed", "card_image_url=null")
    assert updated.exit_code == 0, updated.stderr
    assert cli("sandbox-edit", "touch", catalog.uuid, "7").exit_code == 0
    item = {**before["results"][0], "key": "NewX+NEW.1x", "title": "New"}
    created = cli("sandbox-edit", "create", catalog.uuid, json.dumps(item), "--at", "2")
    assert (created.exit_code, created.stdout.strip()) == (
        0,
        f"created NewX+NEW.1x at 2 of catalog {catalog.uuid}",
    )
    assert contents(served, catalog.uuid)["results"][2]["key"] == "NewX+NEW.1x"
    assert cli("sandbox-edit", "remove", catalog.uuid, "NewX+NEW.1x").exit_code == 0  # by its key
    after = contents(served, catalog.uuid)
    assert after["count"] == before["count"]
    results, was = after["results"], before["results"]
    assert (results[5]["title"], results[5]["card_image_url"]) == ("Renamed", None)  # JSON where it is JSON
    assert {key: value for key, value in results[7].items() if key != "content_last_modified"} == {
        key: value for key, value in was[7].items() if key != "content_last_modified"
    }
    assert results[7]["content_last_modified"] > was[7]["content_last_modified"]
    assert cli("sandbox-edit", "customer", catalog.customer_uuid).exit_code == 0
    moved = contents(served, catalog.uuid)["results"]
    assert all(
        new["content_last_modified"] > old["content_last_modified"]
        for new, old in zip(moved, was, strict=True)
    )


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (("remove", "{catalog}", "9999"), "has 45 items, not 10000"),
        (("touch", "{catalog}", "NoSuchX+1x"), "no item 'NoSuchX+1x' in catalog"),
        (("remove", "00000000-0000-0000-0000-000000000000", "1"), "no catalog 00000000-"),
        (("customer", "00000000-0000-0000-0000-000000000000"), "no customer 00000000-"),
        (("create", "{catalog}", "[1]"), "ITEM_JSON must be a JSON object"),
        (("update", "{catalog}", "1", "title"), "give each field as FIELD=VALUE"),
    ],
)
def test_what_the_sandbox_does_not_have_is_said_in_one_line(
    cli: CommandLine, served: Sandbox, arguments: tuple[str, ...], said: str
) -> None:
    catalog = served.data.catalogs[0].uuid
    ran = cli("sandbox-edit", *(argument.format(catalog=catalog) for argument in arguments))
    assert ran.exit_code in (1, 2)
    assert said in ran.stderr
    assert len(ran.error_lines) == 1


def test_an_api_that_is_no_sandbox_is_told_so(
    cli: CommandLine, served: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENTERPRISE_BASE_URL", f"{served.base_url}/elsewhere")  # no edits there
    monkeypatch.setenv("ENTERPRISE_AUTH_URL", served.auth_url)
    ran = cli("sandbox-edit", "touch", served.data.catalogs[0].uuid, "1")
    assert ran.exit_code == 1
    assert "ENTERPRISE_BASE_URL is no sandbox" in ran.stderr
