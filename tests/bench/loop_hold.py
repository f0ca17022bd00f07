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
import gc
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
    the thread's CPU time (what the loop spent on other work), the same less the garbage collector's
    passes within it, and in wall time (plus any time the process waited for a CPU)."""

    def __init__(self) -> None:
        self.longest_cpu = 0.0
        self.longest_outside = 0.0
        self.longest_wall = 0.0
        self.collecting = 0.0
        """CPU seconds the collector has spent since the probe started."""
        self._started = 0.0

    def collector(self, phase: str, _: dict[str, int]) -> None:
        """A ``gc.callbacks`` entry: counts the collector's CPU time."""
        if phase == "start":
            self._started = time.thread_time()
        else:
            self.collecting += time.thread_time() - self._started

    async def run(self) -> None:
        cpu_clock, wall_clock = time.thread_time, time.perf_counter
        last_cpu, last_wall, last_collecting = cpu_clock(), wall_clock(), self.collecting
        while True:
            await asyncio.sleep(0)
            cpu, wall, collecting = cpu_clock(), wall_clock(), self.collecting
            self.longest_cpu = max(self.longest_cpu, cpu - last_cpu)
            self.longest_outside = max(self.longest_outside, cpu - last_cpu - (collecting - last_collecting))
            self.longest_wall = max(self.longest_wall, wall - last_wall)
            last_cpu, last_wall, last_collecting = cpu, wall, collecting


async def _longest_hold(address: SandboxAddress, response_format: str) -> Probe:
    """What the probe saw while the listing was read."""
    async with EnterpriseClient(
        client_id=address.client_id,
        client_secret=address.client_secret,
        base_url=address.base_url,
        response_format=response_format,  # type: ignore[arg-type]
    ) as client:
        await client.catalogs.contents(address.catalog, page_size=PAGE_SIZE).first_page()
        probe = Probe()
        gc.callbacks.append(probe.collector)
        task = asyncio.create_task(probe.run())
        try:
            await asyncio.sleep(0)  # the probe's first turn
            items = 0
            async for _ in client.catalogs.contents(address.catalog, page_size=PAGE_SIZE):
                items += 1
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            gc.callbacks.remove(probe.collector)
    if items != ITEMS:
        raise AssertionError(f"{response_format}: read {items} items, expected {ITEMS}")
    return probe


def run(rounds: int) -> list[Row]:
    seen: dict[str, dict[str, list[float]]] = {
        kind: {"cpu": [], "outside": [], "wall": []} for kind in TARGETS_MS
    }
    with remote_sandbox(RemoteSandbox(catalog_items=ITEMS)) as address:
        for _ in range(rounds):
            for kind, figures in seen.items():
                probe = asyncio.run(_longest_hold(address, kind))
                figures["cpu"].append(probe.longest_cpu * 1000)
                figures["outside"].append(probe.longest_outside * 1000)
                figures["wall"].append(probe.longest_wall * 1000)
    ms = {kind: {name: median(values) for name, values in figures.items()} for kind, figures in seen.items()}
    targets = f"<= {TARGETS_MS['json']:.0f} ms / <= {TARGETS_MS['xml']:.0f} ms"
    return [
        Row(
            "B10",
            f"longest hold of the event loop while a listing of {PAGE_SIZE}-item pages is read "
            f"({ITEMS:,} catalog items, window of 8): JSON / XML",
            f"{ms['json']['cpu']:.0f} ms / {ms['xml']['cpu']:.0f} ms",
            targets,
            all(ms[kind]["cpu"] <= target for kind, target in TARGETS_MS.items()),
            (
                "A probe task hands the loop back at every turn (`await asyncio.sleep(0)`); the figure is "
                "the longest gap between two of its turns while the listing is read, in the thread's CPU "
                f"time (the work the loop did meanwhile). Round by round: JSON {_shown(seen['json']['cpu'])} "
                f"ms, XML {_shown(seen['xml']['cpu'])} ms. In wall time, which adds whatever time the "
                "process waited for a CPU on this shared machine: JSON "
                f"{_shown(seen['json']['wall'])} ms, XML {_shown(seen['xml']['wall'])} ms.",
            ),
        ),
        Row(
            "B10",
            "the same, less the garbage collector's passes within the gap: JSON / XML",
            f"{ms['json']['outside']:.0f} ms / {ms['xml']['outside']:.0f} ms",
            targets,
            all(ms[kind]["outside"] <= target for kind, target in TARGETS_MS.items()),
            (
                "The collector's time is counted with a `gc.callbacks` entry of the benchmark's. The longest "
                "gaps are the interpreter's full collections, which the allocations of any code may start "
                "and whose length grows with every object the process holds; the SDK changes no collector "
                f"setting. Round by round: JSON {_shown(seen['json']['outside'])} ms, XML "
                f"{_shown(seen['xml']['outside'])} ms.",
            ),
        ),
    ]


def _shown(values: list[float]) -> str:
    return ", ".join(f"{value:.0f}" for value in values)
