"""``worker``: export the catalogs that ``catalogs export --queue`` enqueued, sharing token and budget.

Also what both fleet commands share: the ``[redis]`` extra's check, the ``--queue`` URL's check,
Redis's retry window, and one-line logging (never a traceback).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any, Final, Literal, NoReturn

import click

from .._request.options import ClientOptions
from .._transport.rate_limit import parse_rate_limit
from .._utils.constants import REQUIRED_ENVIRONMENT
from ..errors import ClientValidationError
from ..fleet._customers import Customer
from ..fleet._queue import DEFAULT_JOB_TIMEOUT, QUEUE_NAME
from ..fleet._redis import DEFAULT_RETRY_WINDOW, RedisPolicy, check_redis_url, redis_location
from ..fleet._worker_clients import has_environment_credentials
from ._failures import InputError, read_customers_file, require_installed, run
from ._options import concurrency_option
from ._output import say

__all__ = ["checked_queue_url", "fleet_logging", "require_fleet_extra", "retry_window_option", "worker"]

SIGNAL_EXIT_BASE: Final = 128
"""A command stopped by signal N exits with 128 + N, as shells report it (130 for SIGINT, 143 for SIGTERM)."""

retry_window_option = click.option(
    "--retry-window",
    type=click.FloatRange(min=0, min_open=True, max=24 * 3600),
    default=DEFAULT_RETRY_WINDOW,
    show_default=True,
    metavar="SECONDS",
    help="How long a Redis call is retried (Redis restarting, unreachable, frozen) before giving up.",
)


def require_fleet_extra() -> None:
    """Refuse, in one line naming the install command, when the ``[redis]`` extra is missing."""
    require_installed("redis")


def checked_queue_url(url: str) -> str:
    """``--queue`` if it names a Redis; else a usage error saying what it should look like."""
    try:
        return check_redis_url(url, "--queue")
    except ClientValidationError as error:
        raise InputError(f"{error} (for example redis://127.0.0.1:6379/0)") from None


class OneLineFormatter(logging.Formatter):
    """A record on one line, without the traceback a library logs with it."""

    def format(self, record: logging.LogRecord) -> str:
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return " ".join(super().format(record).split())


class StandardErrorHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever standard error is when a record comes (a test may have replaced it)."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _: Any) -> None:
        pass


def fleet_logging(level: int = logging.WARNING) -> None:
    """Log the fleet's notes (Redis away and back, jobs given back) and arq's on standard error,
    one line each."""
    handler = StandardErrorHandler()
    handler.setFormatter(OneLineFormatter("%(asctime)s %(levelname)s %(message)s", "%H:%M:%S"))
    for name in ("enterprise_async.fleet", "arq"):
        target = logging.getLogger(name)
        target.handlers = [kept for kept in target.handlers if not isinstance(kept, StandardErrorHandler)]
        target.addHandler(handler)
        if target.level == logging.NOTSET or target.level > level:
            target.setLevel(level)


@click.command()
@click.option("--queue", "queue_url", required=True, metavar="REDIS_URL", help="The Redis of the queue.")
@click.option("--rate-limit", help="The client's budget, shared by every worker: '18/second; 360/minute'.")
@click.option(
    "--max-jobs", type=click.IntRange(min=1), default=2, show_default=True, help="Catalogs at once."
)
@click.option(
    "--job-timeout",
    type=click.FloatRange(min=1, max=7 * 24 * 3600),
    default=DEFAULT_JOB_TIMEOUT,
    show_default=True,
    help="Seconds one catalog may take (past it, the catalog fails alone); a dead worker's catalog "
    "is taken up 10 seconds after that.",
)
@click.option(
    "--burst",
    is_flag=True,
    help="Stop once the queue is empty instead of waiting for more (start it after the jobs are enqueued).",
)
@concurrency_option("Requests in flight (SDK default: 8), or 'auto' (adapted to the answers).")
@click.option(
    "--customers",
    "customers_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A JSON file of customers' credentials, for the jobs of `catalogs export --customers`.",
)
@retry_window_option
def worker(
    queue_url: str,
    rate_limit: str | None,
    max_jobs: int,
    job_timeout: float,
    burst: bool,
    max_concurrency: int | Literal["auto"] | None,
    customers_file: Path | None,
    retry_window: float,
) -> None:
    """Run a worker of catalog exports. Catalog jobs use the credentials in ENTERPRISE_* as every
    command does; customer jobs use the customer's credentials from --customers. Tokens and rate
    budgets are shared, per client id, through the queue's Redis with every other worker.

    SIGTERM or Ctrl-C hands its running jobs back to the queue and stops it (exit 143 or 130)."""
    require_fleet_extra()
    checked_queue_url(queue_url)
    if rate_limit is not None:
        try:
            parse_rate_limit(rate_limit)
        except ClientValidationError as error:
            raise InputError(f"--rate-limit: {error.reason}") from None
    customers = read_customers_file(customers_file) if customers_file is not None else {}
    unavailable = [problem for customer in customers.values() if (problem := customer.missing_secret())]
    if unavailable:
        raise InputError(f"{customers_file}: the secret of a customer is missing: {'; '.join(unavailable)}")
    if not customers and not has_environment_credentials():
        raise InputError(
            f"{', '.join(REQUIRED_ENVIRONMENT)} not set: a worker takes its credentials from the environment "
            "(or its customers' from --customers)"
        )
    from ..fleet._worker import run_worker

    fleet_logging()
    options = ClientOptions(max_concurrency=max_concurrency) if max_concurrency else ClientOptions()
    summary = _serves(queue_url, customers, rate_limit, max_jobs, job_timeout)
    stopped_by = run(
        run_worker(
            queue_url,
            rate_limit=rate_limit,
            options=options,
            customers=customers,
            max_jobs=max_jobs,
            job_timeout=job_timeout,
            burst=burst,
            policy=RedisPolicy(retry_window=retry_window),
            announce=lambda: say(summary, stderr=True),
        )
    )
    if stopped_by is not None:
        _interrupted(stopped_by)


def _serves(
    queue_url: str, customers: dict[str, Customer], rate_limit: str | None, max_jobs: int, job_timeout: float
) -> str:
    """The line a worker prints once it is ready: who it is, what it serves, where, and how."""
    served = []
    if has_environment_credentials():
        served.append(f"catalog exports as client {os.environ.get('ENTERPRISE_CLIENT_ID')}")
    if customers:
        served.append(f"the customers {', '.join(customers)}")
    budget = f", rate limit {rate_limit}" if rate_limit else ""
    return (
        f"worker {os.getpid()}@{socket.gethostname()} serves {' and '.join(served)} from the queue "
        f"{QUEUE_NAME} on {redis_location(queue_url)} ({max_jobs} jobs at a time, job timeout "
        f"{job_timeout:g} s{budget})"
    )


def _interrupted(number: signal.Signals) -> NoReturn:
    """Say, in one line, that a signal stopped the worker, and exit with 128 + its number."""
    stopped = "the worker stopped; its running jobs went back to the queue"
    say(f"interrupted by {number.name}: {stopped}", stderr=True)
    raise click.exceptions.Exit(SIGNAL_EXIT_BASE + int(number))
