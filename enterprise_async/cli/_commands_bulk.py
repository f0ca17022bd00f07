"""``bulk``: the bulk operations over files of any size, cut into the chunks the spec allows.

Each command reads its e-mails from a file (one a line; ``-`` is standard input), hands them to
the client's ``..._in_chunks`` method, and reports every chunk: sent OK, failed (and why), or never
sent. ``--remaining FILE`` writes the e-mails that were not sent OK, ready for a second run: those
of chunks that failed, may have been applied (in flight when stopped) or were never sent, and a
revoke's e-mails the service did not revoke (207). Ctrl-C or SIGTERM still writes it, and the
summary line, before the command exits with 130 or 143.
"""

from __future__ import annotations

import asyncio
import csv
import re
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import IO, Any, Final, TypeVar

import click
from attrs import define, field
from rich.text import Text

from .._bulk.chunks import BulkResult, ChunkOutcome, bulk_progress
from .._client.job_results import DEFAULT_POLL_INTERVAL, DEFAULT_RESULTS_TIMEOUT
from .._generated.client import EnterpriseClient
from .._generated.operations import ENROLLMENTS_JOB_STATUS
from ..errors import ClientValidationError, IncompleteBulkError
from ..models import BulkEnrollmentResult, BulkRevokeResult, to_dict
from ._context import ApiSettings, run_with_client
from ._failures import IncompleteError
from ._options import api_options, json_option, list_option
from ._output import print_document, show
from ._record_list import Cell, ListColumn, RecordList

__all__ = ["ItemsFile", "bulk", "read_items"]

T = TypeVar("T")

COMMENT: Final = "#"
"""Lines of an items file starting with this are notes, not items."""

Work = Callable[[EnterpriseClient], Awaitable[BulkResult[Any]]]
NOT_DONE: Final = ("failed", "maybe_applied", "not_sent")
"""Chunk states whose items go to ``--remaining``: none of them is known to be applied."""


INDEXED: Final = re.compile(r"^\w+\[(?P<index>\d+)\]")
"""A validation error's field that names an item by its place in the call: ``user_emails[2]``."""


@define
class ItemsFile:
    """The items of a file, one a line, read as they are needed: blanks and ``#`` notes skipped,
    spaces around an item dropped. It remembers each item's line, so that an error about the
    third item names the line it is on, not its place among the items."""

    handle: IO[str]
    lines: list[int] = field(factory=list)
    """The line (from 1) of each item read so far."""

    def __iter__(self) -> Iterator[str]:
        for number, line in enumerate(self.handle, start=1):
            item = line.strip()
            if item and not item.startswith(COMMENT):
                self.lines.append(number)
                yield item

    @property
    def name(self) -> str:
        """The file as the user named it (``<stdin>`` for ``-``)."""
        return str(getattr(self.handle, "name", "") or "<stdin>")

    def located(self, error: ClientValidationError) -> ClientValidationError:
        """``error`` naming the file's line instead of the item's place in the call."""
        match = INDEXED.match(error.field)
        if match is None or int(match["index"]) >= len(self.lines):
            return error
        line = self.lines[int(match["index"])]
        return ClientValidationError(
            f"{self.name}, line {line}{error.field[match.end() :]}", error.reason, operation=error.operation
        )


def read_items(handle: IO[str]) -> ItemsFile:
    """The items of a file, one a line (see ``ItemsFile``)."""
    return ItemsFile(handle)


emails_file_option = click.option(
    "--emails-file",
    "emails_file",
    type=click.File("r", encoding="utf-8"),
    required=True,
    help="File of e-mail addresses, one a line ('-': standard input); blank lines and # notes are skipped.",
)
remaining_option = click.option(
    "--remaining",
    "remaining",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help=(
        "Write the e-mails not sent OK (failed, maybe applied, never sent; a revoke's unrevoked ones) "
        "to this file, one a line, to run again; written on Ctrl-C and SIGTERM too."
    ),
)


@click.group()
def bulk() -> None:
    """Bulk operations over files of any size, sent in the chunks the services accept.

    Each file is sent in chunks of the size its service accepts, concurrently, or one at a time
    where the service allows only one at once. Exits with 3 when a chunk failed: no chunk is sent after
    it, and the report says which e-mails were sent OK, which failed and which were never sent.
    """


@bulk.command("assign-licenses")
@click.argument("subscription_plan_uuid")
@emails_file_option
@click.option("--greeting", default=None, help="Opening text added to the notification e-mail.")
@click.option("--closing", default=None, help="Closing text added to the notification e-mail.")
@click.option("--notify-users/--no-notify-users", default=None, help="Whether learners are notified.")
@remaining_option
@json_option
@api_options()
def assign_licenses(
    subscription_plan_uuid: str,
    emails_file: IO[str],
    greeting: str | None,
    closing: str | None,
    notify_users: bool | None,
    remaining: Path | None,
    as_json: bool,
    api: ApiSettings,
) -> None:
    """Assign licenses of SUBSCRIPTION_PLAN_UUID to every e-mail of the file, a chunk at a time."""

    items = read_items(emails_file)

    async def work(client: EnterpriseClient) -> BulkResult[Any]:
        return await client.subscriptions.assign_licenses_in_chunks(
            subscription_plan_uuid,
            user_emails=items,
            greeting=greeting,
            closing=closing,
            notify_users=notify_users,
        )

    _run(api, work, items, as_json=as_json, remaining=remaining)


@bulk.command("revoke")
@click.argument("subscription_plan_uuid")
@emails_file_option
@remaining_option
@json_option
@api_options()
def revoke(
    subscription_plan_uuid: str, emails_file: IO[str], remaining: Path | None, as_json: bool, api: ApiSettings
) -> None:
    """Revoke the licenses of SUBSCRIPTION_PLAN_UUID held by the e-mails of the file.

    Exits with 3 as well when a chunk's result is partial (207: some revocations failed).
    """

    items = read_items(emails_file)

    async def work(client: EnterpriseClient) -> BulkResult[Any]:
        return await client.subscriptions.bulk_revoke_in_chunks(subscription_plan_uuid, user_emails=items)

    result = _run(api, work, items, as_json=as_json, remaining=remaining, unapplied=_unrevoked)
    failed = _unrevoked(result)
    if failed:
        raise IncompleteError(f"partial result: {len(failed)} revocation{'s' * (len(failed) != 1)} failed")


@bulk.command("enroll")
@click.argument("enterprise_customer_uuid")
@emails_file_option
@list_option(
    "--course-run-key", "course_run_keys", help="Course run to enroll them in", required=True, metavar="KEY"
)
@click.option("--notify/--no-notify", default=None, help="Notify learners of their enrollment.")
@click.option("--wait", is_flag=True, help="Wait for every job's results (with --remaining: add the failed).")
@click.option(
    "--results",
    "results_file",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="With --wait: write every job's result rows to this CSV file, in the services' columns.",
)
@click.option(
    "--wait-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_RESULTS_TIMEOUT,
    show_default=True,
    help="Seconds to wait for each job's results.",
)
@click.option(
    "--poll-interval",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_POLL_INTERVAL,
    show_default=True,
    help="Seconds between two requests of a job's status.",
)
@remaining_option
@json_option
@api_options()
def enroll(
    enterprise_customer_uuid: str,
    emails_file: IO[str],
    course_run_keys: list[str],
    notify: bool | None,
    wait: bool,
    results_file: Path | None,
    wait_timeout: float,
    poll_interval: float,
    remaining: Path | None,
    as_json: bool,
    api: ApiSettings,
) -> None:
    """Enroll every learner of the file in the course runs, in jobs of the size the service accepts.

    With --wait, then waits for each job's results file and reports how each enrollment ended
    (success, pending license activation, failed); --results FILE writes the rows, and
    --remaining also holds the learners whose rows failed (never those pending: they are enrolled
    once they activate their license).
    """
    if results_file is not None and not wait:
        raise click.UsageError("--results needs --wait")
    rows: list[BulkEnrollmentResult] = []

    items = read_items(emails_file)

    async def work(client: EnterpriseClient) -> BulkResult[Any]:
        result = await client.enrollments.bulk_enroll_in_chunks(
            enterprise_customer_uuid,
            emails=items,
            course_run_keys=course_run_keys,
            notify=notify,
        )
        for job in result.results if wait else ():
            rows.extend(
                await client.enrollments.results(
                    enterprise_customer_uuid,
                    str(job.job_id),
                    timeout=wait_timeout,
                    poll_interval=poll_interval,
                )
            )
        return result

    _run(api, work, items, as_json=as_json, remaining=remaining)
    if wait:
        report_enrollment_results(rows, results_file, remaining)


@bulk.command("allocate")
@click.argument("policy_uuid")
@emails_file_option
@click.option("--content-key", required=True, help="Course content key.")
@click.option("--content-price-cents", type=int, required=True, help="Price in USD cents at allocation time.")
@remaining_option
@json_option
@api_options()
def allocate(
    policy_uuid: str,
    emails_file: IO[str],
    content_key: str,
    content_price_cents: int,
    remaining: Path | None,
    as_json: bool,
    api: ApiSettings,
) -> None:
    """Allocate CONTENT_KEY in POLICY_UUID to every learner of the file, a chunk at a time."""

    items = read_items(emails_file)

    async def work(client: EnterpriseClient) -> BulkResult[Any]:
        return await client.policies.allocate_in_chunks(
            policy_uuid,
            learner_emails=items,
            content_key=content_key,
            content_price_cents=content_price_cents,
        )

    _run(api, work, items, as_json=as_json, remaining=remaining)


# ---------------------------------------------------------------------------------- reporting


def _unrevoked(result: BulkResult[Any]) -> list[str]:
    """The e-mails of a revoke's chunks answered 207 that the service did not revoke."""
    return [
        item.user_email
        for revoked in result.results
        if isinstance(revoked, BulkRevokeResult)
        for item in revoked.unsuccessful_revocations
        if item.user_email
    ]


def _run(
    api: ApiSettings,
    work: Work,
    items: ItemsFile,
    *,
    as_json: bool,
    remaining: Path | None,
    unapplied: Callable[[BulkResult[Any]], list[str]] = lambda _: [],
) -> BulkResult[Any]:
    """Run the bulk call, report every chunk, write what remains; exit with 3 when a chunk failed.
    A bad item is named by its line in ``items``' file. A stop signal cancels the call: what it did so
    far is reported and written all the same."""

    def report(result: BulkResult[Any]) -> None:
        if remaining is not None:
            left = [item for state in NOT_DONE for item in result.items(state)] + unapplied(result)
            remaining.write_text("".join(f"{item}\n" for item in left), encoding="utf-8")
        if as_json:
            print_document(_document(result))
        else:
            show(_chunks_view(result), _summary(result))

    async def guarded(client: EnterpriseClient) -> tuple[BulkResult[Any], IncompleteBulkError | None]:
        with bulk_progress() as progress:
            try:
                return await work(client), None
            except IncompleteBulkError as error:
                return error.result, error
            except ClientValidationError as error:
                raise items.located(error) from None
            except asyncio.CancelledError:
                if progress.result is not None:
                    report(progress.result)
                raise

    result, error = run_with_client(api, guarded)
    report(result)
    if error is not None:
        raise IncompleteError(f"IncompleteBulkError: {error}")
    return result


def _document(result: BulkResult[Any]) -> dict[str, Any]:
    return {
        "operation": result.operation,
        "complete": result.complete,
        "chunks": [_chunk_document(outcome) for outcome in result.chunks],
    }


def _chunk_document(outcome: ChunkOutcome[Any]) -> dict[str, Any]:
    document: dict[str, Any] = {
        "number": outcome.number,
        "state": outcome.state,
        "items": {name: list(values) for name, values in outcome.items.items()},
    }
    if outcome.result is not None:
        document["result"] = to_dict(outcome.result)
    if outcome.error is not None:
        document["error"] = f"{type(outcome.error).__name__}: {outcome.error}"
    return document


_STATE_STYLES: Final = {
    "succeeded": "green",
    "failed": "bold red",
    "maybe_applied": "bold magenta",
    "not_sent": "yellow",
}


def _chunks_view(result: BulkResult[Any]) -> RecordList:
    columns = (
        ListColumn("Chunk", justify="right"),
        ListColumn("State"),
        ListColumn(result.field, justify="right"),
        ListColumn("First", identifier=True),
        ListColumn("Why"),
    )
    rows: list[list[Cell]] = []
    for outcome in result.chunks:
        items = outcome.items.get(result.field, ())
        rows.append(
            [
                str(outcome.number),
                Text(outcome.state.replace("_", " "), style=_STATE_STYLES[outcome.state]),
                str(len(items)),
                str(items[0]) if items else "",
                f"{type(outcome.error).__name__}: {outcome.error}" if outcome.error is not None else "",
            ]
        )
    return RecordList(f"{result.operation} in {len(result.chunks)} chunk(s)", columns, rows)


def _summary(result: BulkResult[Any]) -> Text:
    counts = {state: len(result.items(state)) for state in ("succeeded", *NOT_DONE)}
    text = (
        f"{result.field}: {counts['succeeded']} sent OK, {counts['failed']} in a failed chunk, "
        f"{counts['not_sent']} never sent"
    )
    if counts["maybe_applied"]:
        text += f", {counts['maybe_applied']} maybe applied (in flight when stopped: check before resending)"
    return Text(text, style="bold green" if result.complete else "bold red")


# ---------------------------------------------------------------------------------- enrollment results


def report_enrollment_results(
    rows: list[BulkEnrollmentResult], results_file: Path | None, remaining: Path | None
) -> None:
    """Write the jobs' rows (the services' CSV columns, ``x-sdk-job-results``), add the learners
    whose rows failed to ``--remaining``, and say how the enrollments ended."""
    if results_file is not None:
        _write_rows(rows, results_file)
    failed = list(dict.fromkeys(row.email for row in rows if row.status == "failed"))
    if remaining is not None and failed:
        kept = remaining.read_text(encoding="utf-8").splitlines() if remaining.exists() else []
        left = list(dict.fromkeys([*kept, *failed]))
        remaining.write_text("".join(f"{item}\n" for item in left), encoding="utf-8")
    counts = {status: sum(1 for row in rows if row.status == status) for status in ("success", "pending")}
    click.echo(
        f"enrollments: {counts['success']} success, {counts['pending']} pending license activation, "
        f"{len(rows) - sum(counts.values())} failed ({len(failed)} learner(s))",
        err=True,
    )


def _write_rows(rows: list[BulkEnrollmentResult], path: Path) -> None:
    results = ENROLLMENTS_JOB_STATUS.job_results
    columns = results.columns if results is not None else ()
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([header for header, _ in columns])
        for row in rows:
            written = to_dict(row)
            writer.writerow([written.get(name, "") for _, name in columns])
