"""B10: the longest the event loop is held at a time while a listing of 100-item pages is read,
and what holding the whole listing costs the garbage collector.

A service that reads a listing shares its event loop with every other request it serves: while
the SDK decodes, nothing else runs. A probe task shares the loop with the listing and does nothing
but hand the loop back (``await asyncio.sleep(0)``); the longest gap between two of its turns is
the longest the loop was held (by the listing's decoding, its requests and their answers, and the
collector's passes). The same catalog of 10,000 items is read in JSON and in XML
(``response_format="xml"``), 100 pages of 100 items, window of 8. The reader runs in a fresh
interpreter of its own (``_held.py``), the sandbox in another: a full pass of the collector walks
every object the process tracks, and the reader's process holds only what the SDK and the reader
hold, as a service's would, not the benchmark's modules nor what other benchmarks left behind.
The client has decoded one page before the probe starts (its readers are loaded on the first
decode).

A second row holds the 10,000 items (``to_list()``) and counts the collector's CPU time meanwhile
(``gc.callbacks``), beside the same pages read by aiohttp and orjson with their items held as
plain dicts, each in a fresh interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs

from ._harness import Row, median
from ._remote import RemoteSandbox, SandboxAddress, remote_sandbox

__all__ = ["held_figures", "run"]

ITEMS = 10_000
PAGE_SIZE = 100
TARGETS_MS = {"json": 25.0, "xml": 60.0}
ROOT = Path(__file__).resolve().parents[2]


def held_figures(address: SandboxAddress, mode: str, response_format: str, items: int) -> dict[str, Any]:
    """The figures of one read of ``items`` items in a fresh interpreter (``python -m tests.bench._held``)."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    where = json.dumps(attrs.asdict(address))
    command = [sys.executable, "-m", "tests.bench._held", where, mode, response_format]
    done = subprocess.run(
        command, capture_output=True, text=True, check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": path}
    )
    figures: dict[str, Any] = json.loads(done.stdout)
    if figures["items"] != items:
        raise AssertionError(f"{mode} {response_format}: read {figures['items']} items, expected {items}")
    return figures


def run(rounds: int) -> list[Row]:
    seen: dict[str, list[dict[str, Any]]] = {kind: [] for kind in TARGETS_MS}
    held: dict[str, list[dict[str, Any]]] = {"hold": [], "dicts": []}
    with remote_sandbox(RemoteSandbox(catalog_items=ITEMS)) as address:
        for _ in range(rounds):
            for kind, figures in seen.items():
                figures.append(held_figures(address, "stream", kind, ITEMS))
            for mode, figures in held.items():
                figures.append(held_figures(address, mode, "json", ITEMS))
    ms = {
        kind: {name: median([each[name] for each in figures]) for name in ("cpu_ms", "outside_ms")}
        for kind, figures in seen.items()
    }
    targets = f"<= {TARGETS_MS['json']:.0f} ms / <= {TARGETS_MS['xml']:.0f} ms"
    return [
        Row(
            "B10",
            f"longest hold of the event loop while a listing of {PAGE_SIZE}-item pages is read item by item "
            f"({ITEMS:,} catalog items, window of 8; the reader in a process of its own): JSON / XML",
            f"{ms['json']['cpu_ms']:.0f} ms / {ms['xml']['cpu_ms']:.0f} ms",
            targets,
            all(ms[kind]["cpu_ms"] <= target for kind, target in TARGETS_MS.items()),
            (
                "A probe task hands the loop back at every turn (`await asyncio.sleep(0)`); the figure is "
                "the longest gap between two of its turns while the listing is read, in the thread's CPU "
                "time (the work the loop did meanwhile), the collector's passes included. Round by round: "
                f"JSON {_shown(seen['json'], 'cpu_ms')} ms, XML {_shown(seen['xml'], 'cpu_ms')} ms. In wall "
                "time, which adds whatever time the process waited for a CPU on this shared machine: JSON "
                f"{_shown(seen['json'], 'wall_ms')} ms, XML {_shown(seen['xml'], 'wall_ms')} ms. Full "
                f"passes of the collector during the read: JSON {_shown(seen['json'], 'full_passes')}, XML "
                f"{_shown(seen['xml'], 'full_passes')}, the longest JSON "
                f"{_shown(seen['json'], 'longest_full_ms')} ms, XML {_shown(seen['xml'], 'longest_full_ms')} "
                f"ms; objects the reader's process tracked at the end: {_shown(seen['json'], 'tracked')} "
                "(JSON).",
            ),
        ),
        Row(
            "B10",
            "the same, less the garbage collector's passes within the gap: JSON / XML",
            f"{ms['json']['outside_ms']:.0f} ms / {ms['xml']['outside_ms']:.0f} ms",
            targets,
            all(ms[kind]["outside_ms"] <= target for kind, target in TARGETS_MS.items()),
            (
                "The collector's time is counted with a `gc.callbacks` entry of the benchmark's. Round by "
                f"round: JSON {_shown(seen['json'], 'outside_ms')} ms, XML "
                f"{_shown(seen['xml'], 'outside_ms')} ms.",
            ),
        ),
        _holding(held),
    ]


def _holding(held: dict[str, list[dict[str, Any]]]) -> Row:
    """The collector's time while the listing is held: the SDK's models against orjson's dicts."""
    pairs = list(zip(held["hold"], held["dicts"], strict=True))
    ratios = [ours["collector_ms"] / theirs["collector_ms"] for ours, theirs in pairs]
    passes = [ours["one_full_pass_ms"] / theirs["one_full_pass_ms"] for ours, theirs in pairs]
    ours, theirs = held["hold"], held["dicts"]
    return Row(
        "B10",
        f"the collector's CPU time while {ITEMS:,} items are read and held (`to_list()`, JSON) / while the "
        "same pages are read by aiohttp and orjson and their items held as plain dicts",
        f"{median(ratios):.2f}x ({median([each['collector_ms'] for each in ours]):.0f} ms / "
        f"{median([each['collector_ms'] for each in theirs]):.0f} ms)",
        "n/a",
        None,
        (
            "Each side in a fresh interpreter importing the same modules; the collector's time counted by a "
            "`gc.callbacks` entry from the first request to the last item. Full passes during the read: "
            f"SDK {_shown(ours, 'full_passes')} ({_shown(ours, 'full_ms')} ms), dicts "
            f"{_shown(theirs, 'full_passes')} ({_shown(theirs, 'full_ms')} ms). One full pass "
            f"with every item held: SDK {_shown(ours, 'one_full_pass_ms')} ms, dicts "
            f"{_shown(theirs, 'one_full_pass_ms')} ms ({median(passes):.2f}x); objects tracked then: SDK "
            f"{_shown(ours, 'tracked')}, dicts {_shown(theirs, 'tracked')}.",
        ),
    )


def _shown(figures: list[dict[str, Any]], name: str) -> str:
    return ", ".join(f"{each[name]:,.0f}" for each in figures)
