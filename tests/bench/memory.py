"""B4: memory while reading 100,000 catalog items, streamed with ``async for`` or gathered with ``to_list()``.

Each reading runs in a fresh client process (the sandbox has a process of its own), so the
figure is the client's alone: the peak resident set size (RSS) of the process during the
listing less its RSS just before, when the client is already connected and holds its token.
Linux keeps both in ``/proc/self/status`` (``VmHWM``, ``VmRSS``) and resets the peak on request
(``/proc/self/clear_refs``). ``getrusage`` would not do: its peak survives ``exec`` and so starts
from the size of the parent process that spawned the reader. The same runs give the client's
CPU time for the whole listing.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from multiprocessing.connection import Connection
from pathlib import Path

import aiohttp
import orjson
from attrs import frozen

from enterprise_async import EnterpriseClient

from ._harness import Row, median
from ._remote import RemoteSandbox, SandboxAddress, remote_sandbox, token_headers

__all__ = ["run"]

ITEMS = 100_000
MAX_ROUNDS = 3
"""Rounds at most: ``to_list()`` of 100,000 courses holds gigabytes and takes most of a minute."""
MODES = ("stream", "to_list", "dicts")
"""``dicts``: the same pages fetched with aiohttp and held as what ``orjson.loads`` gives, no models."""


@frozen
class Reading:
    """What one client process saw while reading the listing."""

    items: int
    growth_mb: float
    cpu_seconds: float
    seconds: float


def _status_mb(field: str) -> float:
    """A ``/proc/self/status`` size (``VmRSS``, ``VmHWM``), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024  # kB
    raise LookupError(f"{field} is not in /proc/self/status")


def _restart_peak() -> float:
    """Make the peak RSS the RSS now, and return it."""
    Path("/proc/self/clear_refs").write_text("5")
    return _status_mb("VmRSS")


async def _read_dicts(address: SandboxAddress) -> Reading:
    """The listing as plain dicts: what holding the items costs without models (pages of 20, one by one)."""
    async with aiohttp.ClientSession() as session:
        headers = await token_headers(session, address)
        before = _restart_peak()
        cpu, started = time.process_time(), time.perf_counter()
        held: list[object] = []
        url: str | None = address.contents_url()
        while url:
            async with session.get(url, headers=headers) as response:
                page = orjson.loads(await response.read())
            held.extend(page["results"])
            url = page.get("next")
        return Reading(
            items=len(held),
            growth_mb=_status_mb("VmHWM") - before,
            cpu_seconds=time.process_time() - cpu,
            seconds=time.perf_counter() - started,
        )


async def _read(address: SandboxAddress, mode: str) -> Reading:
    if mode == "dicts":
        return await _read_dicts(address)
    async with EnterpriseClient(
        client_id=address.client_id, client_secret=address.client_secret, base_url=address.base_url
    ) as client:
        await client.catalogs.list().first_page()
        before = _restart_peak()
        cpu, started = time.process_time(), time.perf_counter()
        contents = client.catalogs.contents(address.catalog)
        if mode == "to_list":
            items = len(await contents.to_list())
        else:
            items = 0
            async for _ in contents:
                items += 1
        return Reading(
            items=items,
            growth_mb=_status_mb("VmHWM") - before,
            cpu_seconds=time.process_time() - cpu,
            seconds=time.perf_counter() - started,
        )


def _child(address: SandboxAddress, mode: str, connection: Connection) -> None:
    connection.send(asyncio.run(_read(address, mode)))


def _in_fresh_process(address: SandboxAddress, mode: str) -> Reading:
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=_child, args=(address, mode, child))
    process.start()
    child.close()
    try:
        reading: Reading = parent.recv()
    finally:
        process.join()
        parent.close()
    if reading.items != ITEMS:
        raise AssertionError(f"{mode} read {reading.items} items, expected {ITEMS}")
    return reading


def run(rounds: int) -> list[Row]:
    readings: dict[str, list[Reading]] = {mode: [] for mode in MODES}
    rounds = min(rounds, MAX_ROUNDS)
    with remote_sandbox(RemoteSandbox(catalog_items=ITEMS)) as address:
        for _ in range(rounds):
            for mode in MODES:
                readings[mode].append(_in_fresh_process(address, mode))
    growth = {mode: median([reading.growth_mb for reading in readings[mode]]) for mode in MODES}
    cpu = {mode: median([reading.cpu_seconds for reading in readings[mode]]) for mode in MODES}
    seconds = {mode: median([reading.seconds for reading in readings[mode]]) for mode in MODES}
    return [
        Row(
            "B4",
            f"peak memory growth (RSS) reading {ITEMS:,} catalog items: `async for` vs `to_list()`",
            f"streaming +{growth['stream']:.0f} MB; to_list +{growth['to_list']:,.0f} MB",
            "streaming <= 50 MB",
            growth["stream"] <= 50,
            (
                f"Median of {rounds} rounds, each listing read by a fresh client process (pages of 20, "
                "max_concurrency=8): its peak RSS (VmHWM) less its RSS when the listing started. Streaming, "
                f"round by round: {', '.join(f'+{r.growth_mb:.0f} MB' for r in readings['stream'])}.",
            ),
        ),
        Row(
            "B4",
            f"client CPU time for the same {ITEMS:,} items (the sandbox runs in another process)",
            f"streaming {cpu['stream']:.1f} s ({seconds['stream']:.1f} s wall); "
            f"to_list {cpu['to_list']:.1f} s ({seconds['to_list']:.1f} s wall)",
            "none",
            None,
        ),
        Row(
            "B4",
            f"memory held by `to_list()` of the {ITEMS:,} items / the same items as plain dicts (orjson)",
            f"{growth['to_list'] / growth['dicts']:.2f}x (+{growth['to_list']:,.0f} MB against "
            f"+{growth['dicts']:,.0f} MB)",
            "<= 1x (stretch 0.7x)",
            growth["to_list"] <= growth["dicts"],
            (
                "Plain dicts: the same pages fetched one by one with aiohttp in a fresh process, each "
                "page's results kept as orjson.loads gives them; peak RSS growth as above.",
            ),
        ),
        Row(
            "B4",
            "client CPU time decoding while holding (`to_list()`) / while streaming (`async for`)",
            f"{cpu['to_list'] / cpu['stream']:.2f}x",
            "<= 1.2x",
            cpu["to_list"] <= 1.2 * cpu["stream"],
            (
                "The same runs as above. The SDK leaves the garbage collector as the process has it, "
                "so to_list() pays for the collector's full passes over the growing heap of held models "
                "(each a tracked object), which free none of them.",
            ),
        ),
    ]
