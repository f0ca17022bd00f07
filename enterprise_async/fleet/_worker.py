"""``run_worker``: an arq worker of both kinds of export job, by catalog and by customer; its
jobs' clients come from ``WorkerClients``."""

from __future__ import annotations

from typing import Any

from ._customer_queue import CUSTOMER_FUNCTION, export_customer
from ._customers import Customer
from ._queue import EXPORT_FUNCTION, MAX_TRIES, QUEUE_NAME, export_catalog, redis_settings
from ._worker_clients import WorkerClients

__all__ = ["run_worker"]


async def _startup(ctx: dict[Any, Any]) -> None:
    settings = ctx["enterprise_settings"]
    ctx["clients"] = WorkerClients(
        settings["queue_url"], rate_limit=settings["rate_limit"], client_options=settings["client_options"]
    )


async def _shutdown(ctx: dict[Any, Any]) -> None:
    await ctx["clients"].aclose()


async def run_worker(
    queue_url: str,
    *,
    rate_limit: str | None,
    client_options: dict[str, Any],
    customers: dict[str, Customer],
    max_jobs: int,
    job_timeout: float,
    burst: bool,
) -> None:
    """Run a worker until stopped (or, with ``burst``, until the queue is empty)."""
    from arq import Worker, func

    settings = {"queue_url": queue_url, "rate_limit": rate_limit, "client_options": client_options}
    worker = Worker(
        # arq's protocol types a job as (ctx, *args, **kwargs); ours name their arguments.
        functions=[
            func(export_catalog, name=EXPORT_FUNCTION, max_tries=MAX_TRIES),  # type: ignore[arg-type]
            func(export_customer, name=CUSTOMER_FUNCTION, max_tries=MAX_TRIES),  # type: ignore[arg-type]
        ],
        queue_name=QUEUE_NAME,
        redis_settings=redis_settings(queue_url),
        on_startup=_startup,
        on_shutdown=_shutdown,
        ctx={"enterprise_settings": settings, "customers": customers},
        max_jobs=max_jobs,
        job_timeout=job_timeout,
        burst=burst,
        handle_signals=not burst,
    )
    try:
        await worker.async_run()
    finally:
        await worker.close()
