"""``worker``: export the catalogs that ``catalogs export --queue`` enqueued, sharing token and budget."""

from __future__ import annotations

import asyncio

import click

from ._context import REQUIRED_ENVIRONMENT
from ._failures import InputError
from ._queue import DEFAULT_JOB_TIMEOUT, run_worker

__all__ = ["worker"]


@click.command()
@click.option("--queue", "queue_url", required=True, metavar="REDIS_URL", help="The Redis of the queue.")
@click.option("--rate-limit", help="The client's budget, shared by every worker: '18/second; 360/minute'.")
@click.option(
    "--max-jobs", type=click.IntRange(min=1), default=2, show_default=True, help="Catalogs at once."
)
@click.option(
    "--job-timeout",
    type=click.FloatRange(min=1),
    default=DEFAULT_JOB_TIMEOUT,
    show_default=True,
    help="Seconds one catalog may take; a dead worker's catalog is taken up 10 seconds after that.",
)
@click.option("--burst", is_flag=True, help="Stop once the queue is empty instead of waiting for more.")
@click.option("--max-concurrency", type=click.IntRange(min=1), help="Requests in flight (SDK default: 8).")
def worker(
    queue_url: str,
    rate_limit: str | None,
    max_jobs: int,
    job_timeout: float,
    burst: bool,
    max_concurrency: int | None,
) -> None:
    """Run a worker of catalog exports: credentials from ENTERPRISE_* as for every command; the
    token and the rate budget are shared through the queue's Redis with every other worker."""
    import os

    missing = [name for name in REQUIRED_ENVIRONMENT if not os.environ.get(name)]
    if missing:
        raise InputError(f"{', '.join(missing)} not set: a worker takes its credentials from the environment")
    options = {"max_concurrency": max_concurrency} if max_concurrency else {}
    asyncio.run(
        run_worker(
            queue_url,
            rate_limit=rate_limit,
            client_options=options,
            max_jobs=max_jobs,
            job_timeout=job_timeout,
            burst=burst,
        )
    )
