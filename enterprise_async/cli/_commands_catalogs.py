"""``catalogs export``: every catalog's contents to JSON Lines (the other ``catalogs`` commands are
generated from the operation table)."""

from __future__ import annotations

from pathlib import Path

import click

from .._generated.client import EnterpriseClient
from ..exports import ExportSummary, export_catalogs
from ..fleet._customer_queue import export_customers_via_queue
from ..fleet._queue import QueueOptions, export_via_queue, redis_cause
from ..fleet._redis import RedisPolicy
from ._commands_worker import checked_queue_url, fleet_logging, require_fleet_extra, retry_window_option
from ._context import ApiSettings, run_with_client
from ._export_views import customers_summary_view, export_summary_view
from ._failures import IncompleteError, InputError, RejectedItemsError, partly_done, read_customers_file, run
from ._next_command import next_command
from ._options import api_options, json_option
from ._output import error_console, print_document, say, show
from ._progress import CatalogProgressBars

__all__ = ["catalogs"]


@click.group()
def catalogs() -> None:
    """Catalogs available to the customer, and the courses, course runs and programs in them."""


@catalogs.command("export")
@click.option(
    "--out",
    "directory",
    required=True,
    type=click.Path(file_okay=False, writable=True, path_type=Path),
    help="Directory for the files: <catalog uuid>.jsonl each, and manifest.json.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Skip the catalogs already complete in the directory, and continue the others from the "
    "last page their manifest checkpoints (after a run that was killed or failed mid-catalog).",
)
@click.option(
    "--changes",
    is_flag=True,
    help="Also write, beside each catalog's export, what was created, updated and removed since the "
    "last complete export (<catalog uuid>.changes.jsonl); a catalog whose record and count have not "
    "moved is not read again.",
)
@click.option(
    "--page-size",
    "--limit",
    "limit",
    type=click.IntRange(min=1, max=100),
    help="Items per page (default: 100, the most the service allows).",
)
@click.option(
    "--queue",
    "queue_url",
    metavar="REDIS_URL",
    help="Enqueue one job per catalog on this Redis for `enterprise-async worker`s, and wait for them.",
)
@click.option(
    "--customers",
    "customers_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --queue: one job per customer of this JSON file, each into <out>/<customer>/ with its "
    "own credentials (which stay with the workers).",
)
@click.option(
    "--wait",
    "wait_for_folder",
    type=click.FloatRange(min=0, max=7 * 24 * 3600),
    default=0,
    metavar="SECONDS",
    help="With --queue: wait up to this long for another run that holds --out to end (default: "
    "fail at once, naming it).",
)
@click.option(
    "--wait-timeout",
    type=click.FloatRange(min=0, min_open=True, max=7 * 24 * 3600),
    metavar="SECONDS",
    help="With --queue: give up when no worker has taken a job after this long (default: wait).",
)
@retry_window_option
@json_option
@api_options()
def export(
    directory: Path,
    resume: bool,
    changes: bool,
    limit: int | None,
    queue_url: str | None,
    customers_file: Path | None,
    wait_for_folder: float,
    wait_timeout: float | None,
    retry_window: float,
    as_json: bool,
    api: ApiSettings,
) -> None:
    """Export every catalog's contents as JSON Lines, all catalogs and pages concurrently.

    Progress goes to standard error, the summary to standard output. An item that cannot be read
    is written as sent to its catalog's rejects file (<catalog uuid>.rejects.jsonl) and every other
    item is exported: exits with 5 then. Exits with 3 when some catalogs failed (the others are
    complete), 4 when every one failed; run it again with the same options and --resume to finish
    them (the message says the whole command).
    """
    queue = _queue_options(queue_url, wait_for_folder, wait_timeout, retry_window)
    if customers_file is not None:
        export_by_customer(directory, resume, changes, limit, queue_url, customers_file, as_json, api, queue)
        return

    async def work(client: EnterpriseClient) -> ExportSummary:
        if queue_url is not None:
            return await export_via_queue(
                client,
                directory,
                queue_url,
                resume=resume,
                page_size=limit,
                client_options=api.options.overrides(),
                options=queue,
                changes=changes,
            )
        with CatalogProgressBars(error_console()) as bars:
            return await export_catalogs(
                client, directory, resume=resume, page_size=limit, progress=bars, changes=changes
            )

    summary = run_with_client(api, work, on_stop=f"what was written is kept: continue with `{_resume()}`")
    if as_json:
        print_document(summary.to_dict())
    else:
        show(export_summary_view(summary, changes=changes))
    if summary.failed:
        names = ", ".join(outcome.uuid for outcome in summary.failed)
        cause = redis_cause(summary)
        if cause is not None:  # one cause: Redis, not the catalogs
            raise IncompleteError(
                f"{cause}; {len(summary.failed)} of {len(summary.outcomes)} catalogs unfinished ({names}); "
                f"once Redis is back, continue with `{_resume()}`"
            )
        raise partly_done(
            f"{len(summary.failed)} of {len(summary.outcomes)} catalogs failed ({names}); "
            f"export them with `{_resume()}`",
            done=len(summary.outcomes) - len(summary.failed),
        )
    if summary.rejected:
        raise rejected_items(summary)


def rejected_items(summary: ExportSummary) -> RejectedItemsError:
    """The ending of an export complete but for items it could not read (exit 5)."""
    holding = [outcome for outcome in summary.outcomes if outcome.rejected and outcome.status != "failed"]
    files = ", ".join(str(outcome.rejects.name) if outcome.rejects else outcome.uuid for outcome in holding)
    items = "item" if summary.rejected == 1 else "items"
    return RejectedItemsError(
        f"{summary.rejected:,} {items} could not be read; each is in its catalog's rejects file ({files}), "
        "every other item is exported"
    )


def _resume() -> str:
    """The command that continues this export: the same, every option kept, with ``--resume``."""
    return next_command(add=["--resume"])


def _queue_options(
    queue_url: str | None, wait_for_folder: float, wait_timeout: float | None, retry_window: float
) -> QueueOptions | None:
    """How a queued export waits, once ``--queue`` and the extra are checked; None without a queue."""
    if queue_url is None:
        return None
    require_fleet_extra()
    checked_queue_url(queue_url)
    fleet_logging()
    return QueueOptions(
        policy=RedisPolicy(retry_window=retry_window),
        wait=wait_for_folder,
        wait_timeout=wait_timeout,
        notify=lambda note: say(note, stderr=True),
        start_worker=f"`{next_command(command='worker')}`",
    )


def export_by_customer(
    directory: Path,
    resume: bool,
    changes: bool,
    limit: int | None,
    queue_url: str | None,
    customers_file: Path,
    as_json: bool,
    api: ApiSettings,
    queue: QueueOptions | None,
) -> None:
    """``catalogs export --customers``: one queued job per customer; no credentials needed here."""
    if queue_url is None:
        raise InputError(
            "--customers needs --queue: customers are exported by workers, with their credentials"
        )
    if api.sandbox:
        raise InputError(
            "--customers and --sandbox exclude each other: the customers file names the services"
        )
    customers = read_customers_file(customers_file)
    summary = run(
        export_customers_via_queue(
            directory,
            queue_url,
            list(customers),
            resume=resume,
            page_size=limit,
            client_options=api.options.overrides(),
            options=queue,
            changes=changes,
        )
    )
    if as_json:
        print_document(summary.to_dict())
    else:
        show(customers_summary_view(summary, changes=changes))
    if summary.failed:
        names = ", ".join(outcome.name for outcome in summary.failed)
        raise IncompleteError(
            f"{len(summary.failed)} of {len(summary.outcomes)} customers are incomplete ({names}); "
            f"finish them with `{_resume()}`"
        )
