"""B18: where the time of a 100,000-item export goes, the sandbox serving against the client reading,
each in a process of its own; and whether the sandbox serves faster than a client decodes.

The sandbox (one catalog of ``ITEMS`` items) runs in a child process (``_remote``); its CPU time is
read from ``/proc`` around each phase. Two phases per round, on the same sandbox:

- serving alone: a plain reader in this process (aiohttp, ``READERS`` requests in flight) fetches
  every page of the default size (10) and reads its bytes, decoding nothing, so the sandbox is
  the one that works: items/s in wall time, and per second of the sandbox's CPU;
- an export: a fresh interpreter (``python -m tests.bench._held ADDRESS export json``) reads the
  whole catalog with the SDK, ``async for`` over ``catalogs.contents`` at the default page size:
  the client's CPU time (reading and decoding) against the sandbox's (making and writing) over
  the same pages, and the export's items/s.

The sandbox must not be the bottleneck of an export: serving alone, it must go at least
``TARGET`` times the items a second one client decodes (items per second of the client's CPU).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time

import aiohttp
import attrs

from ._harness import Row, median
from ._remote import RemoteSandbox, SandboxAddress, process_seconds, remote_sandbox, token_headers

__all__ = ["run"]

ITEMS = 100_000
QUICK_ITEMS = 20_000
PAGE_SIZE = 10
"""The catalog contents' default page size (the sandbox's, as enterprise-catalog's)."""
READERS = 4
TARGET = 2.0


async def _serve_alone(address: SandboxAddress, items: int) -> dict[str, float]:
    """Every page read as bytes by ``READERS`` tasks: wall time, the sandbox's and the reader's CPU."""
    pages = iter(range(1, -(-items // PAGE_SIZE) + 1))
    received = 0
    connector = aiohttp.TCPConnector(limit=READERS)
    async with aiohttp.ClientSession(connector=connector) as session:
        headers = await token_headers(session, address)
        url = address.contents_url()

        async def reader() -> None:
            nonlocal received
            for page in pages:
                async with session.get(url, params={"page": str(page)}, headers=headers) as response:
                    body = await response.read()
                    if response.status != 200:
                        raise AssertionError(f"page {page} answered {response.status}")
                received += len(body)

        sandbox, cpu, wall = process_seconds(address.pid), time.process_time(), time.perf_counter()
        await asyncio.gather(*(reader() for _ in range(READERS)))
        wall = time.perf_counter() - wall
        cpu = time.process_time() - cpu
        sandbox = process_seconds(address.pid) - sandbox
    return {"wall_s": wall, "sandbox_s": sandbox, "reader_s": cpu, "bytes": received}


def _export(address: SandboxAddress) -> dict[str, float]:
    """The SDK's export of the catalog in a fresh interpreter, and the sandbox's CPU meanwhile."""
    where = json.dumps(attrs.asdict(address))
    command = [sys.executable, "-m", "tests.bench._held", where, "export", "json"]
    before = process_seconds(address.pid)
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout)
    figures["sandbox_s"] = process_seconds(address.pid) - before
    return figures


def run(rounds: int, *, quick: bool = False) -> list[Row]:
    items = QUICK_ITEMS if quick else ITEMS
    served: list[dict[str, float]] = []
    exported: list[dict[str, float]] = []
    loads: list[float] = []
    with remote_sandbox(RemoteSandbox(catalog_items=items)) as address:
        for _ in range(rounds):
            loads.append(os.getloadavg()[0])
            served.append(asyncio.run(_serve_alone(address, items)))
            exported.append(_export(address))
            loads.append(os.getloadavg()[0])
    for export in exported:
        if export["items"] != items:
            raise AssertionError(f"the export read {export['items']} items of {items}")

    def rate(figures: list[dict[str, float]], key: str) -> float:
        return median([items / figure[key] for figure in figures])

    served_wall, served_cpu = rate(served, "wall_s"), rate(served, "sandbox_s")
    decoded = rate(exported, "cpu_s")
    exported_wall = rate(exported, "wall_s")
    sandbox_us = median([export["sandbox_s"] / items * 1e6 for export in exported])
    client_us = median([export["cpu_s"] / items * 1e6 for export in exported])
    per_item = median([figure["bytes"] / items for figure in served])
    reader_us = median([figure["reader_s"] / items * 1e6 for figure in served])
    ratio_cpu = median(
        [(items / s["sandbox_s"]) / (items / e["cpu_s"]) for s, e in zip(served, exported, strict=True)]
    )
    ratio_wall = median(
        [(items / s["wall_s"]) / (items / e["cpu_s"]) for s, e in zip(served, exported, strict=True)]
    )
    load = f"load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} CPUs"
    shared: tuple[str, ...] = (
        f"{items:,} catalog items ({per_item / 1000:.1f} KB each on the wire), pages of {PAGE_SIZE}, the "
        f"sandbox in a process of its own; {rounds} round(s), {load}. The plain reader (aiohttp, "
        f"{READERS} in flight, bytes only) spent {reader_us:.0f} µs of its own CPU per item.",
    )
    return [
        Row(
            "B18",
            f"a {items:,}-item export (SDK `async for`, pages of {PAGE_SIZE}), sandbox and client in "
            "processes of their own: CPU per item, sandbox (making, writing) / client (reading, "
            "decoding); the export's items/s",
            f"{sandbox_us:.0f} / {client_us:.0f} µs per item; {exported_wall:,.0f} items/s",
            "n/a",
            None,
            shared,
        ),
        Row(
            "B18",
            "the sandbox serving alone (a plain reader, no decoding): items per second of the sandbox's "
            "CPU / items per second of one client's CPU decoding them",
            f"{ratio_cpu:.2f}x ({served_cpu:,.0f} / {decoded:,.0f} items/s); in wall time, "
            f"{served_wall:,.0f} items/s served = {ratio_wall:.2f}x",
            f">= {TARGET:g}x",
            ratio_cpu >= TARGET,
            (
                "Both sides in CPU time, so that what other processes take of the 2 CPUs moves neither; "
                "the wall-time rate of the plain reader beside it is what the sandbox served while "
                "sharing the machine.",
            ),
        ),
    ]
