"""``export_catalogs``: every catalog's contents to JSON Lines, concurrently, resumable.

All catalogs are exported at once and each catalog's pages are fetched ahead concurrently; the
client's ``max_concurrency`` is the one bound on requests in flight across all of them. Each page
is written as it arrives (one ``to_dict`` item per line), so memory holds the pages in flight,
never a whole catalog. A catalog's file becomes ``<catalog uuid>.jsonl`` only once complete (see
``AtomicFile``) and is then recorded in the directory's manifest (see ``Manifest``), which is what
``resume=True`` reads to skip it (once the file's SHA-256 matches). While a catalog is written, the
manifest holds a checkpoint after every page on disk (the listing's cursor, and the partial file's
size and SHA-256 up to there): ``resume=True`` continues a catalog whose run was killed (the
process gone, its partial file left behind) from there, after cutting the partial file back to the
checkpoint, so every item is in the file exactly once. A catalog that fails (a page past its
retries, the server gone) or a run that is stopped (Ctrl-C, SIGTERM, cancellation) keeps its partial
file and its latest checkpoint the same way, so nothing fetched is fetched again. A resume that
cannot verify a partial file against its checkpoint says so (a warning) and exports that catalog
from its start.
A catalog that fails is reported in the summary (a listing that ended short of its count is a failure:
``IncompleteListingError``); the others still complete. The directory is locked for the run
(``DirectoryLock``): a second export into it fails at once, naming the run that holds it.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Literal, Protocol, TypeAlias

import orjson
from attrs import define, frozen

from .._generated.client import EnterpriseClient
from .._paging import AsyncPager, take
from ..errors import EnterpriseError, ListingCursorError, ResponseDecodeError
from ..models import Catalog, to_dict
from ._atomic_file import AtomicFile
from ._checkpoint_files import CheckpointFiles
from ._lock import DirectoryLock
from ._manifest import CatalogCheckpoint, CompletedCatalog, Manifest, modified_stamp

__all__ = [
    "CatalogOutcome",
    "ExportProgress",
    "ExportSummary",
    "SilentProgress",
    "catalog_file_name",
    "export_catalogs",
]

logger = logging.getLogger("enterprise_async")

FILE_SUFFIX: Final = ".jsonl"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")

Status = Literal["complete", "skipped", "failed"]


@frozen
class CatalogOutcome:
    """What happened to one catalog: exported now, skipped as already complete, or failed."""

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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "uuid": self.uuid,
            "title": self.title,
            "status": self.status,
            "items": self.items,
            "resumed": self.resumed,
            "path": str(self.path) if self.path else None,
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
        """Whether every catalog is complete (now or before)."""
        return not self.failed

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "directory": str(self.directory),
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "items": self.items,
            "items_this_run": self.items_this_run,
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
        """``count`` more items of a catalog are on disk. Items a resumed catalog already had on
        disk are told by ``items_resumed(catalog, count)`` when the progress has that method
        (it is optional), else by this."""

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


def catalog_file_name(uuid: str) -> str:
    """The file of a catalog: its uuid, kept to characters that are safe in any file system."""
    return _UNSAFE.sub("_", uuid).lstrip(".") + FILE_SUFFIX


async def export_catalogs(
    client: EnterpriseClient,
    directory: Path,
    *,
    resume: bool = False,
    page_size: int | None = None,
    progress: ExportProgress | None = None,
    run_id: str | None = None,
) -> ExportSummary:
    """Export every catalog's contents to ``directory/<catalog uuid>.jsonl``, one item per line.

    Args:
        client: An open client; its ``max_concurrency`` bounds the requests in flight.
        directory: Created if needed; holds the files and ``manifest.json``.
        resume: Skip the catalogs the manifest records as complete and unchanged (same SHA-256),
            and continue each catalog it holds a checkpoint of (a run killed mid-way) from that
            checkpoint, when the catalog is unchanged and its partial file still starts
            with what the checkpoint records; any other catalog is exported from its start.
        page_size: Items per page; by default the largest the service allows (100: ``bulk_size``
            of the catalog listings in the spec), where it would apply 10.
        progress: Told about every step, for progress bars.
        run_id: This run's name in the directory's lock file (a new one when not given).

    Returns the summary; a failing catalog is in it, not raised. An error listing the catalogs
    themselves is raised (``EnterpriseError``), since nothing can be exported then, and so is
    ``DirectoryLockedError`` when another run is exporting into ``directory``.
    """
    started = time.perf_counter()
    lock = DirectoryLock(directory, run_id=run_id)
    await asyncio.to_thread(lock.acquire)
    try:
        manifest = await asyncio.to_thread(Manifest.open, directory)
        job = ExportJob(
            client, directory, manifest, resume, page_size, progress or SilentProgress(), checkpoints=manifest
        )
        try:
            catalogs = distinct_catalogs(await client.catalogs.list().to_list())
            job.progress.catalogs_listed(catalogs)
            outcomes = await _all(job, catalogs)
        finally:
            await asyncio.to_thread(manifest.save)  # a stopped run keeps its latest checkpoints
    finally:
        lock.release()
    return ExportSummary(directory, tuple(outcomes), time.perf_counter() - started)


def distinct_catalogs(catalogs: list[Catalog]) -> list[Catalog]:
    """Each catalog once: a listing that shifts while it is paged may repeat one, and two writers
    of the same file would ruin it."""
    seen: set[str | None] = set()
    kept = []
    for catalog in catalogs:
        if catalog.uuid not in seen:
            seen.add(catalog.uuid)
            kept.append(catalog)
    return kept


Checkpoints: TypeAlias = Manifest | CheckpointFiles
"""A store of page checkpoints: ``checkpoint_of``, ``checkpoint``, ``finished``, ``save``."""


@frozen
class ExportJob:
    client: EnterpriseClient
    directory: Path
    manifest: Manifest
    resume: bool
    page_size: int | None
    progress: ExportProgress
    checkpoints: Checkpoints | None = None
    """Where each page is checkpointed: the manifest (a local export), files beside the partial
    files (a queue's workers, who share the directory with the enqueuer's manifest and do not
    write it), or nowhere (a partial file is then removed when the export stops)."""


@define
class ItemTally:
    """Pages and items of one catalog written so far."""

    pages: int = 0
    items: int = 0
    resumed: int = 0
    """Items already on disk when the catalog was taken up from its checkpoint."""


async def _all(job: ExportJob, catalogs: Sequence[Catalog]) -> list[CatalogOutcome]:
    """Every catalog at once; if one raises (a bug, or cancellation), the others are cancelled too,
    so that their partial files are removed before this returns."""
    tasks = [asyncio.ensure_future(_export_catalog(job, catalog)) for catalog in catalogs]
    try:
        return await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _export_catalog(job: ExportJob, catalog: Catalog) -> CatalogOutcome:
    started = time.perf_counter()
    outcome = await _skip(job, catalog) or await _write_catalog(job, catalog, started)
    job.progress.catalog_finished(outcome)
    return outcome


async def _skip(job: ExportJob, catalog: Catalog) -> CatalogOutcome | None:
    """The catalog's outcome when the manifest vouches for its file (hashed off the event loop)."""
    if not job.resume:
        return None
    done = await asyncio.to_thread(job.manifest.completed, catalog)
    if done is None:
        return None
    path = job.directory / done.file
    return CatalogOutcome(done.uuid, catalog.title, "skipped", done.items, path, 0.0)


async def _write_catalog(job: ExportJob, catalog: Catalog, started: float) -> CatalogOutcome:
    """Export one catalog and record it in the manifest; any failure is its outcome, not raised."""
    tally = ItemTally()
    try:
        entry = await write_catalog_contents(job, catalog, tally)
        job.manifest.record(entry)
    except (EnterpriseError, OSError) as error:
        seconds = time.perf_counter() - started
        reason = failure_reason(error)
        await asyncio.to_thread(
            job.manifest.record_failure,
            catalog.uuid or "",
            catalog.title,
            reason,
            keep_checkpoint=job.checkpoints is not None,  # its partial file was kept
        )
        return CatalogOutcome(catalog.uuid or "", catalog.title, "failed", tally.items, None, seconds, reason)
    seconds = time.perf_counter() - started
    return CatalogOutcome(
        entry.uuid,
        catalog.title,
        "complete",
        entry.items,
        job.directory / entry.file,
        seconds,
        resumed=tally.resumed,
    )


async def write_catalog_contents(job: ExportJob, catalog: Catalog, tally: ItemTally) -> CompletedCatalog:
    """Stream a catalog's pages into its file, counting pages and items as they land, and (when
    the job checkpoints) noting each page in the manifest once it is on disk."""
    if not catalog.uuid:
        raise ResponseDecodeError("the catalog list gave a catalog without a uuid")
    path = job.directory / catalog_file_name(catalog.uuid)
    pager = job.client.catalogs.contents(catalog.uuid).bulk(job.page_size)
    keep = job.checkpoints is not None  # a stop keeps what is checkpointed
    with AtomicFile(path, keep_partial=keep) as out:
        pager = await _continued(job, catalog, pager, out, tally)
        started = False
        async for page in take(pager.pages(), None):
            if not started:
                job.progress.catalog_started(catalog, page.count)
                if tally.items:
                    resumed = getattr(job.progress, "items_resumed", job.progress.items_written)
                    resumed(catalog, tally.items)
                started = True
            _write_page(out, page.results, tally)
            job.progress.items_written(catalog, len(page.results))
            if job.checkpoints is not None:
                job.checkpoints.checkpoint(_checkpoint(catalog, out, pager, tally))
        out.commit()
    if job.checkpoints is not None:
        job.checkpoints.finished(catalog.uuid)
    return CompletedCatalog(
        uuid=catalog.uuid,
        title=catalog.title,
        file=path.name,
        items=tally.items,
        bytes=out.size,
        sha256=out.sha256,
        content_last_modified=modified_stamp(catalog),
        completed_at=_now(),
    )


def _write_page(out: AtomicFile, items: Sequence[Any], tally: ItemTally) -> None:
    for item in items:
        out.write(orjson.dumps(to_dict(item)) + b"\n")
    out.flush()  # on disk (for the operating system) before a checkpoint says so
    tally.pages += 1
    tally.items += len(items)


async def _continued(
    job: ExportJob, catalog: Catalog, pager: AsyncPager[Any, Any], out: AtomicFile, tally: ItemTally
) -> AsyncPager[Any, Any]:
    """The listing from the catalog's checkpoint, with its partial file taken up (cut back to the
    checkpoint) and the tally at the checkpoint's count; the listing unchanged when there is no
    checkpoint to continue from."""
    store = job.checkpoints if job.resume else None
    checkpoint = store.checkpoint_of(catalog) if store is not None else None
    if checkpoint is None:
        return pager
    try:
        resumed = pager.resume(checkpoint.cursor)
    except ListingCursorError as error:  # another page size than the killed run's
        logger.warning("catalog %s starts again: its checkpoint does not fit (%s)", catalog.uuid, error)
        return pager
    if not await asyncio.to_thread(out.continue_from, checkpoint.bytes, checkpoint.sha256):
        logger.warning("catalog %s starts again: its partial file is not the checkpoint's", catalog.uuid)
        return pager
    tally.pages, tally.items, tally.resumed = checkpoint.pages, checkpoint.items, checkpoint.items
    logger.info("catalog %s continues after %d items (page %d)", catalog.uuid, tally.items, tally.pages)
    return resumed


def _checkpoint(
    catalog: Catalog, out: AtomicFile, pager: AsyncPager[Any, Any], tally: ItemTally
) -> CatalogCheckpoint:
    return CatalogCheckpoint(
        uuid=catalog.uuid or "",
        file=out.part.name,
        cursor=pager.cursor.to_json(),
        items=tally.items,
        pages=tally.pages,
        bytes=out.size,
        sha256=out.sha256,
        content_last_modified=modified_stamp(catalog),
        written_at=_now(),
    )


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def failure_reason(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return f"{type(error).__name__}: {text}"
