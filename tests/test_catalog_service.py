"""Catalogs as openedx/enterprise-catalog serves them behind its gateway (issue 22): the rows of
README.md's table "Where the services differ from the reference" about catalogs, each shown
through the public client against the sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from enterprise_async import ClientValidationError
from enterprise_async.cli import export_catalogs
from enterprise_async.testing import DataSize, Sandbox

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
    assert (len(catalogs), _page_sizes(sandbox, "catalogs.list")) == (6, ["100"])


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
    assert summary.items == 250 * len(sandbox.data.catalogs)
    assert set(_page_sizes(sandbox, CONTENTS)) == {"100"}
    assert len(sandbox.requests.find(operation=CONTENTS)) == 3 * len(sandbox.data.catalogs)


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
