"""What an export of catalogs reports: one ``CatalogOutcome`` per catalog, the ``ExportSummary`` of
them all, and the ``ExportProgress`` told every step as it goes (the command line's progress bars)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from attrs import frozen

from .._utils.json_types import JSONValue
from ..models import Catalog
from ._catalog_files import CHANGES_SUFFIX, FILE_SUFFIX
from ._changes import ChangeCounts

__all__ = ["CatalogOutcome", "ExportProgress", "ExportSummary", "SilentProgress", "Status"]

Status = Literal["complete", "skipped", "failed"]


@frozen
class CatalogOutcome:
    """What happened to one catalog: exported now, skipped as already complete, or failed.

    A complete catalog may hold items the export could not read (``rejected``): each is in its
    rejects file (``rejects``), every other item in its export: "complete, N rejected". A run with
    changes tells what changed in the catalog since its baseline (``changes``)."""

    uuid: str
    title: str | None
    status: Status
    items: int
    """Items in its file (for a failed catalog: items written before the failure, kept in its
    partial file for ``resume``)."""
    path: Path | None
    """Its complete file; None when it failed."""
    seconds: float
    error: str | None = None
    resumed: int = 0
    """Items of ``items`` already in its partial file when this run took it up (``resume``): not
    fetched by this run."""
    rejected: int = 0
    """Items of the catalog the export could not read, in its rejects file (not in ``items``)."""
    rejects: Path | None = None
    """Its rejects file, when it has one."""
    changes: ChangeCounts | None = None
    """From a run with changes: what changed since the catalog's baseline (None otherwise, and
    for a catalog that failed: it reports no change)."""

    @property
    def state(self) -> str:
        """Its status in words: ``complete``, ``complete, 2 rejected``, ``skipped``, ``failed``;
        ``unchanged`` for a catalog a run with changes skipped with nothing changed."""
        status: str = self.status
        if status == "skipped" and self.changes is not None and not self.changes.changed:
            status = "unchanged"
        if self.rejected and self.status != "failed":
            return f"{status}, {self.rejected:,} rejected"
        return status

    @property
    def changes_file(self) -> Path | None:
        """Its changes file (``<uuid>.changes.jsonl`` beside its export), from a run with changes;
        None otherwise, and for a catalog that failed (it reports no change)."""
        if self.changes is None or self.path is None:
            return None
        return self.path.with_name(self.path.name.removesuffix(FILE_SUFFIX) + CHANGES_SUFFIX)

    def to_dict(self) -> dict[str, JSONValue]:
        """JSON-ready data."""
        return {
            "uuid": self.uuid,
            "title": self.title,
            "status": self.status,
            "state": self.state,
            "items": self.items,
            "rejected": self.rejected,
            "resumed": self.resumed,
            "path": str(self.path) if self.path else None,
            "rejects": str(self.rejects) if self.rejects else None,
            "changes": self.changes.to_dict() if self.changes is not None else None,
            "changes_file": str(changes) if (changes := self.changes_file) else None,
            "seconds": round(self.seconds, 3),
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CatalogOutcome:
        """The outcome ``to_dict`` described (as a worker of the export queue sends it back)."""
        path = data["path"]
        return cls(
            data["uuid"],
            data["title"],
            data["status"],
            data["items"],
            Path(path) if path is not None else None,
            data["seconds"],
            data["error"],
            data.get("resumed", 0),
            data.get("rejected", 0),
            Path(data["rejects"]) if data.get("rejects") else None,
            ChangeCounts.from_dict(data["changes"]) if data.get("changes") else None,
        )


@frozen
class ExportSummary:
    """The result of an export: one outcome per catalog, in the order of the catalog list."""

    directory: Path
    outcomes: tuple[CatalogOutcome, ...]
    seconds: float

    def _with(self, status: Status) -> tuple[CatalogOutcome, ...]:
        return tuple(outcome for outcome in self.outcomes if outcome.status == status)

    @property
    def completed(self) -> tuple[CatalogOutcome, ...]:
        """Catalogs exported by this run."""
        return self._with("complete")

    @property
    def skipped(self) -> tuple[CatalogOutcome, ...]:
        """Catalogs already complete from an earlier run (``resume``)."""
        return self._with("skipped")

    @property
    def failed(self) -> tuple[CatalogOutcome, ...]:
        """Catalogs that failed; their files were not written."""
        return self._with("failed")

    @property
    def items(self) -> int:
        """Items exported by this run."""
        return sum(outcome.items for outcome in self.completed)

    @property
    def items_this_run(self) -> int:
        """Items this run fetched and wrote: ``items`` less those a resumed catalog already had
        on disk. The export's rate counts these."""
        return sum(outcome.items - outcome.resumed for outcome in self.completed)

    @property
    def ok(self) -> bool:
        """Whether every catalog is complete (now or before); some may hold rejected items."""
        return not self.failed

    @property
    def rejected(self) -> int:
        """Items of the catalogs complete now or before that could not be read (in their rejects files)."""
        return sum(outcome.rejected for outcome in self.outcomes if outcome.status != "failed")

    @property
    def changes(self) -> ChangeCounts | None:
        """What changed across every catalog since its baseline (None without changes)."""
        counted = [outcome.changes for outcome in self.outcomes if outcome.changes is not None]
        if not counted:
            return None
        total = ChangeCounts()
        for counts in counted:
            total += counts
        return total

    def to_dict(self) -> dict[str, JSONValue]:
        """JSON-ready data."""
        return {
            "directory": str(self.directory),
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "items": self.items,
            "items_this_run": self.items_this_run,
            "rejected": self.rejected,
            "changes": changes.to_dict() if (changes := self.changes) is not None else None,
            "completed": len(self.completed),
            "skipped": len(self.skipped),
            "failed": len(self.failed),
            "catalogs": [outcome.to_dict() for outcome in self.outcomes],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExportSummary:
        """The summary ``to_dict`` described (as a worker of the export queue sends it back)."""
        outcomes = tuple(CatalogOutcome.from_dict(outcome) for outcome in data["catalogs"])
        return cls(Path(data["directory"]), outcomes, data["seconds"])


class ExportProgress(Protocol):
    """What an export reports as it goes (the command line draws progress bars from it)."""

    def catalogs_listed(self, catalogs: Sequence[Catalog]) -> None:
        """The catalogs about to be exported."""

    def catalog_started(self, catalog: Catalog, total: int | None) -> None:
        """A catalog's first page arrived; ``total`` is its item count when the server tells it."""

    def items_written(self, catalog: Catalog, count: int) -> None:
        """``count`` more items of a catalog are on disk (in its export, or in its rejects file).
        Items a resumed catalog already had on disk are told by ``items_resumed(catalog, count)``
        when the progress has that method (it is optional), else by this. Two more optional
        methods are told when they exist: ``items_rejected(catalog, count)``, the items of those
        written to the rejects file, and ``changes_counted(catalog, counts)``, a run's
        ``ChangeCounts`` of the catalog so far, after each page."""

    def catalog_finished(self, outcome: CatalogOutcome) -> None:
        """A catalog is complete, skipped or failed."""


class SilentProgress:
    """Reports nothing: the default of ``export_catalogs``."""

    def catalogs_listed(self, catalogs: Sequence[Catalog]) -> None:
        """Ignored."""

    def catalog_started(self, catalog: Catalog, total: int | None) -> None:
        """Ignored."""

    def items_written(self, catalog: Catalog, count: int) -> None:
        """Ignored."""

    def catalog_finished(self, outcome: CatalogOutcome) -> None:
        """Ignored."""
