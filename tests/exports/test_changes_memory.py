"""The diff's memory grows with a catalog's number of items, never with their size: the baseline
keeps each item's identity, a digest of its content and where its line is, and the new listing is
compared in one pass, one item at a time (the figures of a 100,000-item catalog: bench B15)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from enterprise_async.exports._atomic_file import AtomicFile
from enterprise_async.exports._baseline import Baseline
from enterprise_async.exports._catalog_writer import item_names
from enterprise_async.exports._changes import ChangeCounts, ChangeFeed

ITEMS = 4_000
SMALL, LARGE = 100, 5_000
"""Characters of each item's description: a catalog of the same items, fifty times larger."""


def items(size: int, *, night: int) -> Iterator[dict[str, Any]]:
    """A catalog's items, made one at a time; the second night 1% of them changed: 20 updated,
    10 removed, 10 created."""
    for number in range(ITEMS + (10 if night else 0)):
        if night and number < ITEMS and number % 400 == 7:
            continue  # removed
        key = f"MemX+M.{number}x" if number < ITEMS else f"NewX+N.{number}x"
        title = "Renamed" if night and number % 200 == 3 else f"Course {number}"
        yield {
            "content_type": "course",
            "key": key,
            "title": title,
            "full_description": "d" * size,
            "content_last_modified": f"2026-12-0{1 + night}T00:00:00Z",
        }


def diffed(directory: Path, size: int) -> tuple[int, int, ChangeCounts]:
    """The peak bytes tracemalloc sees while the second night is diffed against the first, the
    baseline file's bytes, and the counts."""
    baseline = directory / f"baseline-{size}.jsonl"
    with baseline.open("wb") as file:
        for item in items(size, night=0):
            file.write(orjson.dumps(item) + b"\n")
    names = item_names()
    tracemalloc.start()
    try:
        with (
            AtomicFile(directory / f"changes-{size}.jsonl") as out,
            AtomicFile(directory / f"held-{size}.jsonl") as held,
        ):
            feed = ChangeFeed(Baseline([baseline], names.fresh()), names, out)
            for item in items(size, night=1):
                feed.item(item, None)
            counts = feed.finish(held)
            out.commit()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, baseline.stat().st_size, counts


def test_the_diffs_memory_grows_with_the_number_of_items_not_their_size(tmp_path: Path) -> None:
    small, _, small_counts = diffed(tmp_path, SMALL)
    large, large_file, large_counts = diffed(tmp_path, LARGE)
    for counts in (small_counts, large_counts):
        assert (counts.created, counts.updated, counts.removed) == (10, 20, 10)
        assert counts.unchanged == ITEMS - 30
    assert large < 1.3 * small, f"{large:,} bytes at the peak for items 50 times larger, {small:,} for small"
    assert large < large_file / 10  # far from the items it compared: 20 MB of them
