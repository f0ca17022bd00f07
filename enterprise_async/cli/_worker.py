"""``run_worker``: an arq worker of both kinds of export job, by catalog and by customer.

At its start the worker opens what every job shares: a ``RedisTokenCache`` and a ``RateLimiter``
on the queue's Redis, and, when the environment has ``ENTERPRISE_*`` credentials, the client of the
catalog jobs. Customer jobs open a client per job with the customer's credentials from the
worker's customers file; tokens and budgets are kept per client id, so every worker exporting for
the same customer shares that customer's token and budget.
"""

from __future__ import annotations

import os
from typing import Any

from .._client import EnterpriseClient
from .._rate_limit import RateLimiter
from .._token_cache_redis import RedisTokenCache
from ._context import REQUIRED_ENVIRONMENT
from ._customers import Customer
from ._queue import EXPORT_FUNCTION, MAX_TRIES, QUEUE_NAME, export_catalog, redis_settings
from ._queue_customers import CUSTOMER_FUNCTION, export_customer

__all__ = ["has_environment_credentials", "run_worker"]


def has_environment_credentials() -> bool:
    """Whether ``ENTERPRISE_*`` holds what a client needs (catalog jobs use them)."""
    return all(os.environ.get(name) for name in REQUIRED_ENVIRONMENT)


async def _startup(ctx: dict[Any, Any]) -> None:
    settings = ctx["enterprise_settings"]
    ctx["token_cache"] = RedisTokenCache(settings["queue_url"])
    ctx["rate_limiter"] = RateLimiter(settings["queue_url"])
    ctx["client"] = (
        EnterpriseClient.from_env(
            token_cache=ctx["token_cache"],
            rate_limit=settings["rate_limit"],
            rate_limiter=ctx["rate_limiter"] if settings["rate_limit"] else None,
            **settings["client_options"],
        )
        if has_environment_credentials()
        else None
    )


async def _shutdown(ctx: dict[Any, Any]) -> None:
    if ctx["client"] is not None:
        await ctx["client"].aclose()
    await ctx["token_cache"].aclose()
    await ctx["rate_limiter"].aclose()


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
