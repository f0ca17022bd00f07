"""The manifest of an export directory: which catalogs are complete, for ``--resume``.

``manifest.json`` holds one entry per complete catalog: its file, item count, size, SHA-256, the
catalog's ``content_last_modified`` and when it completed, the items it could not read (written to
its rejects file), and, from a run with changes, its changes' counts and the items it held back;
under ``previous``, the last complete entry of each catalog whose latest export failed (still the
baseline a change feed compares with); under ``run``, the run of changes under way or done last;
and, under ``failed``, each catalog
whose last export failed, with the reason and when (a resume exports it again; completing it
removes it from there); and, under ``checkpoints``, each catalog being written: the cursor of its
listing after the last page on disk, and the size and SHA-256 of its partial file up to there.
A resume continues such a catalog from its cursor, after cutting its partial file back to the
recorded size, so no item is written twice (see ``CatalogCheckpoint``). An entry is written only
after its file has been renamed into place, and the manifest itself is replaced atomically, so it
never names a file that is incomplete. A catalog counts as done when its entry is there, its file
still has the recorded size and SHA-256 (content, not just size: a line edited in place is
caught), and the catalog has not changed since (same ``content_last_modified``); anything else
(no entry, a missing or edited file, an unreadable manifest) means exporting it again.
"""

from __future__ import annotations

import datetime
import hashlib
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, TypeVar

import attrs
import orjson
from attrs import frozen

from ..models import Catalog
from ._atomic_file import AtomicFile

__all__ = [
    "MANIFEST_NAME",
    "MANIFEST_VERSION",
    "CatalogCheckpoint",
    "CompletedCatalog",
    "FailedCatalog",
    "Manifest",
    "modified_stamp",
    "sha256_of",
]

MANIFEST_NAME: Final = "manifest.json"
MANIFEST_VERSION: Final = 1
CHECKPOINT_INTERVAL: Final = 0.5
"""Seconds between two saves of the manifest for checkpoints alone: a save (with its fsync) takes
milliseconds, pages can arrive faster, and a resume from a slightly older checkpoint loses nothing
(the partial file is cut back to it). Other changes are saved at once, with every checkpoint."""
HASH_CHUNK: Final = 1 << 20
"""Bytes read at a time when a file is hashed: memory stays flat whatever the file's size."""

logger = logging.getLogger("enterprise_async")
T = TypeVar("T")


@frozen
class CompletedCatalog:
    """The record of one catalog exported completely."""

    uuid: str
    title: str | None
    file: str
    """File name, relative to the export directory."""
    items: int
    bytes: int
    sha256: str
    content_last_modified: str | None
    """The catalog's ``content_last_modified`` when it was exported (ISO 8601)."""
    completed_at: str
    rejected: int = 0
    """Items the export could not read, each written as sent to ``rejects_file``."""
    rejects_file: str | None = None
    changes: dict[str, Any] | None = None
    """From a run with changes: ``run`` (its id), ``file`` (the changes file) and the counts
    (``ChangeCounts.to_dict``)."""
    held_file: str | None = None
    """Items held back for the consumer (part of the next run's baseline): their file..."""
    held_sha256: str | None = None
    """...and its SHA-256."""


@frozen
class FailedCatalog:
    """The record of a catalog whose last export failed: never taken as done."""

    uuid: str
    title: str | None
    reason: str
    failed_at: str


@frozen
class CatalogCheckpoint:
    """Where the export of one catalog stands: its partial file's first ``bytes`` bytes (hashing
    to ``sha256``) hold ``items`` items of ``pages`` pages, and ``cursor`` (a ``ListingCursor``'s
    JSON) continues the listing after them. Written after each page is on disk; a checkpoint is
    never taken as done, only as a place to continue from."""

    uuid: str
    file: str
    """The partial file's name, relative to the export directory."""
    cursor: str
    items: int
    pages: int
    bytes: int
    sha256: str
    content_last_modified: str | None
    written_at: str
    sides: dict[str, Any] | None = None
    """What the export's other files hold up to this checkpoint: for each of ``rejects`` and
    ``changes``, ``{"file", "bytes", "sha256"}`` (their partial files are cut back to it too), the
    items rejected so far (``rejected``) and the counts the envelopes promised (``promised``)."""


def modified_stamp(catalog: Catalog) -> str | None:
    """How the manifest writes a catalog's ``content_last_modified``."""
    moment = catalog.content_last_modified
    return moment.isoformat() if isinstance(moment, datetime.datetime) else None


class Manifest:
    """The complete catalogs of one export directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / MANIFEST_NAME
        document = self._document()
        self._entries = _entries(document.get("catalogs"), _entry)
        self._previous = _entries(document.get("previous"), _entry)
        self._failed = _entries(document.get("failed"), _failure)
        self._checkpoints = _entries(document.get("checkpoints"), read_checkpoint)
        run = document.get("run")
        self._run: dict[str, Any] | None = (
            run if isinstance(run, dict) and isinstance(run.get("id"), str) else None
        )
        self._saving = threading.Lock()
        """Saves come from the event loop and from threads (``asyncio.to_thread``)."""
        self._saved_at = -CHECKPOINT_INTERVAL

    @classmethod
    def open(cls, directory: Path) -> Manifest:
        """The manifest of ``directory``, creating the directory if needed."""
        directory.mkdir(parents=True, exist_ok=True)
        return cls(directory)

    def __repr__(self) -> str:
        return f"Manifest({str(self.path)!r}, {len(self._entries)} complete)"

    def __len__(self) -> int:
        return len(self._entries)

    def completed(self, catalog: Catalog) -> CompletedCatalog | None:
        """The entry of a catalog whose file is complete and current, if there is one.

        The file is read and hashed (blocking: call it from a thread in async code).
        """
        entry = self._entries.get(catalog.uuid or "")
        if entry is None or entry.content_last_modified != modified_stamp(catalog):
            return None
        return entry if self.verified(entry) else None

    def verified(self, entry: CompletedCatalog) -> bool:
        """Whether an entry's file is still the one it records (size and SHA-256; blocking)."""
        file = self.directory / entry.file
        if not file.is_file() or file.stat().st_size != entry.bytes or sha256_of(file) != entry.sha256:
            logger.warning("%s is not the file its manifest entry records; exporting it again", file)
            return False
        return True

    def entry(self, uuid: str) -> CompletedCatalog | None:
        """The complete entry of a catalog as recorded, unchecked."""
        return self._entries.get(uuid)

    def baseline(self, uuid: str) -> tuple[CompletedCatalog, list[Path]] | None:
        """What a change feed compares a catalog's new listing with: its last complete entry (kept
        under ``previous`` when a later export of it failed) and its files (the export, and the
        items it held back), when they are still what the entry records; None otherwise.

        The files are hashed (blocking: call it from a thread in async code)."""
        entry = self._entries.get(uuid) or self._previous.get(uuid)
        if entry is None:
            return None
        file = self.directory / entry.file
        if not file.is_file() or file.stat().st_size != entry.bytes or sha256_of(file) != entry.sha256:
            logger.warning("%s is not the file its manifest entry records: no baseline to compare with", file)
            return None
        paths = [file]
        if entry.held_file:
            held = self.directory / entry.held_file
            if not held.is_file() or sha256_of(held) != entry.held_sha256:
                logger.warning(
                    "%s is not the file its manifest entry records: no baseline to compare with", held
                )
                return None
            paths.append(held)
        return entry, paths

    @property
    def run(self) -> dict[str, Any] | None:
        """The run of changes under way, or done last: ``{"id", "started_at", "finished"}``."""
        return dict(self._run) if self._run is not None else None

    def begin_run(self, run_id: str) -> None:
        """Note a run of changes as under way (a resume continues it), and save."""
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        with self._saving:
            if self._run is None or self._run.get("id") != run_id:
                self._run = {"id": run_id, "started_at": now, "finished": False}
            self._save()

    def finish_run(self, run_id: str) -> None:
        """Note the run of changes as done (every catalog complete): the next one starts anew."""
        with self._saving:
            if self._run is not None and self._run.get("id") == run_id:
                self._run = {**self._run, "finished": True}
                self._previous.clear()  # every catalog's baseline is now its complete entry
            self._save()

    @property
    def failed(self) -> dict[str, FailedCatalog]:
        """The catalogs whose last export failed, by uuid."""
        return dict(self._failed)

    def checkpoint_of(self, catalog: Catalog) -> CatalogCheckpoint | None:
        """The checkpoint of a catalog's unfinished export, unless the catalog changed since."""
        entry = self._checkpoints.get(catalog.uuid or "")
        if entry is None or entry.content_last_modified != modified_stamp(catalog):
            return None
        return entry

    def checkpoint(self, entry: CatalogCheckpoint) -> None:
        """Note how far a catalog's partial file is written (its bytes must be on disk), and save
        unless the manifest was saved less than ``CHECKPOINT_INTERVAL`` ago (the next save, of a
        checkpoint or anything else, writes it)."""
        with self._saving:
            self._checkpoints[entry.uuid] = entry
            if time.monotonic() - self._saved_at >= CHECKPOINT_INTERVAL:
                self._save()

    def checkpointed_files(self) -> set[str]:
        """The names of the partial files a checkpoint vouches for (kept for a resume): each
        catalog's export and its other files (rejects, changes)."""
        names = {entry.file for entry in self._checkpoints.values()}
        for entry in self._checkpoints.values():
            for side in (entry.sides or {}).values():
                if isinstance(side, dict) and isinstance(side.get("file"), str):
                    names.add(side["file"])
        return names

    def finished(self, uuid: str) -> None:
        """The catalog's file is complete: ``record`` (which follows) drops its checkpoint."""

    def record(self, entry: CompletedCatalog) -> None:
        """Note a catalog as complete (its file must already be in place) and save the manifest."""
        with self._saving:
            self._entries[entry.uuid] = entry
            self._previous.pop(entry.uuid, None)
            self._failed.pop(entry.uuid, None)
            self._checkpoints.pop(entry.uuid, None)
            self._save()

    def record_failure(
        self, uuid: str, title: str | None, reason: str, *, keep_checkpoint: bool = False
    ) -> None:
        """Note that a catalog's export failed (and why), and save the manifest. A complete file of
        an earlier export is no longer vouched for: the catalog is exported again on resume, from its
        checkpoint when ``keep_checkpoint`` (its partial file was kept), else from its start."""
        now = datetime.datetime.now(datetime.timezone.utc).isoformat()
        with self._saving:
            done = self._entries.pop(uuid, None)
            if done is not None:  # still the baseline of the catalog's changes
                self._previous[uuid] = done
            if not keep_checkpoint:
                self._checkpoints.pop(uuid, None)  # its partial file is gone with the failure
            self._failed[uuid] = FailedCatalog(uuid, title, reason, now)
            self._save()

    def save(self) -> None:
        """Write the manifest now: the checkpoints noted since the last save included (a run that
        stops keeps its latest ones)."""
        with self._saving:
            self._save()

    def _save(self) -> None:
        document = {
            "version": MANIFEST_VERSION,
            "catalogs": {uuid: attrs.asdict(done) for uuid, done in sorted(self._entries.items())},
            "previous": {uuid: attrs.asdict(done) for uuid, done in sorted(self._previous.items())},
            "run": self._run,
            "failed": {uuid: attrs.asdict(failed) for uuid, failed in sorted(self._failed.items())},
            "checkpoints": {uuid: attrs.asdict(at) for uuid, at in sorted(self._checkpoints.items())},
        }
        with AtomicFile(self.path) as out:
            out.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
            out.commit()
        self._saved_at = time.monotonic()

    def _document(self) -> dict[str, Any]:
        """The manifest on disk; empty when there is none or it cannot be trusted."""
        try:
            document = orjson.loads(self.path.read_bytes())
        except (FileNotFoundError, orjson.JSONDecodeError):
            return {}
        if not isinstance(document, dict) or document.get("version") != MANIFEST_VERSION:
            return {}
        return document


def _entries(found: Any, read: Callable[[Any], T | None]) -> dict[str, T]:
    """The entries of one section of the manifest, each read by ``read`` (None: left out)."""
    if not isinstance(found, dict):
        return {}
    return {uuid: entry for uuid, data in found.items() if (entry := read(data)) is not None}


def read_checkpoint(data: Any) -> CatalogCheckpoint | None:
    """A checkpoint as written, or None (a hand-edited or foreign entry is not continued from)."""
    try:
        entry = CatalogCheckpoint(**data)
    except TypeError:
        return None
    counts = (entry.items, entry.pages, entry.bytes)
    texts = (entry.uuid, entry.file, entry.cursor, entry.sha256)
    if not all(isinstance(count, int) and not isinstance(count, bool) and count >= 0 for count in counts):
        return None
    return entry if all(isinstance(text, str) for text in texts) else None


def _failure(data: Any) -> FailedCatalog | None:
    try:
        return FailedCatalog(**data)
    except TypeError:
        return None


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file's content, read a chunk at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _entry(data: Any) -> CompletedCatalog | None:
    try:
        return CompletedCatalog(**data)
    except TypeError:
        return None
