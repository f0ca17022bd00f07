"""What every benchmark shares: rows of the results table, medians, timed batches, the report."""

from __future__ import annotations

import gc
import os
import platform
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone

from attrs import frozen

__all__ = ["Row", "collector_off", "median", "per_call", "render_report"]


@frozen
class Row:
    """One line of the results table, and the notes that explain its figure."""

    key: str
    measures: str
    result: str
    target: str
    met: bool | None
    """None for a row that is reported without a target."""
    notes: tuple[str, ...] = ()


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


@contextmanager
def collector_off() -> Iterator[None]:
    """Time decoding the way ``timeit`` does: the cyclic collector off, after a full collection,
    so that no contender pays for garbage another one left behind."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def per_call(function: Callable[[], object], calls: int) -> float:
    """Seconds per call of ``function`` over a batch of ``calls``."""
    started = time.perf_counter()
    for _ in range(calls):
        function()
    return (time.perf_counter() - started) / calls


def _met(row: Row) -> str:
    if row.met is None:
        return "n/a"
    return "yes" if row.met else "**no**"


def render_report(rows: Sequence[Row], rounds: int) -> str:
    """The results as Markdown: the table, then the notes of each row."""
    moment = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# enterprise_async benchmarks",
        "",
        f"{moment}; Python {platform.python_version()} on {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs. Every figure is the median of {rounds} rounds (B4: see its notes); "
        "ratios are taken within each round, the contenders run side by side.",
        "",
        "| # | measures | result | target | met |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {row.key} | {row.measures} | {row.result} | {row.target} | {_met(row)} |" for row in rows]
    lines += ["", "## Notes", ""]
    for row in rows:
        lines += [f"- **{row.key}** {note}" for note in row.notes]
    return "\n".join(lines) + "\n"
