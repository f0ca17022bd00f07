"""B14: a sandbox's start time and resident memory at the default ``DataSize`` and at the largest
production sizes (1,000 plans and 100 policies a customer, 5,000 assignments a configuration,
100,000 catalog items and learner rows), side by side.

Each start runs in a fresh interpreter with ``enterprise_async.testing`` already imported: the
figure is the time ``async with Sandbox(size=...)`` takes to be serving (world generated, server
listening), in wall and CPU time, and the growth of the resident set (``VmRSS`` of
``/proc/self/status``) across it. What grows with the size is made when it is read, so the two
columns should be close; the target is that the largest costs at most 1.5x the default's start
and 20 MB more memory.
"""

from __future__ import annotations

import subprocess
import sys

import orjson

from ._harness import Row, median

__all__ = ["run"]

RUNS = 3
"""Fresh interpreters per size and round."""
LARGEST = (
    "DataSize(plans_per_customer=1000, policies_per_customer=100, assignments_per_configuration=5000,"
    " catalog_items=100_000, summary_rows_per_customer=100_000)"
)
SIZES = {"default": "DataSize()", "largest": LARGEST}
TIME_TARGET = 1.5
MEMORY_TARGET_MB = 20.0
_START = """
import asyncio, json, time
from pathlib import Path
from enterprise_async.testing import DataSize, Sandbox

def rss_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise LookupError("VmRSS")

async def main():
    before, wall, cpu = rss_mb(), time.perf_counter(), time.process_time()
    async with Sandbox(seed=0, size={size}) as sandbox:
        figures = [time.perf_counter() - wall, time.process_time() - cpu, rss_mb() - before]
        cpu = time.process_time()
        sandbox.data.plan(sandbox.data.plans[-1].uuid), sandbox.data.policies
        figures.append(time.process_time() - cpu)
    print(json.dumps(figures))

asyncio.run(main())
"""


def _start(size: str) -> tuple[float, float, float, float]:
    """Wall seconds, CPU seconds and RSS growth (MB) of one start in a fresh interpreter, and the
    CPU seconds of the first read of every plan and policy."""
    done = subprocess.run(
        [sys.executable, "-c", _START.format(size=size)], capture_output=True, text=True, check=True
    )
    wall, cpu, grown, first = orjson.loads(done.stdout.strip().splitlines()[-1])
    return float(wall), float(cpu), float(grown), float(first)


def run(rounds: int) -> list[Row]:
    figures: dict[str, list[tuple[float, float, float, float]]] = {name: [] for name in SIZES}
    for _ in range(rounds):
        for _ in range(RUNS):
            for name, size in SIZES.items():
                figures[name].append(_start(size))
    wall = {name: median([run[0] for run in runs]) for name, runs in figures.items()}
    cpu = {name: median([run[1] for run in runs]) for name, runs in figures.items()}
    grown = {name: median([run[2] for run in runs]) for name, runs in figures.items()}
    first = {name: median([run[3] for run in runs]) for name, runs in figures.items()}
    ratio = cpu["largest"] / cpu["default"]
    extra = grown["largest"] - grown["default"]
    return [
        Row(
            "B14",
            "`Sandbox()` start at the default size / at the largest (1,000 plans, 100 policies, "
            "5,000 assignments, 100,000 items and learner rows)",
            f"start {cpu['default'] * 1000:.0f} ms / {cpu['largest'] * 1000:.0f} ms CPU "
            f"({wall['default'] * 1000:.0f} / {wall['largest'] * 1000:.0f} ms wall); "
            f"RSS +{grown['default']:.1f} MB / +{grown['largest']:.1f} MB",
            f"<= {TIME_TARGET}x CPU, <= +{MEMORY_TARGET_MB:.0f} MB",
            ratio <= TIME_TARGET and extra <= MEMORY_TARGET_MB,
            (
                f"The median of {RUNS} fresh interpreters per size and round, the sizes taking turns, "
                "with `enterprise_async.testing` imported before the clock starts: the time "
                "`async with Sandbox(seed=0, size=...)` takes to be serving, and the growth of VmRSS "
                "across it. Nothing that grows with the size is made at the start: plans and policies "
                "when first read (that first read of every plan and policy took "
                f"{first['default'] * 1000:.1f} ms / {first['largest'] * 1000:.0f} ms CPU for "
                "3 x 2 plans and 3 x 3 policies / 3 x 1,000 plans and 3 x 100 policies), a plan's "
                "licenses, a configuration's assignments and a customer's learner rows when first "
                "touched, catalog items one by one when asked for.",
            ),
        )
    ]
