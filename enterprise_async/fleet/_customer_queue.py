"""Exports spread over machines by customer: one arq job per customer, each with its own credentials.

``export_customers_via_queue`` enqueues one job per customer name of the customers file (see
``_customers``) and waits for them; it needs no credentials itself, and a job carries only the
name, so no secret goes to Redis. A worker started with the same file (``worker --customers``)
takes the customer's credentials from it, opens a client that shares the customer's token and rate
budget with every other worker (both are kept per client id), and exports every catalog of the
customer exactly as a local ``catalogs export`` would, into ``<directory>/<customer name>/``.

A worker killed mid-customer leaves that customer's complete catalogs in its manifest and the one
it was writing as a ``.part`` file; arq runs the job again once the dead worker's hold expires, and
the new run resumes: the complete catalogs are skipped, the others are written from the start and
renamed into place, so every file appears whole, once. A customer is written under a lock file
(``<directory>/<customer>.lock``), and its jobs carry their run, as catalog jobs do (``_queue``).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from attrs import frozen

from .._utils.json_types import JSONValue
from ..errors import EnterpriseError
from ..exports import PART_SUFFIX, ExportSummary, Manifest, export_catalogs
from ..exports._catalogs import failure_reason
from ..exports._lock import file_lock_path
from ._customers import Customer
from ._queue import JobQueue, QueueOptions, gather_or_cancel
from ._runs import RunTicket, guarded, twin_result
from ._worker_clients import WorkerClients

__all__ = [
    "CUSTOMER_FUNCTION",
    "CustomerOutcome",
    "CustomersSummary",
    "export_customer",
    "export_customers_via_queue",
]

CUSTOMER_FUNCTION: Final = "export_customer"
"""The name the workers run a customer's export under."""


@frozen
class CustomerOutcome:
    """One customer's export: its summary, or why it could not start (credentials, the catalog list)."""

    name: str
    summary: ExportSummary | None
    seconds: float
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether every catalog of the customer is complete (now or before)."""
        return self.summary is not None and self.summary.ok

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "customer": self.name,
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "error": self.error,
            "export": self.summary.to_dict() if self.summary is not None else None,
        }


@frozen
class CustomersSummary:
    """An export by customer: one outcome per customer, in the order of the customers file."""

    directory: Path
    outcomes: tuple[CustomerOutcome, ...]
    seconds: float

    @property
    def ok(self) -> bool:
        """Whether every catalog of every customer is complete."""
        return all(outcome.ok for outcome in self.outcomes)

    @property
    def failed(self) -> tuple[CustomerOutcome, ...]:
        """Customers with a failed catalog, or that could not be exported at all."""
        return tuple(outcome for outcome in self.outcomes if not outcome.ok)

    @property
    def items(self) -> int:
        """Items exported by this run, all customers together."""
        return sum(outcome.summary.items for outcome in self.outcomes if outcome.summary is not None)

    @property
    def rejected(self) -> int:
        """Items that could not be read (in their catalogs' rejects files), all customers together."""
        return sum(outcome.summary.rejected for outcome in self.outcomes if outcome.summary is not None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "directory": str(self.directory),
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "items": self.items,
            "rejected": self.rejected,
            "customers": [outcome.to_dict() for outcome in self.outcomes],
        }


async def export_customers_via_queue(
    directory: str | os.PathLike[str],
    queue_url: str,
    customers: Sequence[str],
    *,
    resume: bool = False,
    page_size: int | None = None,
    client_options: Mapping[str, JSONValue] | None = None,
    options: QueueOptions | None = None,
    changes: bool = False,
) -> CustomersSummary:
    """Export every catalog of every customer through the queue at ``queue_url``, one job per
    customer, into ``directory/<customer>/``; returns once every job is done.

    ``client_options`` (``response_format``, ``max_concurrency``, ``max_retries``, ``timeout``)
    go with each job and replace the worker's own for it; ``options`` say how to wait (see
    ``export_via_queue``); ``changes``: each customer's export writes its changes, as
    ``export_catalogs(changes=True)`` does."""
    started = time.perf_counter()
    directory = await asyncio.to_thread(Path(directory).resolve)
    await asyncio.to_thread(directory.mkdir, parents=True, exist_ok=True)
    job_options = client_options or {}
    async with JobQueue.open(queue_url, directory, options) as queue:
        waits = [_one(queue, directory, name, page_size, resume, job_options, changes) for name in customers]
        outcomes = await gather_or_cancel(waits)
        for name in customers:
            await asyncio.to_thread(_remove_abandoned_parts, directory, name)
    return CustomersSummary(directory, tuple(outcomes), time.perf_counter() - started)


def _remove_abandoned_parts(directory: Path, name: str) -> None:
    """A customer's ``.part`` files, once no job writes the customer (no lock): a lost job's; those
    its manifest checkpoints stay, for a resume to continue."""
    if file_lock_path(directory / name).exists():
        return
    kept = Manifest(directory / name).checkpointed_files()
    for part in (directory / name).glob(f"*{PART_SUFFIX}"):
        if part.name not in kept:
            part.unlink(missing_ok=True)


async def _one(
    queue: JobQueue,
    directory: Path,
    name: str,
    page_size: int | None,
    resume: bool,
    client_options: Mapping[str, JSONValue],
    changes: bool,
) -> CustomerOutcome:
    started = time.perf_counter()
    result = await queue.run(
        CUSTOMER_FUNCTION,
        f"customer:{name}",
        str(directory),
        name,
        page_size,
        resume,
        client_options,
        changes,
    )
    seconds = time.perf_counter() - started
    if result.get("error") or not isinstance(result.get("export"), dict):
        reason = result.get("error") or "the worker's result is not an export summary"
        return CustomerOutcome(name, None, seconds, str(reason))
    try:
        return CustomerOutcome(name, ExportSummary.from_dict(result["export"]), seconds)
    except (KeyError, TypeError, ValueError) as error:
        return CustomerOutcome(name, None, seconds, f"the worker's result cannot be read: {error!r}")


async def export_customer(
    context: dict[str, Any],
    run: dict[str, Any],
    directory: str,
    name: str,
    page_size: int | None,
    resume: bool,
    client_options: Mapping[str, JSONValue],
    changes: bool = False,
) -> dict[str, Any]:
    """The job: every catalog of one customer to ``<directory>/<name>/``; the summary, or why it
    could not be exported. A run after a dead worker's resumes where that one stopped
    (``changes``: with its change feed, the same changes as a run never stopped)."""
    try:
        ticket = RunTicket.from_dict(run)
    except ValueError as error:
        return {"error": f"refused a job with bad arguments: {error}"}
    customers: dict[str, Customer] = context["customers"]
    customer = customers.get(name) if isinstance(name, str) else None
    if customer is None:
        return {"error": f"this worker has no credentials for {name!r}: not in its --customers file"}
    clients: WorkerClients = context["clients"]

    async def export() -> dict[str, Any]:
        twin = await twin_result(context)
        if twin is not None:
            return twin
        try:
            async with clients.customer(customer, client_options) as client:
                summary = await export_catalogs(
                    client,
                    Path(directory) / name,
                    resume=resume or context.get("job_try", 1) > 1,
                    page_size=page_size,
                    changes=changes is True,
                )
        except (EnterpriseError, OSError) as error:
            return {"error": failure_reason(error)}
        return {"export": summary.to_dict()}

    try:
        result = await guarded(context["redis"], ticket, file_lock_path(Path(directory) / name), export)
    except OSError as error:  # the folder is not there, or not writable, on this worker
        return {"error": failure_reason(error)}
    return result if result is not None else {"dropped": f"run {ticket.run_id} is over"}
