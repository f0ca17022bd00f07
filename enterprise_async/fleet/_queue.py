"""Exports spread over machines: one arq job per catalog on Redis, run by ``enterprise-async worker``
(``_queue_customers`` enqueues one per customer instead, and ``_worker`` runs both kinds).

``export_via_queue`` lists the catalogs, enqueues one job per catalog that is not already complete,
waits for the jobs, and records each finished file in the directory's manifest, so the directory
ends up exactly as a local export leaves it. Workers export one catalog per job with a client that
shares its token (``RedisTokenCache``) and its rate budget (``RateLimiter``) through the same Redis.
The directory must be shared by the workers and the command (same path).

A worker killed mid-catalog leaves only ``<uuid>.jsonl.part``; arq runs the job again once the
dead worker's hold on it expires (``job_timeout`` + 10 seconds), and the new run rewrites the
``.part`` file from the start and renames it into place: the file appears whole, once.

Redis keys: arq's own (``arq:job:*``, ``arq:result:*``...) and the queue ``enterprise-async:exports``.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import attrs

from .._generated.client import EnterpriseClient
from ..errors import EnterpriseError
from ..exports import CatalogOutcome, CompletedCatalog, ExportSummary, Manifest, SilentProgress
from ..exports._catalogs import (
    ExportJob,
    ItemTally,
    distinct_catalogs,
    failure_reason,
    write_catalog_contents,
)
from ..models import Catalog, from_dict, to_dict
from ._worker_clients import WorkerClients

__all__ = [
    "DEFAULT_JOB_TIMEOUT",
    "EXPORT_FUNCTION",
    "MAX_TRIES",
    "JobQueue",
    "QUEUE_NAME",
    "RESULT_POLL",
    "export_catalog",
    "export_via_queue",
    "redis_settings",
]

QUEUE_NAME: Final = "enterprise-async:exports"
"""The arq queue of catalog exports."""
EXPORT_FUNCTION: Final = "export_catalog"
"""The name the workers run a catalog export under."""
DEFAULT_JOB_TIMEOUT: Final = 300.0
"""Seconds one catalog may take; a dead worker's job is taken up again 10 seconds after that."""
MAX_TRIES: Final = 5
"""Runs of one job (a worker killed mid-catalog costs one)."""
RESULT_POLL: Final = 0.2
"""Seconds between two looks at a job's result."""


def redis_settings(url: str) -> Any:
    """arq's settings for the Redis at ``url`` (a password and TLS as the URL gives them)."""
    from arq.connections import RedisSettings  # the [redis] extra

    return RedisSettings.from_dsn(url)


class JobQueue:
    """The export queue as the enqueuing command uses it: a job enqueued, its result awaited.

    Job ids carry the run's id, so that a job of an earlier run with the same key is not taken
    for this run's.
    """

    def __init__(self, pool: Any) -> None:
        self._pool = pool
        self._run = uuid.uuid4().hex

    @classmethod
    @asynccontextmanager
    async def open(cls, queue_url: str) -> AsyncIterator[JobQueue]:
        """The queue on the Redis at ``queue_url``, its connections closed on leaving."""
        from arq import create_pool

        pool = await create_pool(redis_settings(queue_url), default_queue_name=QUEUE_NAME)
        try:
            yield cls(pool)
        finally:
            await pool.aclose()

    async def run(self, function: str, key: str, *arguments: Any) -> dict[str, Any]:
        """Enqueue ``function(*arguments)`` and wait for a worker's result, however long it takes."""
        job = await self._pool.enqueue_job(function, *arguments, _job_id=f"export:{self._run}:{key}")
        result: dict[str, Any] = await job.result(timeout=None, poll_delay=RESULT_POLL)
        return result


async def export_via_queue(
    client: EnterpriseClient,
    directory: Path,
    queue_url: str,
    *,
    resume: bool = False,
    page_size: int | None = None,
    client_options: dict[str, Any] | None = None,
) -> ExportSummary:
    """Export every catalog through the queue at ``queue_url``; returns the same summary as a
    local export once every job is done (the manifest is written here, as jobs finish).

    ``client_options`` (``response_format``, ``max_concurrency``, ``max_retries``, ``timeout``)
    go with each job and replace the worker's own for it."""
    started = time.perf_counter()
    directory = await asyncio.to_thread(directory.resolve)
    manifest = await asyncio.to_thread(Manifest.open, directory)
    catalogs = distinct_catalogs(await client.catalogs.list().to_list())
    options = client_options or {}
    async with JobQueue.open(queue_url) as queue:
        waits = [_one(queue, manifest, catalog, resume, page_size, options) for catalog in catalogs]
        outcomes = await asyncio.gather(*waits)
    return ExportSummary(directory, tuple(outcomes), time.perf_counter() - started)


async def _one(
    queue: JobQueue,
    manifest: Manifest,
    catalog: Catalog,
    resume: bool,
    page_size: int | None,
    client_options: dict[str, Any],
) -> CatalogOutcome:
    directory = manifest.directory
    done = manifest.completed(catalog) if resume else None
    if done is not None:
        return CatalogOutcome(done.uuid, catalog.title, "skipped", done.items, directory / done.file, 0.0)
    started = time.perf_counter()
    result = await queue.run(
        EXPORT_FUNCTION, catalog.uuid or "", str(directory), to_dict(catalog), page_size, client_options
    )
    seconds = time.perf_counter() - started
    if result.get("error"):
        return CatalogOutcome(catalog.uuid or "", catalog.title, "failed", 0, None, seconds, result["error"])
    entry = CompletedCatalog(**result["entry"])
    manifest.record(entry)
    return CatalogOutcome(entry.uuid, catalog.title, "complete", entry.items, directory / entry.file, seconds)


async def export_catalog(
    context: dict[str, Any],
    directory: str,
    catalog: dict[str, Any],
    page_size: int | None,
    client_options: dict[str, Any],
) -> dict[str, Any]:
    """The job: one catalog to ``<directory>/<uuid>.jsonl``; its manifest entry, or why it failed."""
    clients: WorkerClients = context["clients"]
    client = await clients.environment(client_options)
    if client is None:
        return {"error": "this worker has no ENTERPRISE_* credentials: start it with them to export catalogs"}
    job = ExportJob(client, Path(directory), Manifest(Path(directory)), False, page_size, SilentProgress())
    try:
        entry = await write_catalog_contents(job, from_dict(Catalog, catalog), ItemTally())
    except (EnterpriseError, OSError) as error:
        return {"error": failure_reason(error)}
    return {"entry": attrs.asdict(entry)}
