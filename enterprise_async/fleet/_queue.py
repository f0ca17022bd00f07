"""Exports spread over machines: one arq job per catalog on Redis, run by ``enterprise-async worker``
(``_customer_queue`` enqueues one per customer instead, and ``_worker`` runs both kinds).

``export_via_queue`` lists the catalogs, enqueues one job per catalog that is not already complete,
waits for the jobs, and records each finished file in the directory's manifest, so the directory
ends up exactly as a local export leaves it. Workers export one catalog per job (``_catalog_job``)
with a client that shares its token (``RedisTokenCache``) and its rate budget (``RateLimiter``)
through the same Redis.
The directory must be shared by the workers and the command (same path).

Faults (see also ``_redis`` and ``_runs``):

- Redis away: every call is retried for the retry window; a restart shorter than that goes
  unnoticed. A job whose Redis calls fail past it fails alone (its catalog is named in the summary).
- A job lost with Redis's data (a restart without persistence) is enqueued again under its id.
- A job that fails (a timeout, an error, a refused payload) fails its catalog alone.
- A worker killed mid-catalog leaves ``<uuid>.jsonl.part`` and its page checkpoint beside it
  (``CheckpointFiles``); arq runs the job again once the dead worker's hold on it expires
  (``job_timeout`` + 10 seconds), and the new run continues after the last page checkpointed (the
  ``.part`` file cut back to it) and renames it into place: the file appears whole, once, every item
  in it once. A job that fails keeps its ``.part`` file and checkpoint the same way, for the next
  run. Each catalog's file is written under a lock file (``<uuid>.jsonl.lock``), so two jobs never
  write it at once; ``.part`` files nobody writes and no checkpoint vouches for are removed when
  the run ends.
- Jobs and results are JSON (``_job_format``); the jobs carry their run's id and lease (``_runs``).

Redis keys: arq's own (``arq:job:*``, ``arq:result:*``...), the queue ``enterprise-async:exports``,
the runs' leases and the folders' claims (``_runs``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final, TypeVar

from attrs import field, frozen

from .._generated.client import EnterpriseClient
from .._utils.json_types import JSONValue
from ..errors import EnterpriseError
from ..exports import PART_SUFFIX, CatalogOutcome, CompletedCatalog, ExportSummary, Manifest, SilentProgress
from ..exports._catalog_files import catalog_of
from ..exports._catalog_writer import ExportJob
from ..exports._catalogs import changes_run, completed_outcome, distinct_catalogs, skipped_outcome
from ..exports._checkpoint_files import CHECKPOINT_SUFFIX
from ..exports._lock import file_lock_path
from ..models import Catalog, to_dict
from . import _job_format
from ._job_format import JobPayloadError, failure_text
from ._redis import (
    RedisPolicy,
    RedisUnavailableError,
    check_redis_url,
    connection_options,
    redis_failures,
    redis_location,
)
from ._runs import DEFAULT_LEASE, RunClaim

__all__ = [
    "DEFAULT_JOB_TIMEOUT",
    "EXPORT_FUNCTION",
    "HEALTH_KEY",
    "MAX_TRIES",
    "QUEUE_NAME",
    "RESULT_POLL",
    "WORKER_HEARTBEAT",
    "JobQueue",
    "NoWorkerError",
    "QueueOptions",
    "export_via_queue",
    "gather_or_cancel",
    "queue_redis",
    "redis_cause",
]

T = TypeVar("T")
logger = logging.getLogger("enterprise_async.fleet")

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
HEALTH_KEY: Final = f"{QUEUE_NAME}:health-check"
"""arq's key that says a worker of the queue is alive (it expires a second after its interval)."""
WORKER_HEARTBEAT: Final = 2.0
"""Seconds between two notes of a worker's health (``HEALTH_KEY``)."""
WORKER_LOOK: Final = 1.0
"""Seconds between two looks for a worker while none has taken a job of the run."""


class NoWorkerError(EnterpriseError):
    """No worker took a job of the run within the wait timeout."""


@frozen
class QueueOptions:
    """How an enqueuer waits: for Redis, for another run on the folder, for a worker.

    Attributes:
        policy: Timeouts and retry window of every Redis call.
        lease: Seconds the run's lease lasts without renewal (renewed every third of it).
        wait: Seconds to wait for another run that holds the folder (0: fail at once, naming it).
        wait_timeout: Seconds to wait for a worker to take a first job; None: as long as it takes.
        notify: Told, in one line, what the run waits for (no worker yet, a job enqueued again).
        start_worker: How to start a worker of this queue, as the error of a run that no worker
            took says it (a command line gives its own, with its options).
    """

    policy: RedisPolicy = field(factory=RedisPolicy)
    lease: float = DEFAULT_LEASE
    wait: float = 0.0
    wait_timeout: float | None = None
    notify: Callable[[str], None] = field(default=logger.warning, repr=False)
    start_worker: str = "run_worker() with this queue's URL"


def queue_redis(url: str, policy: RedisPolicy) -> Any:
    """arq's Redis client on ``url``: JSON jobs, the policy's timeouts and retries."""
    options = connection_options(policy, url)  # first: it checks for the [redis] extra
    import redis.asyncio
    from arq.connections import ArqRedis

    pool = redis.asyncio.ConnectionPool.from_url(check_redis_url(url), **options)
    return ArqRedis(
        pool,
        job_serializer=_job_format.dump,
        job_deserializer=_job_format.load,
        default_queue_name=QUEUE_NAME,
    )


@frozen
class _JobState:
    result: bytes | None
    in_progress: bool
    queued: bool


class JobQueue:
    """The export queue as the enqueuing command uses it: a job enqueued, its result awaited,
    while the run holds its lease and its folder (see ``_runs``)."""

    def __init__(self, pool: Any, url: str, claim: RunClaim, options: QueueOptions) -> None:
        self._pool = pool
        self._url = url
        self._claim = claim
        self._options = options
        self._opened = time.monotonic()
        self._started = False
        self._looked_for_workers = 0.0
        self._said_waiting = False

    def __repr__(self) -> str:
        return f"JobQueue({redis_location(self._url)}, run {self.run_id})"

    @property
    def run_id(self) -> str:
        """This run's id: every job it enqueues carries it."""
        return self._claim.ticket.run_id

    @classmethod
    @asynccontextmanager
    async def open(
        cls, queue_url: str, directory: Path, options: QueueOptions | None = None
    ) -> AsyncIterator[JobQueue]:
        """The queue on the Redis at ``queue_url``, for a run that holds ``directory`` (on Redis
        and on disk) until it leaves; its connections are closed then."""
        options = options or QueueOptions()
        pool = queue_redis(queue_url, options.policy)
        try:
            claim = RunClaim(pool, directory, uuid.uuid4().hex, lease=options.lease)
            async with redis_failures(queue_url):
                await claim.acquire(wait=options.wait)
            keeper = asyncio.ensure_future(claim.keep())
            try:
                yield cls(pool, queue_url, claim, options)
            finally:
                keeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await keeper
                await claim.release()
        finally:
            await pool.aclose()
            await pool.connection_pool.disconnect()  # a client given its pool does not close it

    async def run(self, function: str, key: str, *arguments: Any) -> dict[str, Any]:
        """Enqueue ``function(run, *arguments)`` and wait for a worker's result: the job's dict,
        or ``{"error": reason}`` when the job failed (alone)."""
        job_id = f"export:{self.run_id}:{key}"
        job = (function, job_id, (self._claim.ticket.to_dict(), *arguments))
        try:
            async with redis_failures(self._url):
                await self._enqueue(*job)
                return await self._wait(job)
        except (RedisUnavailableError, JobPayloadError) as error:
            return {"error": failure_text(error)}

    async def _enqueue(self, function: str, job_id: str, arguments: tuple[Any, ...]) -> None:
        await self._pool.enqueue_job(function, *arguments, _job_id=job_id)

    async def _wait(self, job: tuple[str, str, tuple[Any, ...]]) -> dict[str, Any]:
        function, job_id, arguments = job
        while True:
            await asyncio.sleep(RESULT_POLL)
            state = await self._state(job_id)
            if state.result is not None:
                self._started = True
                outcome = _outcome(state.result)
                if "dropped" not in outcome:
                    return outcome
                # This run is live: the job found no lease while Redis had lost it. Run it again.
                await self._pool.delete(f"arq:result:{job_id}")
            elif state.in_progress:
                self._started = True
                continue
            elif state.queued:
                await self._look_for_workers()
                continue
            else:
                self._options.notify(f"a job ({job_id}) was lost with Redis's data; enqueued again")
            await self._enqueue(function, job_id, arguments)

    async def _state(self, job_id: str) -> _JobState:
        async with self._pool.pipeline(transaction=True) as pipe:
            pipe.get(f"arq:result:{job_id}")
            pipe.exists(f"arq:in-progress:{job_id}")
            pipe.zscore(QUEUE_NAME, job_id)
            result, in_progress, score = await pipe.execute()
        return _JobState(result, bool(in_progress), score is not None)

    async def _look_for_workers(self) -> None:
        """While no job of the run has started: say so once if no worker is alive, and give up
        after the wait timeout."""
        now = time.monotonic()
        if self._started or now - self._looked_for_workers < WORKER_LOOK:
            return
        self._looked_for_workers = now
        timeout = self._options.wait_timeout
        if timeout is not None and now - self._opened > timeout:
            raise NoWorkerError(
                f"no worker took a job within {timeout:g} s (--wait-timeout) from the queue on "
                f"{redis_location(self._url)}: start one with {self._options.start_worker}"
            )
        if not self._said_waiting and not await self._pool.exists(HEALTH_KEY):
            self._said_waiting = True
            until = f"up to {timeout:g} s" if timeout is not None else "until one starts (Ctrl-C to stop)"
            self._options.notify(
                f"waiting for a worker: none serves the queue on {redis_location(self._url)} yet; "
                f"waiting {until}"
            )


def _outcome(stored: bytes) -> dict[str, Any]:
    """A job's result as the enqueuer reads it: the job's dict, or why it failed."""
    data = _job_format.load(stored)
    result = data["r"]
    if not data["s"]:
        reason = str(result) or "the job failed"
        if reason.startswith("TimeoutError"):
            reason = f"the job ran past its worker's --job-timeout ({reason})"
        return {"error": reason}
    if not isinstance(result, dict):
        raise JobPayloadError("refused a job result that is not a JSON object")
    return result


async def gather_or_cancel(waits: Sequence[Awaitable[T]]) -> list[T]:
    """Every wait's result; if one raises, the others are cancelled before the error goes on."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def redis_cause(summary: ExportSummary) -> str | None:
    """Why every failed catalog of a queued export failed, when that is Redis (gone past the retry
    window): the one cause to name, rather than a count of catalogs. None otherwise."""
    errors = [outcome.error or "" for outcome in summary.failed]
    prefix = f"{RedisUnavailableError.__name__}:"
    if errors and all(error.startswith(prefix) for error in errors):
        return errors[0]
    return None


def remove_abandoned_parts(directory: Path) -> list[Path]:
    """``.part`` files that no job writes (no lock beside their file) and no checkpoint vouches for:
    left by jobs lost with a worker or with Redis before their first page. Removed; the list of them."""
    removed = []
    for part in directory.glob(f"*{PART_SUFFIX}"):
        final = part.with_name(catalog_of(part.name[: -len(PART_SUFFIX)]))  # a rejects file's: its catalog's
        checkpoint = final.with_name(final.name + PART_SUFFIX + CHECKPOINT_SUFFIX)
        if file_lock_path(final).exists() or checkpoint.exists():
            continue
        with contextlib.suppress(FileNotFoundError):
            part.unlink()
            removed.append(part)
    return removed


async def export_via_queue(
    client: EnterpriseClient,
    directory: str | os.PathLike[str],
    queue_url: str,
    *,
    resume: bool = False,
    page_size: int | None = None,
    client_options: Mapping[str, JSONValue] | None = None,
    options: QueueOptions | None = None,
    changes: bool = False,
) -> ExportSummary:
    """Export every catalog through the queue at ``queue_url``; returns the same summary as a
    local export once every job is done (the manifest is written here, as jobs finish). With
    ``changes``, the workers write each catalog's changes as ``export_catalogs(changes=True)`` does.

    ``client_options`` (``response_format``, ``max_concurrency``, ``max_retries``, ``timeout``)
    go with each job and replace the worker's own for it. ``options`` say how to wait (for Redis,
    for another run on the folder, for a worker). A catalog whose job fails is named in the
    summary; ``RedisUnavailableError``, ``DirectoryLockedError`` and ``NoWorkerError`` are raised
    when the run cannot start or no worker comes."""
    started = time.perf_counter()
    directory = await asyncio.to_thread(Path(directory).resolve)
    await asyncio.to_thread(directory.mkdir, parents=True, exist_ok=True)
    job_options = client_options or {}
    async with JobQueue.open(queue_url, directory, options) as queue:
        manifest = await asyncio.to_thread(Manifest.open, directory)
        run = changes_run(manifest, resume) if changes else None
        job = ExportJob(client, directory, manifest, resume, page_size, SilentProgress(), changes=run)
        catalogs = distinct_catalogs(await client.catalogs.list().to_list())
        if run is not None:
            await asyncio.to_thread(manifest.begin_run, run)
        outcomes = await gather_or_cancel([_one(queue, job, catalog, job_options) for catalog in catalogs])
        if run is not None and not any(outcome.status == "failed" for outcome in outcomes):
            await asyncio.to_thread(manifest.finish_run, run)
        await asyncio.to_thread(remove_abandoned_parts, directory)
    return ExportSummary(directory, tuple(outcomes), time.perf_counter() - started)


async def _one(
    queue: JobQueue, job: ExportJob, catalog: Catalog, client_options: Mapping[str, JSONValue]
) -> CatalogOutcome:
    skipped = await skipped_outcome(job, catalog)
    if skipped is not None:
        return skipped
    manifest, directory = job.manifest, job.directory
    started = time.perf_counter()
    result = await queue.run(
        EXPORT_FUNCTION,
        catalog.uuid or "",
        str(directory),
        to_dict(catalog),
        job.page_size,
        client_options,
        job.changes,
    )
    seconds = time.perf_counter() - started
    entry = _entry(result)
    if entry is None or entry.uuid != catalog.uuid:
        reason = str(result.get("error") or "the worker's result is not a manifest entry of this catalog")
        manifest.record_failure(catalog.uuid or "", catalog.title, reason)
        return CatalogOutcome(catalog.uuid or "", catalog.title, "failed", 0, None, seconds, reason)
    manifest.record(entry)
    return completed_outcome(directory, catalog, entry, seconds)


def _entry(result: dict[str, Any]) -> CompletedCatalog | None:
    """The manifest entry a worker sent back; None for an error or anything else."""
    data = result.get("entry")
    if not isinstance(data, dict):
        return None
    try:
        return CompletedCatalog(**data)
    except TypeError:
        return None
