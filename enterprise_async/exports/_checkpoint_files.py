"""``CheckpointFiles``: page checkpoints kept beside each catalog's partial file, for writers that
share a directory but not its manifest (the queue's workers: only the enqueuer writes the manifest).

A worker killed mid-catalog leaves ``<uuid>.jsonl.part`` and ``<uuid>.jsonl.part.checkpoint``; the
worker that runs the job again continues after the last page the checkpoint records (the partial
file cut back to it, as a local resume does), so every item is fetched and written once more at most
for the page in flight, and is in the file exactly once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Final

import attrs
import orjson

from ..models import Catalog
from ._atomic_file import PART_SUFFIX, AtomicFile
from ._manifest import CatalogCheckpoint, modified_stamp, read_checkpoint

__all__ = ["CHECKPOINT_SUFFIX", "CheckpointFiles"]

CHECKPOINT_SUFFIX: Final = ".checkpoint"
"""Suffix, after the partial file's name, of the file holding its checkpoint."""


class CheckpointFiles:
    """Each catalog's checkpoint in a file of its own beside its partial file (``name_of(uuid)``
    is the catalog's final file name). Written after each page is on disk, atomically."""

    def __init__(self, directory: Path, name_of: Callable[[str], str]) -> None:
        self.directory = directory
        self._name_of = name_of

    def __repr__(self) -> str:
        return f"CheckpointFiles({str(self.directory)!r})"

    def path_of(self, uuid: str) -> Path:
        return self.directory / f"{self._name_of(uuid)}{PART_SUFFIX}{CHECKPOINT_SUFFIX}"

    def checkpoint_of(self, catalog: Catalog) -> CatalogCheckpoint | None:
        """The checkpoint a run left for the catalog, unless the catalog changed since or the file
        is not one this module wrote."""
        try:
            data = orjson.loads(self.path_of(catalog.uuid or "").read_bytes())
        except (FileNotFoundError, orjson.JSONDecodeError):
            return None
        entry = read_checkpoint(data)
        if entry is None or entry.uuid != catalog.uuid:
            return None
        return entry if entry.content_last_modified == modified_stamp(catalog) else None

    def checkpoint(self, entry: CatalogCheckpoint) -> None:
        """Note how far the catalog's partial file is written (its bytes must be on disk)."""
        with AtomicFile(self.path_of(entry.uuid)) as out:
            out.write(orjson.dumps(attrs.asdict(entry)))
            out.commit()

    def finished(self, uuid: str) -> None:
        """The catalog's file is complete: its checkpoint goes."""
        with contextlib.suppress(FileNotFoundError):
            self.path_of(uuid).unlink()

    def save(self) -> None:
        """Nothing to do: every checkpoint is written when noted."""
