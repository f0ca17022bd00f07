"""``CatalogFiles``: the files one catalog's export writes, partial until the catalog is complete.

Beside its export ``<uuid>.jsonl`` (one item a line), a catalog has:

- ``<uuid>.rejects.jsonl``: the items the export could not read, as sent (``_rejects``); only when
  there are some;
- with changes: ``<uuid>.changes.jsonl``, what was created, updated and removed since the
  baseline (``_changes``; empty when nothing changed), and ``<uuid>.held.jsonl``, the items held
  back for the next run's baseline (only when there are some).

Each is written as ``NAME.part`` and renamed once the catalog is complete, the export itself last,
so a file under its final name is always whole. A file of an earlier export that this one does not
write (a rejects file when nothing was rejected this time, a changes file after a run without
changes) is removed then: no file describes another export than the one beside it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from ._atomic_file import AtomicFile
from ._manifest import CatalogCheckpoint
from ._rejects import REJECTS_SUFFIX

__all__ = ["CHANGES_SUFFIX", "FILE_SUFFIX", "HELD_SUFFIX", "SIDE_SUFFIXES", "CatalogFiles", "catalog_of"]

FILE_SUFFIX: Final = ".jsonl"
CHANGES_SUFFIX: Final = ".changes.jsonl"
HELD_SUFFIX: Final = ".held.jsonl"
SIDE_SUFFIXES: Final = (REJECTS_SUFFIX, CHANGES_SUFFIX, HELD_SUFFIX)
"""What each of a catalog's other files adds to its file's stem."""


def catalog_of(name: str) -> str:
    """The export file a catalog's file belongs to (``<uuid>.rejects.jsonl`` -> ``<uuid>.jsonl``)."""
    for suffix in SIDE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)] + FILE_SUFFIX
    return name


class CatalogFiles:
    """One catalog's files in ``directory``, its export named ``file_name`` (``<uuid>.jsonl``).

    ``keep_partial``: a stop keeps the partial files (a checkpoint says how much of each is good).
    ``changes``: the export writes a changes file, and a held file when it holds something back.
    """

    def __init__(self, directory: Path, file_name: str, *, keep_partial: bool, changes: bool) -> None:
        stem = file_name.removesuffix(FILE_SUFFIX)
        self.directory = directory
        self.changes_mode = changes
        self.items = AtomicFile(directory / file_name, keep_partial=keep_partial)
        self.rejects = AtomicFile(directory / f"{stem}{REJECTS_SUFFIX}", keep_partial=keep_partial)
        self.changes = AtomicFile(directory / f"{stem}{CHANGES_SUFFIX}", keep_partial=keep_partial)
        self.held = AtomicFile(directory / f"{stem}{HELD_SUFFIX}")
        """Written once the listing has ended: never taken up by a resume."""

    def __repr__(self) -> str:
        return f"CatalogFiles({str(self.items.path)!r})"

    def __enter__(self) -> CatalogFiles:
        return self

    def __exit__(self, *details: Any) -> None:
        for file in (self.held, self.changes, self.rejects, self.items):
            file.__exit__(*details)

    def sides(self) -> dict[str, Any]:
        """What the rejects and changes files hold so far, for a checkpoint."""
        files = {"rejects": self.rejects, "changes": self.changes}
        return {
            name: {"file": file.part.name, "bytes": file.size, "sha256": file.sha256}
            for name, file in files.items()
        }

    def continue_from(self, checkpoint: CatalogCheckpoint) -> bool:
        """Take up the partial files a stopped run left, each cut back to what ``checkpoint``
        records of it; False, and nothing taken up, when one of them is not what it records."""
        sides = checkpoint.sides or {}
        wanted = [(self.items, checkpoint.bytes, checkpoint.sha256)]
        for name, file in (("rejects", self.rejects), ("changes", self.changes)):
            recorded = sides.get(name) or {"bytes": 0, "sha256": ""}
            if name == "changes" and self.changes_mode and "changes" not in sides:
                return False  # written without changes: a run with changes starts it again
            wanted.append((file, int(recorded["bytes"]), str(recorded["sha256"])))
        for file, size, sha256 in wanted:
            if size == 0 and file is not self.items:
                continue  # nothing of it was written: it starts empty
            if not file.continue_from(size, sha256):
                for taken in (entry[0] for entry in wanted):
                    taken.close()
                return False
        return True

    def written(self, file: AtomicFile) -> Iterator[bytes]:
        """The lines ``file`` (the export or its rejects) holds so far, read again from its partial
        file a line at a time (a resume with changes goes over them)."""
        file.flush()
        remaining = file.size
        if not remaining:
            return
        with file.part.open("rb") as written:
            for line in written:
                if remaining <= 0:
                    return
                remaining -= len(line)
                text = line.rstrip(b"\r\n")
                if text.strip():
                    yield text

    def flush(self) -> None:
        """Hand what was written to the operating system (before a checkpoint says so)."""
        for file in (self.items, self.rejects, self.changes):
            file.flush()

    def commit(self) -> None:
        """Give every file its final name, the export last, and remove those of an earlier export
        that this one did not write."""
        for file, wanted in (
            (self.rejects, self.rejects.size > 0),
            (self.changes, self.changes_mode),
            (self.held, self.changes_mode and self.held.size > 0),
        ):
            if wanted:
                file.commit()
            else:
                file.discard()
                with contextlib.suppress(FileNotFoundError):
                    file.path.unlink()
        self.items.commit()
