"""B10: the longest the event loop is held at a time while a listing of 100-item pages is read.

A service that reads a listing shares its event loop with every other request it serves: while
the SDK decodes, nothing else runs. A probe task shares the loop with the listing and does nothing
but hand the loop back (``await asyncio.sleep(0)``); the longest gap between two of its turns is
the longest the loop was held (by the listing's decoding, its requests and their answers). The
same catalog is read in JSON and in XML (``response_format="xml"``), pages of 100 items, window of
8, from a sandbox in a process of its own. The client has decoded one page before the probe
starts (its readers are loaded on the first decode; see the notes).
"""

from __future__ import annotations

import asyncio
import time

from enterprise_async import EnterpriseClient

from ._harness import Row, median
from ._remote import RemoteSandbox, SandboxAddress, remote_sandbox

__all__ = ["run"]

ITEMS = 1_000
PAGE_SIZE = 100
TARGETS_MS = {"json": 25.0, "xml": 60.0}


class Probe:
    """A task that hands the loop back at every turn, noting the longest gap between its turns: in
    the thread's CPU time (what the loop spent on other work) and in wall time (that, plus any
    time the process waited for a CPU)."""

    def __init__(self) -> None:
        self.longest_cpu = 0.0
        self.longest_wall = 0.0

    async def run(self) -> None:
        cpu_clock, wall_clock = time.thread_time, time.perf_counter
        last_cpu, last_wall = cpu_clock(), wall_clock()
        while True:
            await asyncio.sleep(0)
            cpu, wall = cpu_clock(), wall_clock()
            self.longest_cpu = max(self.longest_cpu, cpu - last_cpu)
            self.longest_wall = max(self.longest_wall, wall - last_wall)
            last_cpu, last_wall = cpu, wall


async def _longest_hold(address: SandboxAddress, response_format: str) -> tuple[float, float, float]:
    """The longest hold while the listing was read (seconds: CPU, wall), and the listing's wall time."""
    async with EnterpriseClient(
        client_id=address.client_id,
        client_secret=address.client_secret,
        base_url=address.base_url,
        response_format=response_format,  # type: ignore[arg-type]
    ) as client:
        await client.catalogs.contents(address.catalog, page_size=PAGE_SIZE).first_page()
        probe = Probe()
        task = asyncio.create_task(probe.run())
        await asyncio.sleep(0)  # the probe's first turn
        started = time.perf_counter()
        items = 0
        async for _ in client.catalogs.contents(address.catalog, page_size=PAGE_SIZE):
            items += 1
        seconds = time.perf_counter() - started
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    if items != ITEMS:
        raise AssertionError(f"{response_format}: read {items} items, expected {ITEMS}")
    return probe.longest_cpu, probe.longest_wall, seconds


def run(rounds: int) -> list[Row]:
    holds: dict[str, list[float]] = {kind: [] for kind in TARGETS_MS}
    wall_holds: dict[str, list[float]] = {kind: [] for kind in TARGETS_MS}
    walls: dict[str, list[float]] = {kind: [] for kind in TARGETS_MS}
    with remote_sandbox(RemoteSandbox(catalog_items=ITEMS)) as address:
        for _ in range(rounds):
            for kind in TARGETS_MS:
                hold, wall_hold, wall = asyncio.run(_longest_hold(address, kind))
                holds[kind].append(hold * 1000)
                wall_holds[kind].append(wall_hold * 1000)
                walls[kind].append(wall)
    ms = {kind: median(values) for kind, values in holds.items()}
    met = all(ms[kind] <= target for kind, target in TARGETS_MS.items())
    return [
        Row(
            "B10",
            f"longest hold of the event loop while a listing of {PAGE_SIZE}-item pages is read "
            f"({ITEMS:,} catalog items, window of 8): JSON / XML",
            f"{ms['json']:.0f} ms / {ms['xml']:.0f} ms",
            f"<= {TARGETS_MS['json']:.0f} ms / <= {TARGETS_MS['xml']:.0f} ms",
            met,
            (
                "A probe task hands the loop back at every turn (`await asyncio.sleep(0)`); the figure is "
                "the longest gap between two of its turns while the listing is read, in the thread's CPU "
                "time (the work the loop did meanwhile). Round by round: JSON "
                f"{_shown(holds['json'])} ms, XML {_shown(holds['xml'])} ms. In wall time, which adds "
                "whatever time the process waited for a CPU on this shared machine: JSON "
                f"{_shown(wall_holds['json'])} ms, XML {_shown(wall_holds['xml'])} ms. The listing took "
                f"{median(walls['json']):.2f} s in JSON, {median(walls['xml']):.2f} s in XML.",
            ),
        )
    ]


def _shown(values: list[float]) -> str:
    return ", ".join(f"{value:.0f}" for value in values)
