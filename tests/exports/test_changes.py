"""``export_catalogs(changes=True)``: beside each catalog's export, what was created, updated and
removed since its last complete export, right by construction: content compared, not timestamps;
removals only from a listing that can vouch for them; identities that collide told apart; content
shared by two catalogs diffed per catalog; unreadable items neither created nor removed; a resume
gives the same changes as a run never stopped."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import attrs
import orjson
import pytest

from enterprise_async import EnterpriseClient, OutgoingRequest, RawResponse, Send
from enterprise_async.exports import MANIFEST_NAME, ExportSummary, SilentProgress, export_catalogs
from enterprise_async.exports._catalog_writer import item_names
from enterprise_async.models import Catalog
from enterprise_async.testing import DataSize, Fault, Sandbox

PAGE = 10
CONTENTS = "/enterprise/v2/enterprise-catalogs/{}"


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    size = DataSize(customers=1, catalogs_per_customer=2, catalog_items=45)
    async with Sandbox(seed=7, size=size) as running:
        yield running


async def served(client: EnterpriseClient, catalog: str) -> list[dict[str, Any]]:
    """The catalog's items exactly as the sandbox serves them now."""
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        body = await client.request("GET", CONTENTS.format(catalog), params={"page_size": 100, "page": page})
        items += body["results"]
        if not body["next"]:
            return items
        page += 1


async def export(client: EnterpriseClient, directory: Path, **options: Any) -> ExportSummary:
    return await export_catalogs(client, directory, page_size=PAGE, changes=True, **options)


def changes(directory: Path, catalog: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (directory / f"{catalog}.changes.jsonl").read_bytes().splitlines()]


def kinds(directory: Path, catalog: str) -> list[tuple[str, str]]:
    return [(change["change"], change["identity"]) for change in changes(directory, catalog)]


def outcome_of(summary: ExportSummary, catalog: str) -> Any:
    return next(outcome for outcome in summary.outcomes if outcome.uuid == catalog)


def name(item: dict[str, Any]) -> str:
    """An item's identity in the feed: ``<content_type>:<key>`` (``x-sdk-changes`` of the spec)."""
    found = item_names().base_name(item)
    assert found is not None
    return found


async def test_a_first_run_creates_every_item_and_says_it_had_no_baseline(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        summary = await export(client, tmp_path)
        items = await served(client, catalog)
    counts = outcome_of(summary, catalog).changes
    assert (counts.created, counts.updated, counts.removed, counts.unchanged) == (45, 0, 0, 0)
    assert "no previous complete export" in (counts.note or "")
    assert [change["item"] for change in changes(tmp_path, catalog)] == items
    assert kinds(tmp_path, catalog) == [("created", name(item)) for item in items]


async def test_a_quiet_run_costs_one_request_a_catalog_and_changes_nothing(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    async with sandbox.client() as client:
        await export(client, tmp_path)
        sandbox.requests.clear()
        summary = await export(client, tmp_path)
    for catalog in sandbox.data.catalogs:
        outcome = outcome_of(summary, catalog.uuid)
        assert outcome.status == "skipped"
        assert (outcome.changes.changed, outcome.changes.unchanged) == (0, 45)
        assert changes(tmp_path, catalog.uuid) == []
        assert (
            len(sandbox.requests.find("GET", CONTENTS.format(catalog.uuid))) == 1
        )  # its count, page 1 of 1 item
    assert summary.changes is not None
    assert summary.changes.changed == 0


async def test_created_updated_and_removed_items_and_applying_them_gives_the_new_export(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        await export(client, tmp_path)
        before = await served(client, catalog)
        sandbox.edits.update(catalog, 4, title="Renamed", short_description="<p>New.</p>")
        sandbox.edits.remove(catalog, 20)
        new = {**before[0], "key": "NewX+NEW.1x", "aggregation_key": "course:NewX+NEW.1x", "uuid": "0" * 8}
        sandbox.edits.create(catalog, new, at=30)
        summary = await export(client, tmp_path)
        after = await served(client, catalog)
    counts = outcome_of(summary, catalog).changes
    assert (counts.created, counts.updated, counts.removed, counts.unchanged) == (1, 1, 1, 43)
    found = changes(tmp_path, catalog)
    assert [(change["change"], change["identity"]) for change in found] == [
        ("updated", name(before[4])),
        ("created", "course:NewX+NEW.1x"),
        ("removed", name(before[20])),
    ]
    assert found[0]["fields"] == ["title", "short_description"]
    assert found[0]["item"] == after[4]
    assert "item" not in found[2]
    state = {name(item): item for item in before}
    for change in found:
        if change["change"] == "removed":
            del state[change["identity"]]
        else:
            state[change["identity"]] = change["item"]
    exported = [orjson.loads(line) for line in (tmp_path / f"{catalog}.jsonl").read_bytes().splitlines()]
    assert exported == after

    def content(item: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in item.items() if key != "content_last_modified"}

    assert {key: content(item) for key, item in state.items()} == {
        name(item): content(item) for item in exported
    }


async def test_a_moved_timestamp_alone_is_no_change(sandbox: Sandbox, tmp_path: Path) -> None:
    catalog = sandbox.data.catalogs[0]
    async with sandbox.client() as client:
        await export(client, tmp_path)
        sandbox.edits.touch(catalog.uuid, 3)  # the item's time, and so its catalog's, moves
        sandbox.edits.change_customer(catalog.customer_uuid)  # every item's time moves
        summary = await export(client, tmp_path)
        after = await served(client, catalog.uuid)
    counts = outcome_of(summary, catalog.uuid).changes
    assert outcome_of(summary, catalog.uuid).status == "complete"  # read again: its record moved
    assert (counts.changed, counts.unchanged) == (0, 45)
    assert changes(tmp_path, catalog.uuid) == []
    exported = [orjson.loads(line) for line in (tmp_path / f"{catalog.uuid}.jsonl").read_bytes().splitlines()]
    assert exported == after  # the export holds the new times


async def test_a_failed_listing_reports_nothing_and_its_baseline_stays(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client(max_concurrency=1, max_retries=0) as client:
        await export(client, tmp_path)
        earlier = (tmp_path / f"{catalog}.changes.jsonl").read_bytes()
        sandbox.edits.remove(catalog, 40)
        sandbox.edits.update(catalog, 2, title="Renamed")
        sandbox.faults.inject(CONTENTS.format(catalog), Fault.server_error(503), skip=2, times=None)
        failed = await export(client, tmp_path)
        assert outcome_of(failed, catalog).status == "failed"
        assert outcome_of(failed, catalog).changes is None
        assert (tmp_path / f"{catalog}.changes.jsonl").read_bytes() == earlier  # nothing new said
        sandbox.faults.clear()
        again = await export(client, tmp_path, resume=True)
    counts = outcome_of(again, catalog).changes
    assert (counts.updated, counts.removed) == (1, 1)


@pytest.mark.parametrize("with_changes", [True, False])
async def test_a_short_listing_reports_nothing_removed_says_why_and_its_resume_reads_it_again(
    sandbox: Sandbox, tmp_path: Path, with_changes: bool
) -> None:
    catalog = sandbox.data.catalogs[0].uuid

    async def last_page_short(request: OutgoingRequest, send: Send) -> RawResponse:
        answer = await send(request)
        if dict(request.url.query).get("page") != "5" or catalog not in str(request.url):
            return answer
        body = orjson.loads(answer.body)
        body["results"] = body["results"][:2]  # its count still promises 45 items: 42 arrive
        return attrs.evolve(answer, body=orjson.dumps(body))

    options: dict[str, Any] = {"changes": with_changes, "page_size": PAGE}
    async with sandbox.client(max_retries=0) as client:
        await export_catalogs(client, tmp_path, **options)
        earlier = (tmp_path / f"{catalog}.changes.jsonl").read_bytes() if with_changes else b""
        sandbox.edits.update(catalog, 2, title="Renamed")  # its record moves: it is read again
    async with sandbox.client(max_retries=0, middleware=[last_page_short]) as client:
        short = await export_catalogs(client, tmp_path, **options)
    outcome = outcome_of(short, catalog)
    assert (outcome.status, outcome.changes, outcome.changes_file) == ("failed", None, None)
    assert "ended early" in (outcome.error or "")  # why: fewer items came than its count promised
    if with_changes:
        assert (tmp_path / f"{catalog}.changes.jsonl").read_bytes() == earlier  # nothing removed, or said
    async with sandbox.client() as client:
        whole = await export_catalogs(client, tmp_path, resume=True, **options)
        items = await served(client, catalog)
    exported = [orjson.loads(line) for line in (tmp_path / f"{catalog}.jsonl").read_bytes().splitlines()]
    assert exported == items  # the items the short page left out are read again, not lost
    if with_changes:
        counts = outcome_of(whole, catalog).changes
        assert (counts.updated, counts.removed, counts.unchanged) == (1, 0, 44)  # nothing removed


async def test_removals_wait_when_the_listing_shifts_while_it_is_read(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid

    async def remove_while_reading(request: Any, send: Any) -> Any:
        if "page=3" in str(request.url) and not removed:
            removed.append(True)
            sandbox.edits.remove(catalog, 1)  # page 1 was read: every later item moves one place back
        return await send(request)

    removed: list[bool] = []
    async with sandbox.client() as client:
        await export(client, tmp_path)
        before = await served(client, catalog)
        sandbox.edits.remove(catalog, 35)
    async with sandbox.client(max_concurrency=1, middleware=[remove_while_reading]) as client:
        shifted = await export(client, tmp_path)
    counts = outcome_of(shifted, catalog).changes
    assert counts.removed == 0
    assert "count moved while it was read" in (counts.note or "")
    assert counts.held >= 1  # the items it did not show stay the consumer's, for the next run
    async with sandbox.client() as client:
        settled = await export(client, tmp_path)
    after = outcome_of(settled, catalog).changes
    assert {identity for kind, identity in kinds(tmp_path, catalog) if kind == "removed"} == {
        name(before[1]),
        name(before[35]),
    }
    assert after.held == 0


async def test_runs_of_one_course_sharing_an_aggregation_key_are_told_apart(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        items = await served(client, catalog)
        run = next(item for item in items if item["content_type"] == "courserun")
        twin = {**run, "key": run["key"].replace("+1T", "+9T").replace("+2T", "+9T").replace("+3T", "+9T")}
        twin["uuid"] = "1" * 8
        assert twin["key"] != run["key"]
        assert twin["aggregation_key"] == run["aggregation_key"]
        await export(client, tmp_path)
        sandbox.edits.create(catalog, twin, at=0)
        summary = await export(client, tmp_path)
    assert kinds(tmp_path, catalog) == [("created", f"courserun:{twin['key']}")]
    assert outcome_of(summary, catalog).changes.unchanged == 45


async def test_an_identity_sent_twice_is_told_apart_and_reported(sandbox: Sandbox, tmp_path: Path) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        await export(client, tmp_path)
        items = await served(client, catalog)
        sandbox.edits.remove(catalog, 44)
        sandbox.edits.create(catalog, items[10], at=20)  # the same item twice; another one gone
        summary = await export(client, tmp_path)
    counts = outcome_of(summary, catalog).changes
    assert kinds(tmp_path, catalog) == [("created", f"{name(items[10])}#2")]
    assert (counts.removed, counts.held) == (0, 1)
    assert "came twice" in (counts.note or "")


async def test_content_shared_by_two_catalogs_is_diffed_per_catalog(sandbox: Sandbox, tmp_path: Path) -> None:
    first, second = (catalog.uuid for catalog in sandbox.data.catalogs)
    async with sandbox.client() as client:
        shared = (await served(client, first))[6]
        sandbox.edits.create(second, shared, at=0)
        await export(client, tmp_path)
        sandbox.edits.touch(first, 0)
        sandbox.edits.touch(second, 1)  # both read again, nothing changed
        quiet = await export(client, tmp_path)
        assert kinds(tmp_path, first) == kinds(tmp_path, second) == []
        assert {outcome.status for outcome in quiet.outcomes} == {"complete"}
        sandbox.edits.remove(first, 6)  # it moves to the second catalog alone
        moved = await export(client, tmp_path)
    assert kinds(tmp_path, first) == [("removed", name(shared))]
    assert kinds(tmp_path, second) == []  # it was there already
    assert outcome_of(moved, second).status == "skipped"
    third = await _moved_to_a_catalog_without_it(sandbox, tmp_path, shared)
    assert kinds(tmp_path, first) == [("created", name(third))]


async def _moved_to_a_catalog_without_it(
    sandbox: Sandbox, directory: Path, shared: dict[str, Any]
) -> dict[str, Any]:
    """Move an item of the second catalog to the first, which no longer holds it."""
    first, second = (catalog.uuid for catalog in sandbox.data.catalogs)
    async with sandbox.client() as client:
        item = (await served(client, second))[10]
        sandbox.edits.remove(second, 10)
        sandbox.edits.create(first, item, at=3)
        await export(client, directory)
    assert kinds(directory, second) == [("removed", name(item))]
    return item


async def test_an_item_that_cannot_be_read_is_neither_created_nor_removed(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        await export(client, tmp_path)
        item = (await served(client, catalog))[8]
        broken = {**item, "entitlements": item.get("entitlements"), "key": None}
        sandbox.edits.remove(catalog, 8)
        sandbox.edits.create(catalog, broken, at=8)
        unread = await export(client, tmp_path)
        assert kinds(tmp_path, catalog) == []
        counts = outcome_of(unread, catalog).changes
        assert (outcome_of(unread, catalog).rejected, counts.removed, counts.held) == (1, 0, 1)
        sandbox.edits.update(catalog, 8, key=item["key"], title="Readable again")
        read = await export(client, tmp_path)
    assert kinds(tmp_path, catalog) == [("updated", name(item))]
    assert outcome_of(read, catalog).changes.held == 0


async def test_an_unreadable_item_without_identity_holds_every_removal(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        await export(client, tmp_path)
        item = (await served(client, catalog))[8]
        nameless = {
            key: value for key, value in item.items() if key not in ("key", "uuid", "aggregation_key")
        }
        sandbox.edits.remove(catalog, 8)
        sandbox.edits.create(catalog, nameless, at=8)
        summary = await export(client, tmp_path)
    counts = outcome_of(summary, catalog).changes
    assert (counts.removed, counts.held) == (0, 1)
    assert "carry no name at all" in (counts.note or "")


async def test_an_unreadable_item_without_its_key_holds_only_the_item_it_may_be(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        await export(client, tmp_path)
        items = await served(client, catalog)
        keyless = {key: value for key, value in items[8].items() if key != "key"}
        sandbox.edits.remove(catalog, 8)
        sandbox.edits.create(catalog, keyless, at=8)  # named by its uuid alone
        sandbox.edits.remove(catalog, 30)
        summary = await export(client, tmp_path)
    counts = outcome_of(summary, catalog).changes
    assert kinds(tmp_path, catalog) == [("removed", name(items[30]))]
    assert (counts.removed, counts.held, outcome_of(summary, catalog).rejected) == (1, 1, 1)
    assert "lacking the key that names them" in (counts.note or "")


async def test_a_resume_after_a_stop_gives_the_changes_of_a_run_never_stopped(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    stopped, whole = tmp_path / "stopped", tmp_path / "whole"
    async with sandbox.client(max_concurrency=1, max_retries=0) as client:
        await export(client, stopped)
        shutil.copytree(stopped, whole)
        sandbox.edits.update(catalog, 3, title="Early")
        sandbox.edits.update(catalog, 33, title="Late")
        sandbox.edits.remove(catalog, 12)
        sandbox.edits.create(catalog, {"content_type": "course", "key": "LateX+L.1x", "title": "Late"}, at=40)
        sandbox.faults.inject(CONTENTS.format(catalog), Fault.server_error(503), skip=2, times=None)
        assert (await export(client, stopped)).failed
        sandbox.faults.clear()
        resumed = await export(client, stopped, resume=True)
        never_stopped = await export(client, whole)
    assert outcome_of(resumed, catalog).resumed == 20
    assert changes(stopped, catalog) == changes(whole, catalog)
    assert outcome_of(resumed, catalog).changes == outcome_of(never_stopped, catalog).changes
    assert {kind for kind, _ in kinds(stopped, catalog)} == {"created", "updated", "removed"}


async def test_a_resume_after_a_run_cancelled_mid_catalog_gives_the_same_changes(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    stopped, whole = tmp_path / "stopped", tmp_path / "whole"

    class StopMidCatalog(SilentProgress):
        def items_written(self, listed: Catalog, count: int) -> None:
            written[listed.uuid or ""] = written.get(listed.uuid or "", 0) + count
            if written.get(catalog, 0) >= 2 * PAGE and not task.done():
                task.cancel()  # Ctrl-C, SIGTERM: the run is stopped mid-catalog

    written: dict[str, int] = {}
    async with sandbox.client(max_concurrency=1) as client:
        await export(client, stopped)
        shutil.copytree(stopped, whole)
        sandbox.edits.update(catalog, 1, title="Early")
        sandbox.edits.update(catalog, 38, title="Late")
        sandbox.edits.remove(catalog, 25)
        task = asyncio.ensure_future(export(client, stopped, progress=StopMidCatalog()))
        with pytest.raises(asyncio.CancelledError):
            await task
        assert (
            orjson.loads((stopped / MANIFEST_NAME).read_bytes())["checkpoints"][catalog]["items"] >= 2 * PAGE
        )
        resumed = await export(client, stopped, resume=True)
        never_stopped = await export(client, whole)
    assert outcome_of(resumed, catalog).resumed >= 2 * PAGE
    assert changes(stopped, catalog) == changes(whole, catalog)
    assert outcome_of(resumed, catalog).changes == outcome_of(never_stopped, catalog).changes
    assert [kind for kind, _ in kinds(stopped, catalog)] == ["updated", "updated", "removed"]


async def test_the_manifest_records_each_catalogs_counts_and_the_run(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    async with sandbox.client() as client:
        await export(client, tmp_path)
        sandbox.edits.update(catalog, 1, title="Renamed")
        await export(client, tmp_path)
    document = orjson.loads((tmp_path / MANIFEST_NAME).read_bytes())
    entry = document["catalogs"][catalog]["changes"]
    assert (entry["created"], entry["updated"], entry["removed"], entry["unchanged"]) == (0, 1, 0, 44)
    assert entry["file"] == f"{catalog}.changes.jsonl"
    assert entry["run"] == document["run"]["id"]
    assert document["run"]["finished"] is True
