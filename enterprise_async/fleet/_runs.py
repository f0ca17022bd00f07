"""Runs own their jobs, and one run at a time owns an output folder, fleet-wide.

A queued export is a *run* with an id. While it waits for its jobs, the enqueuer keeps a lease on
Redis (``enterprise-async:run:<id>``, renewed every third of ``lease`` seconds) and a claim on its
output folder, both on Redis (``enterprise-async:folder:<hash of the path>``) and on disk (the
folder's ``DirectoryLock``). Every job carries its run's id and lease:

- a job whose run's lease has expired (its enqueuer died, or ended) is dropped, not run: after a
  crash, Redis with persistence gives the dead run's jobs back, and they must not export again
  over the next run;
- a running job whose run ends stops, and its partial file is removed;
- a second run on the same folder gets ``DirectoryLockedError`` naming the holder, or waits;
- a job enqueued again after Redis lost it while the first ran ends with its twin's result
  (``twin_result``) instead of writing the files again.

A Redis that lost its data (restarted without persistence) loses the lease and the claim too: the
enqueuer sets them again at its next renewal, and a job that finds no lease waits one lease for it
before it gives up, so a live run is never dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final, TypeVar

import orjson
from attrs import frozen

from .._utils.constants import REDIS_KEY_PREFIX
from ..exports._lock import (
    DIRECTORY_LOCK_NAME,
    DirectoryLock,
    DirectoryLockedError,
    FileLock,
    LockHolder,
    holder_data,
    read_holder,
)
from . import _job_format
from ._job_format import JobPayloadError
from ._redis import is_redis_failure

__all__ = [
    "DEFAULT_LEASE",
    "RunClaim",
    "RunTicket",
    "guarded",
    "run_is_live",
    "stop_when_run_ends",
    "twin_result",
]

logger = logging.getLogger("enterprise_async.fleet")
T = TypeVar("T")

DEFAULT_LEASE: Final = 30.0
"""Seconds a run's lease lasts without renewal: the enqueuer renews it every third of that."""
LEASE_POLL: Final = 0.2
"""Seconds between two looks for a lease that is missing."""

# Take or keep a claim: set it when nobody holds it or this run does; else say who does.
_CLAIM = """
local current = redis.call('GET', KEYS[1])
if current == false or current == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return false
end
return current
"""

# Give a claim back only if this run still holds it.
_UNCLAIM = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


@frozen
class RunTicket:
    """What a job carries of its run: the id, and how long its lease lasts."""

    run_id: str
    lease: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, for the job's arguments."""
        return {"id": self.run_id, "lease": self.lease}

    @classmethod
    def from_dict(cls, data: Any) -> RunTicket:
        """The ticket a job carries; ``ValueError`` for one this SDK did not write."""
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            raise ValueError("the job carries no run id")
        lease = data.get("lease")
        if not isinstance(lease, (int, float)) or not 0 < lease < float("inf"):
            raise ValueError("the job's run lease is not a positive number of seconds")
        return cls(data["id"], float(lease))


def run_key(run_id: str) -> str:
    """The key of a run's lease."""
    return f"{REDIS_KEY_PREFIX}:run:{run_id}"


def folder_key(directory: Path) -> str:
    """The key of a folder's claim (a hash of its path: the fleet shares the folder by path)."""
    digest = hashlib.sha256(str(directory).encode()).hexdigest()[:32]
    return f"{REDIS_KEY_PREFIX}:folder:{digest}"


class RunClaim:
    """A run's lease and its claim on ``directory``, on Redis and on disk, held while it waits.

    ``acquire`` takes them (waiting up to ``wait`` seconds for another run to end), ``renew`` keeps
    them (call it every third of the lease; ``keep`` does), ``release`` gives them back.
    """

    def __init__(self, redis: Any, directory: Path, run_id: str, *, lease: float = DEFAULT_LEASE) -> None:
        self.redis = redis
        self.directory = directory
        self.ticket = RunTicket(run_id, lease)
        self.holder = LockHolder.this_process(run_id)
        self._value = orjson.dumps(holder_data(self.holder))
        self._disk = DirectoryLock(directory, run_id=run_id, stale_after=lease * 2)

    def __repr__(self) -> str:
        return f"RunClaim({str(self.directory)!r}, run {self.ticket.run_id})"

    async def acquire(self, *, wait: float = 0.0) -> None:
        """Claim the folder on disk and on Redis, and start the lease."""
        await asyncio.to_thread(self._disk.acquire, wait=wait)
        try:
            await self._claim_on_redis(wait)
        except BaseException:
            self._disk.release()
            raise

    async def _claim_on_redis(self, wait: float) -> None:
        deadline = time.monotonic() + wait
        while True:
            held_by = await self._claim()
            if held_by is None:
                return
            if time.monotonic() >= deadline:
                raise DirectoryLockedError(
                    self.directory / DIRECTORY_LOCK_NAME,
                    read_holder(held_by),
                    remedy=f"wait for it to end (--wait), or for its claim on Redis to expire "
                    f"({self.ticket.lease:g} s after it stopped renewing it)",
                )
            await asyncio.sleep(LEASE_POLL)

    async def _claim(self) -> bytes | None:
        lease_ms = str(int(self.ticket.lease * 1000))
        held_by: bytes | None = await self.redis.eval(
            _CLAIM, 1, folder_key(self.directory), self._value, lease_ms
        )
        if held_by is None:
            await self.redis.set(run_key(self.ticket.run_id), self._value, px=int(lease_ms))
        return held_by

    async def renew(self) -> None:
        """Extend the lease and the claims (setting them again if Redis lost them)."""
        self._disk.refresh()
        held_by = await self._claim()
        if held_by is not None:
            logger.warning(
                "the claim on %s passed to another run while this one waited: %s",
                self.directory,
                read_holder(held_by),
            )

    async def keep(self) -> None:
        """Renew every third of the lease, until cancelled; Redis being away is only logged."""
        while True:
            await asyncio.sleep(self.ticket.lease / 3)
            try:
                await self.renew()
            except Exception as error:
                if not is_redis_failure(error):
                    raise
                logger.warning("cannot renew the run's lease on Redis: %s", error)

    async def release(self) -> None:
        """End the run: its jobs still queued are dropped, its running jobs stop."""
        try:
            await self.redis.delete(run_key(self.ticket.run_id))
            await self.redis.eval(_UNCLAIM, 1, folder_key(self.directory), self._value)
        except Exception as error:  # the keys expire by themselves
            if not is_redis_failure(error):
                raise
        finally:
            self._disk.release()


async def run_is_live(redis: Any, ticket: RunTicket) -> bool:
    """Whether the job's run still holds its lease; a missing lease is looked for during one lease
    (the enqueuer sets it again after Redis lost it). Redis being away counts as live: a job is not
    dropped for an outage."""
    deadline = time.monotonic() + ticket.lease
    while True:
        try:
            if await redis.exists(run_key(ticket.run_id)):
                return True
        except Exception as error:
            if not is_redis_failure(error):
                raise
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(LEASE_POLL)


async def stop_when_run_ends(
    redis: Any, ticket: RunTicket, work: asyncio.Future[Any], tick: Callable[[], None] = lambda: None
) -> bool:
    """Watch the run while ``work`` goes on (calling ``tick`` every third of the lease, to refresh
    a lock); cancel the work once the run is over. Whether it was."""
    while not work.done():
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(work), ticket.lease / 3)
        if work.done():
            return False
        tick()
        if not await run_is_live(redis, ticket):
            work.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await work
            return True
    return False


async def guarded(
    redis: Any, ticket: RunTicket, lock_path: Path, work: Callable[[], Awaitable[T]]
) -> T | None:
    """Run ``work`` for a job of ``ticket``'s run, alone on ``lock_path``; None when dropped.

    Dropped: the run is over before the job starts, while it waits for the lock (another job
    writes the same files: a job of an earlier run that has not noticed yet, or this job's twin
    enqueued again after Redis lost it), or while it runs (the work is cancelled, so its partial
    file goes away; the lock keeps any other writer off that file meanwhile).
    """
    if not await run_is_live(redis, ticket):
        return None
    lock = FileLock(lock_path, run_id=ticket.run_id, stale_after=ticket.lease * 2)
    if not await _take(lock, redis, ticket):
        return None
    try:
        task = asyncio.ensure_future(work())
        try:
            if await stop_when_run_ends(redis, ticket, task, lock.refresh):
                return None
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        return task.result()
    finally:
        lock.release()


async def twin_result(context: dict[str, Any]) -> dict[str, Any] | None:
    """The result a twin of this job stored (the same job, enqueued again after Redis lost it while
    the first ran); this job then ends with the same result instead of writing the files again."""
    job_id = context.get("job_id")
    if not job_id:
        return None
    stored = await context["redis"].get(f"arq:result:{job_id}")
    if stored is None:
        return None
    try:
        data = _job_format.load(stored)
    except JobPayloadError:
        return None
    result = data["r"]
    return result if data["s"] and isinstance(result, dict) and "dropped" not in result else None


async def _take(lock: FileLock, redis: Any, ticket: RunTicket) -> bool:
    """Wait for ``lock`` as long as the run lasts; whether it was taken."""
    looked = time.monotonic()
    while True:
        try:
            await asyncio.to_thread(lock.acquire)
            return True
        except DirectoryLockedError:
            pass
        if time.monotonic() - looked > ticket.lease / 3:
            if not await run_is_live(redis, ticket):
                return False
            looked = time.monotonic()
        await asyncio.sleep(LEASE_POLL)
