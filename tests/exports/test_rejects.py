"""An item that breaks a promise of the spec never stops a catalog's export for good: it is written
as the service sent it, with the reason, its page and its place, to the catalog's rejects file, every
other item is exported, the outcome and the manifest say "complete, N rejected", and a resume does
not fetch the catalog again for its sake."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from enterprise_async import EnterpriseClient
from enterprise_async.exports import MANIFEST_NAME, export_catalogs
from enterprise_async.testing import DataSize, Fault, Sandbox

PAGE = 10
CONTENTS = "/enterprise/v2/enterprise-catalogs/{}"


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(
        seed=0, size=DataSize(customers=1, catalogs_per_customer=2, catalog_items=45)
    ) as running:
        yield running


async def served(client: EnterpriseClient, catalog: str, size: int = PAGE) -> list[dict[str, Any]]:
    """The catalog's items exactly as the sandbox serves them."""
    path = CONTENTS.format(catalog)
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        body = await client.request("GET", path, params={"page_size": size, "page": page})
        items += body["results"]
        if not body["next"]:
            return items
        page += 1


def without_key(sandbox: Sandbox, catalog: str, place: int, item: dict[str, Any]) -> dict[str, Any]:
    """Serve the item at ``place`` without its content key (a promise that stays)."""
    broken = {name: value for name, value in item.items() if name != "key"}
    sandbox.edits.remove(catalog, place)
    sandbox.edits.create(catalog, broken, at=place)
    return broken


def lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def manifest(directory: Path) -> dict[str, Any]:
    document: dict[str, Any] = orjson.loads((directory / MANIFEST_NAME).read_bytes())
    return document


async def test_an_item_without_its_key_goes_to_the_rejects_file_as_sent_and_every_other_item_is_exported(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog, other = sandbox.data.catalogs[0].uuid, sandbox.data.catalogs[1].uuid
    async with sandbox.client() as client:
        before = await served(client, catalog)
        without_key(sandbox, catalog, 23, before[23])
        sent = await served(client, catalog)
        summary = await export_catalogs(client, tmp_path, page_size=PAGE)
    outcome = next(outcome for outcome in summary.outcomes if outcome.uuid == catalog)
    assert (outcome.status, outcome.items, outcome.rejected, outcome.state) == (
        "complete",
        44,
        1,
        "complete, 1 rejected",
    )
    assert summary.ok
    assert summary.rejected == 1
    assert lines(tmp_path / f"{catalog}.jsonl") == sent[:23] + sent[24:]
    [reject] = lines(tmp_path / f"{catalog}.rejects.jsonl")
    assert reject["item"] == sent[23]  # as the service sent it
    assert (reject["page"], reject["index"], reject["position"]) == (3, 3, 23)
    assert "results[3]: Course.key is required and was left out" in reject["reason"]
    assert reject["identity"] == f"course:{sent[23]['uuid']}"
    entry = manifest(tmp_path)["catalogs"][catalog]
    assert (entry["items"], entry["rejected"], entry["rejects_file"]) == (44, 1, f"{catalog}.rejects.jsonl")
    assert not (tmp_path / f"{other}.rejects.jsonl").exists()
    assert summary.to_dict()["rejected"] == 1


async def test_a_resume_fetches_nothing_for_a_catalog_complete_with_rejects(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        without_key(sandbox, catalog, 5, (await served(client, catalog))[5])
        await export_catalogs(client, tmp_path, page_size=PAGE)
        sandbox.requests.clear()
        again = await export_catalogs(client, tmp_path, page_size=PAGE, resume=True)
    assert [outcome.state for outcome in again.outcomes] == ["skipped, 1 rejected", "skipped"]
    assert sandbox.requests.find("GET", CONTENTS.format(catalog)) == []


async def test_an_executive_education_course_is_exported_with_every_other_item(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """enterprise-catalog's own test suite serves an executive education course whose entitlement
    is ``{"mode": "paid-executive-education", "sku": "123456FW"}``, with no price or currency: the
    service reads only ``mode`` and ``sku`` of an entitlement, so nothing else of it is promised."""
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        page = await client.request("GET", CONTENTS.format(catalog), params={"page_size": 100})
        body = copy.deepcopy(page)
        course = next(item for item in body["results"] if item.get("content_type") == "course")
        course["course_type"] = "executive-education-2u"
        course["entitlements"] = [{"mode": "paid-executive-education", "sku": "123456FW"}]
        sandbox.canned.add("catalogs.contents", body, path_params={"catalog_uuid": catalog})
        summary = await export_catalogs(client, tmp_path, page_size=100)
        sandbox.requests.clear()
        again = await export_catalogs(client, tmp_path, page_size=100, resume=True)
    outcome = next(outcome for outcome in summary.outcomes if outcome.uuid == catalog)
    assert (outcome.state, outcome.items) == ("complete", len(body["results"]))
    assert lines(tmp_path / f"{catalog}.jsonl") == body["results"]  # every item, the course as sent
    assert not (tmp_path / f"{catalog}.rejects.jsonl").exists()
    assert [outcome.status for outcome in again.outcomes] == ["skipped", "skipped"]
    assert sandbox.requests.find("GET", CONTENTS.format(catalog)) == []


async def test_a_run_stopped_after_a_reject_resumes_with_the_reject_written_once(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client(max_concurrency=1, max_retries=0) as client:
        without_key(sandbox, catalog, 12, (await served(client, catalog))[12])
        sent = await served(client, catalog)
        sandbox.faults.inject(CONTENTS.format(catalog), Fault.server_error(503), skip=3, times=None)
        first = await export_catalogs(client, tmp_path, page_size=PAGE)
        assert [outcome.uuid for outcome in first.failed] == [catalog]
        assert manifest(tmp_path)["checkpoints"][catalog]["sides"]["rejected"] == 1
        sandbox.faults.clear()
        again = await export_catalogs(client, tmp_path, page_size=PAGE, resume=True)
    outcome = next(outcome for outcome in again.outcomes if outcome.uuid == catalog)
    assert (outcome.state, outcome.resumed) == ("complete, 1 rejected", 29)  # 3 pages, 1 rejected
    assert lines(tmp_path / f"{catalog}.jsonl") == sent[:12] + sent[13:]
    assert [line["item"] for line in lines(tmp_path / f"{catalog}.rejects.jsonl")] == [sent[12]]
    assert await asyncio.to_thread(lambda: list(tmp_path.glob("*.part"))) == []


async def test_a_rejects_file_of_an_earlier_export_goes_when_nothing_is_rejected_any_more(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0]
    async with sandbox.client() as client:
        item = (await served(client, catalog.uuid))[7]
        without_key(sandbox, catalog.uuid, 7, item)
        await export_catalogs(client, tmp_path, page_size=PAGE)
        assert (tmp_path / f"{catalog.uuid}.rejects.jsonl").exists()
        sandbox.edits.update(catalog.uuid, 7, key=item["key"])  # served whole again
        summary = await export_catalogs(client, tmp_path, page_size=PAGE)
    assert summary.rejected == 0
    assert not (tmp_path / f"{catalog.uuid}.rejects.jsonl").exists()
    assert manifest(tmp_path)["catalogs"][catalog.uuid]["rejects_file"] is None
