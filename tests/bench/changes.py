"""B15: the change feed of a 100,000-item catalog with 1% of it changed, against a plain re-export.

One sandbox (a process of its own) serves one catalog of 100,000 items. A first export with
changes (``export_catalogs(changes=True)``) makes the baseline directory. Then 1% of the catalog
changes in the sandbox, through its edits endpoint (what ``enterprise-async sandbox-edit`` sends):
500 items updated, 250 removed, 250 created. Each round then runs, one after the other, each in a
fresh client process:

- a plain re-export (``export_catalogs``) into an empty directory;
- the export with changes into a copy of the baseline directory (the diff);
- the same export with changes once more, nothing having changed since (a quiet night).

For each: wall time, the client's CPU time, its peak RSS growth (``VmHWM`` less the RSS before the
export, as B4 measures it) and the requests it made (counted by a middleware). The diff's own
memory is also measured alone: the peak that ``tracemalloc`` sees while the baseline of the
100,000 items is read (identities and content digests), in a fresh process.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import shutil
import tempfile
import time
import tracemalloc
from multiprocessing.connection import Connection
from pathlib import Path

import aiohttp
import orjson
from attrs import frozen

from enterprise_async import EnterpriseClient, OutgoingRequest, RawResponse, Send
from enterprise_async.exports import export_catalogs
from enterprise_async.exports._baseline import Baseline
from enterprise_async.exports._catalog_writer import item_names
from enterprise_async.testing._edit_requests import EDITS_PATH

from ._harness import Row, median
from ._remote import RemoteSandbox, SandboxAddress, remote_sandbox, token_headers

__all__ = ["run"]

ITEMS = 100_000
UPDATED, REMOVED, CREATED = 500, 250, 250
"""1% of the catalog."""
MAX_ROUNDS = 3
MODES = ("plain", "changes", "quiet")


@frozen
class Export:
    """What one client process saw while exporting."""

    seconds: float
    cpu_seconds: float
    growth_mb: float
    requests: int
    changed: int
    """Lines of the changes file (0 for a plain export)."""


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise LookupError(f"{field} is not in /proc/self/status")


def _restart_peak() -> float:
    """Make the peak RSS the RSS now, and return it."""
    Path("/proc/self/clear_refs").write_text("5")
    return _status_mb("VmRSS")


async def _export(address: SandboxAddress, directory: Path, changes: bool) -> Export:
    requests = 0

    async def count(request: OutgoingRequest, send: Send) -> RawResponse:
        nonlocal requests
        requests += 1
        return await send(request)

    async with EnterpriseClient(
        client_id=address.client_id,
        client_secret=address.client_secret,
        base_url=address.base_url,
        middleware=[count],
    ) as client:
        await client.catalogs.list().first_page()  # connected, token held
        requests = 0
        before = _restart_peak()
        cpu, started = time.process_time(), time.perf_counter()
        summary = await export_catalogs(client, directory, changes=changes)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        if not summary.ok:
            raise AssertionError(f"the export failed: {[outcome.error for outcome in summary.failed]}")
    total = summary.changes
    return Export(seconds, cpu, _status_mb("VmHWM") - before, requests, total.changed if total else 0)


def _child(address: SandboxAddress, directory: Path, changes: bool, connection: Connection) -> None:
    connection.send(asyncio.run(_export(address, directory, changes)))


def _in_fresh_process(address: SandboxAddress, directory: Path, changes: bool) -> Export:
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=_child, args=(address, directory, changes, child))
    process.start()
    child.close()
    try:
        result: Export = parent.recv()
    finally:
        process.join()
        parent.close()
    return result


def _baseline_child(file: Path, connection: Connection) -> None:
    tracemalloc.start()
    baseline = Baseline([file], item_names())
    _, peak = tracemalloc.get_traced_memory()
    connection.send((len(baseline), peak / 1e6))


def _baseline_memory(file: Path) -> tuple[int, float]:
    """Items of the baseline and the peak MB ``tracemalloc`` saw while reading it (a fresh process)."""
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=_baseline_child, args=(file, child))
    process.start()
    child.close()
    try:
        found: tuple[int, float] = parent.recv()
    finally:
        process.join()
        parent.close()
    return found


async def _change(address: SandboxAddress) -> None:
    """1% of the catalog changes, through the sandbox's edits endpoint."""
    rng = random.Random(15)
    async with aiohttp.ClientSession() as session:
        headers = await token_headers(session, address)
        url = address.base_url + EDITS_PATH
        length = ITEMS

        async def edit(body: dict[str, object]) -> None:
            async with session.post(url, headers=headers, data=orjson.dumps(body)) as response:
                if response.status >= 300:
                    raise AssertionError(f"{body['edit']}: {response.status} {await response.text()}")

        for _ in range(REMOVED):  # first: an item updated, then removed, would be one change, not two
            await edit({"edit": "remove", "catalog": address.catalog, "place": rng.randrange(length)})
            length -= 1
        for place in rng.sample(range(length), UPDATED):
            await edit(
                {"edit": "update", "catalog": address.catalog, "place": place, "fields": {"title": "B15"}}
            )
        for number in range(CREATED):
            key = f"BenchX+B15.{number}x"
            item = {"content_type": "course", "key": key, "aggregation_key": f"course:{key}", "title": "B15"}
            await edit(
                {"edit": "create", "catalog": address.catalog, "item": item, "at": rng.randrange(length)}
            )
            length += 1


def run(rounds: int) -> list[Row]:
    rounds = min(rounds, MAX_ROUNDS)
    exports: dict[str, list[Export]] = {mode: [] for mode in MODES}
    with (
        tempfile.TemporaryDirectory(prefix="b15-") as folder,
        remote_sandbox(RemoteSandbox(catalog_items=ITEMS)) as address,
    ):
        root = Path(folder)
        baseline = root / "baseline"
        _in_fresh_process(address, baseline, True)  # every item created: the baseline
        items, baseline_mb = _baseline_memory(baseline / f"{address.catalog}.jsonl")
        asyncio.run(_change(address))
        for number in range(rounds):
            plain, diffed = root / f"plain-{number}", root / f"changes-{number}"
            shutil.copytree(baseline, diffed)
            exports["plain"].append(_in_fresh_process(address, plain, False))
            exports["changes"].append(_in_fresh_process(address, diffed, True))
            exports["quiet"].append(_in_fresh_process(address, diffed, True))
            shutil.rmtree(plain)
            shutil.rmtree(diffed)
    seconds = {mode: median([run.seconds for run in exports[mode]]) for mode in MODES}
    cpu = {mode: median([run.cpu_seconds for run in exports[mode]]) for mode in MODES}
    growth = {mode: median([run.growth_mb for run in exports[mode]]) for mode in MODES}
    requests = {mode: exports[mode][0].requests for mode in MODES}
    changed = exports["changes"][0].changed
    ratio = median(
        [
            diff.seconds / plain.seconds
            for diff, plain in zip(exports["changes"], exports["plain"], strict=True)
        ]
    )
    expected = UPDATED + REMOVED + CREATED
    if changed != expected:
        raise AssertionError(f"the diff found {changed} changes, expected {expected}")
    return [
        Row(
            "B15",
            f"export with changes of a {ITEMS:,}-item catalog, 1% changed ({UPDATED} updated, {REMOVED} "
            f"removed, {CREATED} created): time / a plain re-export",
            f"{ratio:.2f}x ({seconds['changes']:.1f} s / {seconds['plain']:.1f} s; client CPU "
            f"{cpu['changes']:.1f} / {cpu['plain']:.1f} s)",
            "<= 1.25x",
            ratio <= 1.25,
            (
                f"Median of {rounds} round(s), each export in a fresh client process against one sandbox "
                "in a process of its own (pages of 100, max_concurrency 8), one after the other; the diff "
                f"found {changed:,} changes.",
            ),
        ),
        Row(
            "B15",
            "the same: peak memory of the diff",
            f"baseline of {items:,} items {baseline_mb:.1f} MB (tracemalloc); client RSS growth "
            f"+{growth['changes']:.0f} MB with changes / +{growth['plain']:.0f} MB plain",
            "grows with items, not their size",
            None,
            (
                "The baseline keeps each item's identity, a 16-byte content digest and where its line is, "
                "read in a fresh process under tracemalloc; RSS growth as B4 measures it.",
            ),
        ),
        Row(
            "B15",
            "the same: requests made, with changes / plain; a quiet night (nothing changed since)",
            f"{requests['changes']:,} / {requests['plain']:,}; quiet: {requests['quiet']} "
            f"in {seconds['quiet']:.2f} s",
            "quiet: 2 (the catalog list, then its count)",
            requests["quiet"] == 2,
        ),
    ]
