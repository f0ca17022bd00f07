"""``run_worker``: an arq worker of both kinds of export job, by catalog and by customer; its
jobs' clients come from ``WorkerClients``.

It survives Redis being away for less than the retry window (every call is retried; a poll that
loses its connection mid-transaction is tried again at the next one). Past the window it stops with
``RedisUnavailableError``. SIGTERM and SIGINT hand the running jobs back to the queue (another
worker takes them up at once; their partial files are removed) and stop it: ``run_worker`` then
returns the signal, for the command line's exit code.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Callable
from typing import Any

from .._request.options import ClientOptions
from . import _job_format
from ._catalog_job import export_catalog
from ._customer_queue import CUSTOMER_FUNCTION, export_customer
from ._customers import Customer
from ._queue import EXPORT_FUNCTION, MAX_TRIES, QUEUE_NAME, WORKER_HEARTBEAT, queue_redis
from ._redis import RedisPolicy, RedisUnavailableError, is_redis_failure, redis_error, redis_location
from ._worker_clients import WorkerClients

__all__ = ["STOP_SIGNALS", "run_worker"]

logger = logging.getLogger("enterprise_async.fleet")

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop a worker cleanly."""
CANCEL_AGAIN = 0.5
"""Seconds after which a cancellation of the worker's poll that did not land is asked again."""


async def _startup(ctx: dict[Any, Any]) -> None:
    settings = ctx["enterprise_settings"]
    ctx["clients"] = WorkerClients(
        settings["queue_url"], rate_limit=settings["rate_limit"], options=settings["options"]
    )
    settings["announce"]()


async def _shutdown(ctx: dict[Any, Any]) -> None:
    clients = ctx.get("clients")
    if clients is not None:
        await clients.aclose()


def _fleet_worker_class() -> type[Any]:
    from arq import Worker
    from redis.exceptions import WatchError

    class FleetWorker(Worker):
        """arq's worker, whose poll survives a connection lost mid-transaction for the window."""

        def __init__(self, *args: Any, queue_url: str, policy: RedisPolicy, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.queue_url = queue_url
            self.policy = policy
            self.away_since: float | None = None

        async def _poll_iteration(self) -> None:
            try:
                await super()._poll_iteration()
            except Exception as error:
                # Not every call of arq's poll is retried by redis-py (a transaction that lost its
                # connection, a job's task): the poll itself is tried again until the window ends.
                if not isinstance(error, WatchError) and not is_redis_failure(error):
                    raise
                self._away(error)
                return
            if self.away_since is not None:
                self.away_since = None
                logger.warning("Redis at %s is back", redis_location(self.queue_url))

        def _away(self, error: Exception) -> None:
            now = time.monotonic()
            if self.away_since is None:
                self.away_since = now
                logger.warning(
                    "Redis at %s is away (%s); retrying for up to %g s",
                    redis_location(self.queue_url),
                    error,
                    self.policy.retry_window,
                )
            if now - self.away_since > self.policy.retry_window:
                raise redis_error(self.queue_url, error) from None

    return FleetWorker


async def run_worker(
    queue_url: str,
    *,
    rate_limit: str | None,
    options: ClientOptions,
    customers: dict[str, Customer],
    max_jobs: int,
    job_timeout: float,
    burst: bool,
    policy: RedisPolicy | None = None,
    announce: Callable[[], None] = lambda: None,
) -> signal.Signals | None:
    """Run a worker until stopped (or, with ``burst``, until the queue is empty); the signal that
    stopped it, if one did. ``announce`` is called once the worker is connected and ready."""
    policy = policy or RedisPolicy()
    pool = queue_redis(queue_url, policy)  # first: it checks for the [redis] extra
    from arq import func

    settings = {
        "queue_url": queue_url,
        "rate_limit": rate_limit,
        "options": options,
        "announce": announce,
    }
    worker = _fleet_worker_class()(
        # arq's protocol types a job as (ctx, *args, **kwargs); ours name their arguments.
        functions=[
            func(export_catalog, name=EXPORT_FUNCTION, max_tries=MAX_TRIES),  # type: ignore[arg-type]
            func(export_customer, name=CUSTOMER_FUNCTION, max_tries=MAX_TRIES),  # type: ignore[arg-type]
        ],
        queue_name=QUEUE_NAME,
        redis_pool=pool,
        on_startup=_startup,
        on_shutdown=_shutdown,
        ctx={"enterprise_settings": settings, "customers": customers},
        max_jobs=max_jobs,
        job_timeout=job_timeout,
        burst=burst,
        handle_signals=False,
        health_check_interval=WORKER_HEARTBEAT,
        job_serializer=_job_format.dump,
        job_deserializer=_job_format.load,
        queue_url=queue_url,
        policy=policy,
    )
    stopped_by: list[signal.Signals] = []
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    quiet_lost_redis_tasks(loop)
    for number in STOP_SIGNALS:
        loop.add_signal_handler(number, _stop, worker, number, stopped_by, stopping)
    try:
        await _until_stopped(worker, stopping)
    except Exception as error:
        if is_redis_failure(error):
            raise redis_error(queue_url, error) from None
        raise
    finally:
        for number in STOP_SIGNALS:
            loop.remove_signal_handler(number)
        await _close(worker)
    return stopped_by[0] if stopped_by else None


def quiet_lost_redis_tasks(loop: asyncio.AbstractEventLoop) -> None:
    """Tell in one line, not a traceback, of a task that failed on Redis and that nobody awaited.

    arq shields a job's last step (``finish_job``: storing its result) from cancellation; when
    Redis is gone, that step fails in a task nobody awaits, and asyncio prints "Task exception was
    never retrieved" with a traceback, even after the worker ended. Redis's absence is already
    told (and arq runs the job again); any other error still goes to the loop's handler. The
    handler stays for the loop's life: such a task may be collected after the worker stopped."""
    previous = loop.get_exception_handler()

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, BaseException) and is_redis_failure(error):
            reason = " ".join(str(error).split()) or type(error).__name__
            logger.warning("a job's last step could not reach Redis (%s); the job will run again", reason)
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handle)


async def _until_stopped(worker: Any, stopping: asyncio.Event) -> None:
    """Run the worker until it ends (``burst``), fails, or a signal stops it."""
    main = asyncio.ensure_future(worker.main())
    worker.main_task = main
    stop = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({main, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
        await _cancelled(main)


async def _cancelled(task: asyncio.Future[Any]) -> None:
    """Cancel ``task`` until it is done: a cancellation that lands while arq's poll waits on Redis
    can be lost (the poll then goes on), so it is asked again."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=CANCEL_AGAIN)
    error = None if task.cancelled() else task.exception()
    if error is not None:
        raise error


def _stop(
    worker: Any, number: signal.Signals, stopped_by: list[signal.Signals], stopping: asyncio.Event
) -> None:
    """Stop taking jobs, hand the running ones back (arq re-queues a cancelled job), stop polling."""
    if stopped_by:
        return
    stopped_by.append(number)
    stopping.set()
    worker.allow_pick_jobs = False
    for task in worker.tasks.values():
        task.cancel()
    if worker.main_task is not None:
        worker.main_task.cancel()


async def _close(worker: Any) -> None:
    """Let the jobs hand themselves back, then close the clients and the connections."""
    tasks = list(worker.tasks.values())
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    with contextlib.suppress(RedisUnavailableError):
        try:
            await worker.pool.delete(worker.health_check_key)
        except Exception as error:
            if not is_redis_failure(error):
                raise
    await _shutdown(worker.ctx)
    await worker.pool.aclose(close_connection_pool=True)
