"""``worker``: export the catalogs that ``catalogs export --queue`` enqueued, sharing token and budget."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from .._constants import REQUIRED_ENVIRONMENT
from ..fleet._queue import DEFAULT_JOB_TIMEOUT
from ..fleet._worker import run_worker
from ..fleet._worker_clients import has_environment_credentials
from ._failures import InputError, read_customers_file

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
@click.option(
    "--burst",
    is_flag=True,
    help="Stop once the queue is empty instead of waiting for more (start it after the jobs are enqueued).",
)
@click.option("--max-concurrency", type=click.IntRange(min=1), help="Requests in flight (SDK default: 8).")
@click.option(
    "--customers",
    "customers_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A JSON file of customers' credentials, for the jobs of `catalogs export --customers`.",
)
def worker(
    queue_url: str,
    rate_limit: str | None,
    max_jobs: int,
    job_timeout: float,
    burst: bool,
    max_concurrency: int | None,
    customers_file: Path | None,
) -> None:
    """Run a worker of catalog exports. Catalog jobs use the credentials in ENTERPRISE_* as every
    command does; customer jobs use the customer's credentials from --customers. Tokens and rate
    budgets are shared, per client id, through the queue's Redis with every other worker."""
    customers = read_customers_file(customers_file) if customers_file is not None else {}
    unavailable = [problem for customer in customers.values() if (problem := customer.missing_secret())]
    if unavailable:
        raise InputError(f"{customers_file}: the secret of a customer is missing: {'; '.join(unavailable)}")
    if not customers and not has_environment_credentials():
        raise InputError(
            f"{', '.join(REQUIRED_ENVIRONMENT)} not set: a worker takes its credentials from the environment "
            "(or its customers' from --customers)"
        )
    options = {"max_concurrency": max_concurrency} if max_concurrency else {}
    asyncio.run(
        run_worker(
            queue_url,
            rate_limit=rate_limit,
            client_options=options,
            customers=customers,
            max_jobs=max_jobs,
            job_timeout=job_timeout,
            burst=burst,
        )
    )
