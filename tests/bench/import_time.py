"""B11: what a user's first line costs, ``from enterprise_async import EnterpriseClient``, against
``import aiohttp`` (which it includes).

Each import runs in a fresh interpreter (``python -c``) that times the import statement alone, in
CPU time, the two taking turns, five interpreters each a round: the figure of a round is the ratio
of the two bests. The interpreter's own start is left out on both sides.
"""

from __future__ import annotations

import subprocess
import sys

from ._harness import Row, median

__all__ = ["run"]

RUNS = 5
"""Fresh interpreters per statement and round; the best of them is the round's figure."""
TARGET = 1.5
STATEMENTS = {
    "client": "from enterprise_async import EnterpriseClient",
    "aiohttp": "import aiohttp",
}
_TIMED = "import time; started = time.process_time(); {statement}; print(time.process_time() - started)"


def _import_seconds(statement: str) -> float:
    """CPU seconds ``statement`` takes in a fresh interpreter."""
    command = [sys.executable, "-c", _TIMED.format(statement=statement)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def run(rounds: int) -> list[Row]:
    for statement in STATEMENTS.values():  # compiled files written, disk caches warm
        _import_seconds(statement)
    ratios: list[float] = []
    bests: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    for _ in range(rounds):
        seconds: dict[str, list[float]] = {name: [] for name in STATEMENTS}
        for _ in range(RUNS):
            for name, statement in STATEMENTS.items():
                seconds[name].append(_import_seconds(statement))
        for name in STATEMENTS:
            bests[name].append(min(seconds[name]))
        ratios.append(bests["client"][-1] / bests["aiohttp"][-1])
    ratio = median(ratios)
    client, aiohttp = (median(bests[name]) * 1000 for name in STATEMENTS)
    return [
        Row(
            "B11",
            f"`{STATEMENTS['client']}` / `{STATEMENTS['aiohttp']}` (each in a fresh interpreter)",
            f"{ratio:.2f}x ({client:.0f} ms / {aiohttp:.0f} ms)",
            f"<= {TARGET}x",
            ratio <= TARGET,
            (
                f"The best of {RUNS} fresh interpreters per statement and round, the two taking turns, "
                "the median over rounds: the CPU time of the import statement alone "
                "(`time.process_time()` around it; wall times wander on a shared machine), not the "
                "interpreter's start. The client imports aiohttp, so its figure includes aiohttp's. "
                "Round by round: " + ", ".join(f"{value:.2f}x" for value in ratios) + ".",
            ),
        )
    ]
