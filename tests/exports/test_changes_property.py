"""Applying a run's changes to what the consumer held gives what it holds after the run, item for
item: over generated catalogs and edits, some made between two runs and some while the second one
reads the pages (so that pages shift under it), unreadable items among them. And a removal is
never reported for an item the catalog still holds."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enterprise_async import EnterpriseClient, OutgoingRequest, RawResponse, Send
from enterprise_async.exports import export_catalogs
from enterprise_async.exports._catalog_writer import item_names
from enterprise_async.testing import DataSize, Sandbox

EXAMPLES = 200
"""Examples of the property in every run (CI included)."""

Edit = tuple[str, float]
"""What an edit does (``update``, ``remove``, ``create``, ``broken``, ``touch``, ``customer``) and
where, as a fraction of the catalog's length when it is made."""

EDITS = st.lists(
    st.tuples(
        st.sampled_from(["update", "remove", "create", "broken", "touch", "customer"]),
        st.floats(min_value=0, max_value=1, exclude_max=True),
    ),
    max_size=6,
)


class Editor:
    """Makes the generated edits on one catalog of a sandbox."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.catalog = sandbox.data.catalogs[0]
        self.made = 0
        self.template: dict[str, Any] = {}

    def apply(self, edits: list[Edit], length: int) -> int:
        """Make ``edits`` on a catalog of ``length`` items; its length after them."""
        edits_of, uuid = self.sandbox.edits, self.catalog.uuid
        for kind, where in edits:
            place = int(where * length)
            self.made += 1
            if kind == "customer":
                edits_of.change_customer(self.catalog.customer_uuid)
            elif kind in ("create", "broken"):
                item = {**self.template, "key": f"GenX+G.{self.made}x", "uuid": f"{self.made:08d}-gen"}
                item["aggregation_key"] = f"course:{item['key']}"
                if kind == "broken":
                    del item["key"]  # a course without its content key: unreadable
                edits_of.create(uuid, item, at=min(place, length))
                length += 1
            elif length == 0:
                continue
            elif kind == "update":
                edits_of.update(uuid, place, title=f"Edited {self.made}")
            elif kind == "touch":
                edits_of.touch(uuid, place)
            else:
                edits_of.remove(uuid, place)
                length -= 1
        return length


def held_by_the_consumer(directory: Path, catalog: str) -> dict[str, dict[str, Any]]:
    """What the consumer holds after a run: the export and the items it held back, by identity
    (named as the next run's baseline names them), without what is no part of their content."""
    names, held = item_names(), {}
    for suffix in (".jsonl", ".held.jsonl"):
        path = directory / f"{catalog}{suffix}"
        for line in path.read_bytes().splitlines() if path.exists() else ():
            item = orjson.loads(line)
            identity = names.name(item)
            assert identity is not None
            held[identity] = content(item)
    return held


def content(item: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in item.items() if key != "content_last_modified"}


def applied(before: dict[str, dict[str, Any]], directory: Path, catalog: str) -> dict[str, dict[str, Any]]:
    """``before`` with the run's changes applied, one line at a time."""
    after = dict(before)
    for line in (directory / f"{catalog}.changes.jsonl").read_bytes().splitlines():
        change = orjson.loads(line)
        if change["change"] == "removed":
            assert change["identity"] in after, "removed an item the consumer did not hold"
            del after[change["identity"]]
        else:
            assert (change["identity"] in after) == (change["change"] == "updated")
            after[change["identity"]] = content(change["item"])
    return after


def editing_while_read(
    editor: Editor, during: list[tuple[int, Edit]], length: list[int]
) -> Callable[..., Any]:
    """A middleware making each edit of ``during`` as the request for its page goes out."""
    pending = sorted(during)

    async def middleware(request: OutgoingRequest, send: Send) -> RawResponse:
        page = dict(request.url.query).get("page")
        while pending and page is not None and int(page) >= pending[0][0]:
            _, edit = pending.pop(0)
            length[0] = editor.apply([edit], length[0])
        return await send(request)

    return middleware


async def run_twice(
    items: int, size: int, before: list[Edit], during: list[tuple[int, Edit]], width: int, directory: Path
) -> None:
    async with Sandbox(
        seed=items, size=DataSize(customers=1, catalogs_per_customer=1, catalog_items=items)
    ) as sandbox:
        editor = Editor(sandbox)
        catalog = editor.catalog.uuid
        editor.template = {"content_type": "course", "title": "Generated", "short_description": "<p>G</p>"}
        async with sandbox.client() as client:
            await export_catalogs(client, directory, page_size=size, changes=True)
        held = held_by_the_consumer(directory, catalog)
        length = [editor.apply(before, items)]
        middleware = editing_while_read(editor, during, length)
        async with sandbox.client(max_concurrency=width, middleware=[middleware]) as client:
            summary = await export_catalogs(client, directory, page_size=size, changes=True)
        async with sandbox.client() as client:  # no edit is made while this reads
            final = await still_held(client, catalog)
    now = held_by_the_consumer(directory, catalog)
    if summary.failed:  # a listing that shrank past a page it had promised: nothing is said
        assert now == held
        return
    assert applied(held, directory, catalog) == now
    lines = (directory / f"{catalog}.changes.jsonl").read_bytes().splitlines()
    removed = {change["identity"] for change in map(orjson.loads, lines) if change["change"] == "removed"}
    assert not removed & final, "a removal was reported for an item the catalog still holds"


async def still_held(client: EnterpriseClient, catalog: str) -> set[str]:
    """The identities of the items the catalog holds once the run is over (readable or not)."""
    names = item_names()
    found = set()
    async for item in client.catalogs.contents(catalog).with_unreadable():
        raw = getattr(item, "raw", None)
        data = raw if isinstance(raw, dict) else None
        identity = names.name(data) if data is not None else names.name(to_data(item), type(item))
        if identity is not None:
            found.add(identity)
    return found


def to_data(item: Any) -> dict[str, Any]:
    from enterprise_async.models import to_dict

    data: dict[str, Any] = to_dict(item)
    return data


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.integers(min_value=0, max_value=24),
    size=st.integers(min_value=2, max_value=7),
    before=EDITS,
    during=st.lists(
        st.tuples(
            st.integers(min_value=2, max_value=6),
            EDITS.map(lambda edits: edits[:1]).filter(bool).map(lambda edits: edits[0]),
        ),
        max_size=3,
    ),
    width=st.sampled_from([1, 3]),
)
def test_applying_a_runs_changes_to_what_the_consumer_held_gives_what_it_holds_after(
    items: int, size: int, before: list[Edit], during: list[tuple[int, Edit]], width: int
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(run_twice(items, size, before, during, width, Path(directory)))
