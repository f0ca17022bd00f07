"""One catalog's export: its pages streamed into its files, checkpointed after each page.

The listing goes on past the items it cannot read (``with_unreadable()``): each is written, as
sent, to the catalog's rejects file, and every other item to its export, so an item that breaks a
promise of the spec never stops a catalog. With changes, each item is also told to the catalog's
``ChangeFeed`` as it is written. Every page on disk is checkpointed (the listing's cursor, and how
much of each file is good), so a stopped or killed run continues after the last page checkpointed,
with each file cut back to it; a change feed then goes over what was written before, without
writing, and stands where it stood.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, TypeAlias

import orjson
from attrs import define, frozen

from .._generated.client import EnterpriseClient
from .._generated.operations import CATALOGS_CONTENTS
from .._paging import AsyncPager, take
from .._response.item_reading import ListingPage, UnreadableItem
from ..errors import ListingCursorError, ResponseDecodeError
from ..models import Catalog, to_dict
from ._baseline import Baseline, ItemNames
from ._catalog_files import FILE_SUFFIX, CatalogFiles
from ._changes import ChangeCounts, ChangeFeed
from ._checkpoint_files import CheckpointFiles
from ._manifest import CatalogCheckpoint, CompletedCatalog, Manifest, modified_stamp
from ._outcomes import ExportProgress
from ._rejects import reject_line

__all__ = ["ExportJob", "ItemTally", "catalog_file_name", "item_names", "write_catalog_contents"]

logger = logging.getLogger("enterprise_async")

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]")

Checkpoints: TypeAlias = Manifest | CheckpointFiles
"""A store of page checkpoints: ``checkpoint_of``, ``checkpoint``, ``finished``, ``save``."""


def catalog_file_name(uuid: str) -> str:
    """The file of a catalog: its uuid, kept to characters that are safe in any file system."""
    return _UNSAFE.sub("_", uuid).lstrip(".") + FILE_SUFFIX


def item_names() -> ItemNames:
    """How a catalog's items are named and compared (``x-sdk-changes`` of the spec's item schema)."""
    pagination = CATALOGS_CONTENTS.pagination
    assert pagination is not None
    return ItemNames(pagination)


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
    changes: str | None = None
    """The id of the run of changes this export belongs to; None: no change feed."""


@define
class ItemTally:
    """Pages and items of one catalog written so far."""

    pages: int = 0
    items: int = 0
    resumed: int = 0
    """Items already on disk when the catalog was taken up from its checkpoint."""
    rejected: int = 0
    """Items written to the rejects file (not counted in ``items``)."""
    promised: set[int] | None = None
    changes: ChangeCounts | None = None

    @property
    def position(self) -> int:
        """Items of the listing gone through: written to the export or to the rejects file."""
        return self.items + self.rejected


async def write_catalog_contents(job: ExportJob, catalog: Catalog, tally: ItemTally) -> CompletedCatalog:
    """Stream a catalog's pages into its files, counting pages and items as they land, and (when
    the job checkpoints) noting each page once it is on disk."""
    if not catalog.uuid:
        raise ResponseDecodeError("the catalog list gave a catalog without a uuid")
    name = catalog_file_name(catalog.uuid)
    pager = job.client.catalogs.contents(catalog.uuid).bulk(job.page_size).with_unreadable()
    keep = job.checkpoints is not None  # a stop keeps what is checkpointed
    with CatalogFiles(job.directory, name, keep_partial=keep, changes=job.changes is not None) as files:
        feed = await asyncio.to_thread(_feed, job, catalog, files) if job.changes is not None else None
        try:
            await _write_pages(job, catalog, pager, files, tally, feed)
        finally:
            if feed is not None and feed.baseline is not None:
                feed.baseline.close()
        files.commit()
    if job.checkpoints is not None:
        job.checkpoints.finished(catalog.uuid)
    return _entry(job, catalog, files, tally)


async def _write_pages(
    job: ExportJob,
    catalog: Catalog,
    pager: AsyncPager[Any, Any],
    files: CatalogFiles,
    tally: ItemTally,
    feed: ChangeFeed | None,
) -> None:
    """The catalog's pages into its files (from its checkpoint when there is one), then, with
    changes, the end of its change feed.

    The last page is not checkpointed: a cursor past it says the listing was read to its end, yet
    the listing vouches for that only once it has checked that every item its count promised came
    (``IncompleteListingError`` otherwise). A run stopped there resumes from the page before, read
    again, so that a listing that ended short is never taken up as complete."""
    pager = await _continued(job, catalog, pager, files, tally, feed)
    started = False
    async for page in take(pager.pages(), None):
        if not started:
            job.progress.catalog_started(catalog, _count(page))
            if tally.position:
                resumed = getattr(job.progress, "items_resumed", job.progress.items_written)
                resumed(catalog, tally.position)
            started = True
        rejected = _write_page(files, page, tally, feed)
        job.progress.items_written(catalog, len(page.items))
        _tell(job.progress, catalog, rejected, feed)
        if job.checkpoints is not None and not pager.cursor.done:
            job.checkpoints.checkpoint(_checkpoint(catalog, files, pager, tally, feed))
    if feed is not None:
        moved = feed.candidates > 0 and feed.doubts() is None and await _record_moved(job, catalog)
        tally.changes = await asyncio.to_thread(feed.finish, files.held, record_moved=moved)
        _tell(job.progress, catalog, 0, feed)


def _entry(job: ExportJob, catalog: Catalog, files: CatalogFiles, tally: ItemTally) -> CompletedCatalog:
    changes = None
    if job.changes is not None and tally.changes is not None:
        changes = {"run": job.changes, "file": files.changes.path.name, **tally.changes.to_dict()}
    held = files.held.size > 0 and job.changes is not None
    return CompletedCatalog(
        uuid=catalog.uuid or "",
        title=catalog.title,
        file=files.items.path.name,
        items=tally.items,
        bytes=files.items.size,
        sha256=files.items.sha256,
        content_last_modified=modified_stamp(catalog),
        completed_at=_now(),
        rejected=tally.rejected,
        rejects_file=files.rejects.path.name if tally.rejected else None,
        changes=changes,
        held_file=files.held.path.name if held else None,
        held_sha256=files.held.sha256 if held else None,
    )


def _count(page: ListingPage[Any, Any]) -> int | None:
    count = getattr(page.envelope, "count", None)
    return count if isinstance(count, int) else None


def _write_page(
    files: CatalogFiles, page: ListingPage[Any, Any], tally: ItemTally, feed: ChangeFeed | None
) -> int:
    """One page's items into the export, its unreadable ones into the rejects file; how many those were."""
    if feed is not None:
        feed.promise(_count(page))
    rejected = 0
    for item in page.items:
        if isinstance(item, UnreadableItem):
            identity = feed.rejected(item.raw) if feed is not None else item_names().base_name(_raw(item))
            files.rejects.write(reject_line(item, tally.position, identity))
            tally.rejected += 1
            rejected += 1
            continue
        data = to_dict(item)
        files.items.write(orjson.dumps(data) + b"\n")
        if feed is not None:
            feed.item(data, type(item))
        tally.items += 1
    files.flush()  # on disk (for the operating system) before a checkpoint says so
    tally.pages += 1
    return rejected


def _raw(item: UnreadableItem) -> dict[str, Any]:
    return item.raw if isinstance(item.raw, dict) else {}


def _tell(progress: ExportProgress, catalog: Catalog, rejected: int, feed: ChangeFeed | None) -> None:
    """The optional progress methods: items rejected, and the changes counted so far."""
    if rejected:
        told = getattr(progress, "items_rejected", None)
        if told is not None:
            told(catalog, rejected)
    if feed is not None:
        counted = getattr(progress, "changes_counted", None)
        if counted is not None:
            counted(catalog, feed.counts)


def _feed(job: ExportJob, catalog: Catalog, files: CatalogFiles) -> ChangeFeed:
    """The catalog's change feed against its baseline (blocking: it reads the baseline's files)."""
    names = item_names()
    found = job.manifest.baseline(catalog.uuid or "")
    baseline = Baseline(found[1], names.fresh()) if found is not None else None
    return ChangeFeed(baseline, names, files.changes)


async def _record_moved(job: ExportJob, catalog: Catalog) -> bool:
    """Whether the catalog's record moved while its contents were read (its listing could then
    have shifted in ways its pages do not show): the catalog list, read again."""
    for listed in await job.client.catalogs.list().to_list():
        if listed.uuid == catalog.uuid:
            return modified_stamp(listed) != modified_stamp(catalog)
    return True


async def _continued(
    job: ExportJob,
    catalog: Catalog,
    pager: AsyncPager[Any, Any],
    files: CatalogFiles,
    tally: ItemTally,
    feed: ChangeFeed | None,
) -> AsyncPager[Any, Any]:
    """The listing from the catalog's checkpoint, with its partial files taken up (cut back to the
    checkpoint), the tally at the checkpoint's counts and the change feed where it stood; the
    listing unchanged when there is no checkpoint to continue from."""
    store = job.checkpoints if job.resume else None
    checkpoint = store.checkpoint_of(catalog) if store is not None else None
    if checkpoint is None:
        return pager
    try:
        resumed = pager.resume(checkpoint.cursor)
    except ListingCursorError as error:  # another page size than the killed run's
        logger.warning("catalog %s starts again: its checkpoint does not fit (%s)", catalog.uuid, error)
        return pager
    if not await asyncio.to_thread(files.continue_from, checkpoint):
        logger.warning("catalog %s starts again: its partial files are not the checkpoint's", catalog.uuid)
        return pager
    sides = checkpoint.sides or {}
    tally.pages, tally.items, tally.resumed = checkpoint.pages, checkpoint.items, checkpoint.items
    tally.rejected = int(sides.get("rejected", 0))
    if feed is not None:
        feed.promised.update(int(count) for count in sides.get("promised", ()))
        await asyncio.to_thread(feed.replay, files.written(files.items), _rejects(files))
    logger.info("catalog %s continues after %d items (page %d)", catalog.uuid, tally.items, tally.pages)
    return resumed


def _rejects(files: CatalogFiles) -> Iterator[dict[str, Any]]:
    for line in files.written(files.rejects):
        record = orjson.loads(line)
        if isinstance(record, dict):
            yield record


def _checkpoint(
    catalog: Catalog,
    files: CatalogFiles,
    pager: AsyncPager[Any, Any],
    tally: ItemTally,
    feed: ChangeFeed | None,
) -> CatalogCheckpoint:
    sides = files.sides()
    if not files.changes_mode:
        del sides["changes"]
    sides["rejected"] = tally.rejected
    if feed is not None:
        sides["promised"] = sorted(feed.promised)
    return CatalogCheckpoint(
        uuid=catalog.uuid or "",
        file=files.items.part.name,
        cursor=pager.cursor.to_json(),
        items=tally.items,
        pages=tally.pages,
        bytes=files.items.size,
        sha256=files.items.sha256,
        content_last_modified=modified_stamp(catalog),
        written_at=_now(),
        sides=sides,
    )


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
