"""B11: the time ``import enterprise_async`` takes, against ``import aiohttp`` (which it includes).

Each import runs in a fresh interpreter (``python -c``) that times the import statement alone, in
CPU time, the two packages one after the other, several times a round: the figure is the ratio
of the medians. The interpreter's own start is left out on both sides.
"""

from __future__ import annotations

import subprocess
import sys

from ._harness import Row, median

__all__ = ["run"]

RUNS = 9
"""Fresh interpreters per package and round."""
TARGET = 1.5
PACKAGES = ("enterprise_async", "aiohttp")
_TIMED = "import time; started = time.process_time(); import {name}; print(time.process_time() - started)"


def _import_seconds(name: str) -> float:
    """Seconds ``import name`` takes in a fresh interpreter."""
    command = [sys.executable, "-c", _TIMED.format(name=name)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def run(rounds: int) -> list[Row]:
    for name in PACKAGES:  # compiled files written, disk caches warm
        _import_seconds(name)
    ratios: list[float] = []
    times: dict[str, list[float]] = {name: [] for name in PACKAGES}
    for _ in range(rounds):
        seconds: dict[str, list[float]] = {name: [] for name in PACKAGES}
        for _ in range(RUNS):
            for name in PACKAGES:
                seconds[name].append(_import_seconds(name))
        ours, theirs = (median(seconds[name]) for name in PACKAGES)
        ratios.append(ours / theirs)
        times["enterprise_async"].append(ours)
        times["aiohttp"].append(theirs)
    ratio = median(ratios)
    return [
        Row(
            "B11",
            "`import enterprise_async` / `import aiohttp` (each in a fresh interpreter)",
            f"{ratio:.2f}x ({median(times['enterprise_async']) * 1000:.0f} ms / "
            f"{median(times['aiohttp']) * 1000:.0f} ms)",
            f"<= {TARGET}x",
            ratio <= TARGET,
            (
                f"The median of {RUNS} fresh interpreters per package and round, the two packages taking "
                "turns: the CPU time of the import statement alone (`time.process_time()` around it; wall "
                "times wander on a shared machine), not the interpreter's start. enterprise_async imports "
                "aiohttp, so its figure includes aiohttp's. "
                "Round by round: " + ", ".join(f"{value:.2f}x" for value in ratios) + ".",
            ),
        )
    ]
