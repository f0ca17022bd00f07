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

An item the export cannot read (it breaks a promise of the spec) is written as sent to the
catalog's rejects file, and the catalog is complete with every other item ("complete, N rejected"):
a resume does not fetch it again for their sake. A catalog that fails is reported in the summary (a
listing that ended short of its count is a failure: ``IncompleteListingError``); the others still
complete. With ``changes=True``, each catalog's changes since its baseline are written beside its
export (``_changes``), and a catalog whose record and count have not moved is not read again. The
directory is locked for the run (``DirectoryLock``): a second export into it fails at once, naming
the run that holds it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import attrs

from .._generated.client import EnterpriseClient
from ..errors import EnterpriseError
from ..models import Catalog
from ._atomic_file import AtomicFile
from ._catalog_files import CHANGES_SUFFIX
from ._catalog_writer import ExportJob, ItemTally, catalog_file_name, write_catalog_contents
from ._changes import ChangeCounts
from ._lock import DirectoryLock
from ._manifest import CompletedCatalog, Manifest
from ._outcomes import CatalogOutcome, ExportProgress, ExportSummary, SilentProgress

__all__ = [
    "CatalogOutcome",
    "ExportProgress",
    "ExportSummary",
    "SilentProgress",
    "catalog_file_name",
    "changes_run",
    "distinct_catalogs",
    "export_catalogs",
    "failure_reason",
    "skipped_outcome",
]

logger = logging.getLogger("enterprise_async")

UNCHANGED: str = "its record and its count have not moved since its last export: not read again"


async def export_catalogs(
    client: EnterpriseClient,
    directory: str | os.PathLike[str],
    *,
    resume: bool = False,
    page_size: int | None = None,
    progress: ExportProgress | None = None,
    run_id: str | None = None,
    changes: bool = False,
) -> ExportSummary:
    """Export every catalog's contents to ``directory/<catalog uuid>.jsonl``, one item per line.

    Args:
        client: An open client; its ``max_concurrency`` bounds the requests in flight.
        directory: Created if needed (a ``Path`` or a path string); holds the files and
            ``manifest.json``.
        resume: Skip the catalogs the manifest records as complete and unchanged (same SHA-256),
            and continue each catalog it holds a checkpoint of (a run killed mid-way) from that
            checkpoint, when the catalog is unchanged and its partial file still starts
            with what the checkpoint records; any other catalog is exported from its start.
            With ``changes``, continue the run of changes the directory's last run left
            unfinished (the same changes as a run never stopped).
        page_size: Items per page; by default the largest the service allows (100: ``bulk_size``
            of the catalog listings in the spec), where it would apply 10.
        progress: Told about every step, for progress bars.
        run_id: This run's name in the directory's lock file (a new one when not given).
        changes: Write, beside each catalog's export, its changes since its baseline (the last
            complete export): ``<uuid>.changes.jsonl``. A catalog whose record and count have not
            moved since is not read (one request) and has no change.

    Returns the summary; a failing catalog is in it, not raised. An error listing the catalogs
    themselves is raised (``EnterpriseError``), since nothing can be exported then, and so is
    ``DirectoryLockedError`` when another run is exporting into ``directory``.
    """
    started = time.perf_counter()
    directory = Path(directory)
    lock = DirectoryLock(directory, run_id=run_id)
    await asyncio.to_thread(lock.acquire)
    try:
        manifest = await asyncio.to_thread(Manifest.open, directory)
        run = changes_run(manifest, resume) if changes else None
        job = ExportJob(
            client,
            directory,
            manifest,
            resume,
            page_size,
            progress or SilentProgress(),
            checkpoints=manifest,
            changes=run,
        )
        try:
            catalogs = distinct_catalogs(await client.catalogs.list().to_list())
            if run is not None:
                await asyncio.to_thread(manifest.begin_run, run)
            job.progress.catalogs_listed(catalogs)
            outcomes = await _all(job, catalogs)
            if run is not None and not any(outcome.status == "failed" for outcome in outcomes):
                await asyncio.to_thread(manifest.finish_run, run)
        finally:
            await asyncio.to_thread(manifest.save)  # a stopped run keeps its latest checkpoints
    finally:
        lock.release()
    return ExportSummary(directory, tuple(outcomes), time.perf_counter() - started)


def changes_run(manifest: Manifest, resume: bool) -> str:
    """The id of this run of changes: the unfinished one a resume continues, else a new one."""
    run = manifest.run
    if resume and run is not None and not run.get("finished"):
        return str(run["id"])
    return uuid.uuid4().hex


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
    outcome = await skipped_outcome(job, catalog) or await _write_catalog(job, catalog, started)
    job.progress.catalog_finished(outcome)
    return outcome


async def skipped_outcome(job: ExportJob, catalog: Catalog) -> CatalogOutcome | None:
    """The catalog's outcome when it need not be read: complete in this run of changes already, or
    (resuming, or with changes) complete and current by the manifest. With changes, a catalog
    complete from an earlier run is not read when its count has not moved either (one request),
    and it holds no item back: its changes file is then empty. The files are hashed off the event loop."""
    uuid_ = catalog.uuid or ""
    if job.changes is not None:
        done = job.manifest.entry(uuid_)
        if done is not None and (done.changes or {}).get("run") == job.changes:
            verified = await asyncio.to_thread(job.manifest.verified, done)
            if verified:
                return _skipped(job, catalog, done, ChangeCounts.from_dict(done.changes or {}))
    if not (job.resume or job.changes is not None):
        return None
    done = await asyncio.to_thread(job.manifest.completed, catalog)
    if done is None:
        return None
    if job.changes is None:
        return _skipped(job, catalog, done, None)
    if done.held_file is not None:
        return None  # it holds items back: read again, to tell whether they are gone
    page = await job.client.catalogs.contents(uuid_, page_size=1).first_page()
    if page.count != done.items + done.rejected:
        return None
    counts = ChangeCounts(unchanged=done.items, note=UNCHANGED)
    await asyncio.to_thread(_write_unchanged, job, done, counts)
    return _skipped(job, catalog, job.manifest.entry(uuid_) or done, counts)


def _write_unchanged(job: ExportJob, done: CompletedCatalog, counts: ChangeCounts) -> None:
    """Record an unchanged catalog in this run of changes: an empty changes file, and its entry
    saying so (blocking)."""
    assert job.changes is not None
    name = done.file.removesuffix(".jsonl") + CHANGES_SUFFIX
    with AtomicFile(job.directory / name) as out:
        out.commit()
    changes = {"run": job.changes, "file": name, **counts.to_dict()}
    job.manifest.record(attrs.evolve(done, changes=changes))


def _skipped(
    job: ExportJob, catalog: Catalog, done: CompletedCatalog, changes: ChangeCounts | None
) -> CatalogOutcome:
    directory = job.directory
    rejects = directory / done.rejects_file if done.rejects_file else None
    return CatalogOutcome(
        done.uuid,
        catalog.title,
        "skipped",
        done.items,
        directory / done.file,
        0.0,
        rejected=done.rejected,
        rejects=rejects,
        changes=changes,
    )


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
    return completed_outcome(job.directory, catalog, entry, time.perf_counter() - started, tally.resumed)


def completed_outcome(
    directory: Path, catalog: Catalog, entry: CompletedCatalog, seconds: float, resumed: int = 0
) -> CatalogOutcome:
    """The outcome of a catalog exported now, from its manifest entry."""
    return CatalogOutcome(
        entry.uuid,
        catalog.title,
        "complete",
        entry.items,
        directory / entry.file,
        seconds,
        resumed=resumed,
        rejected=entry.rejected,
        rejects=directory / entry.rejects_file if entry.rejects_file else None,
        changes=ChangeCounts.from_dict(entry.changes) if entry.changes else None,
    )


def failure_reason(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return f"{type(error).__name__}: {text}"
