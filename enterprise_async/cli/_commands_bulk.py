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
import re
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import IO, Any, Final, TypeVar

import click
from attrs import define, field
from rich.text import Text

from .._bulk.chunks import BulkResult, ChunkOutcome, bulk_progress
from .._generated.client import EnterpriseClient
from ..errors import ClientValidationError, IncompleteBulkError
from ..models import BulkRevokeResult, to_dict
from ._context import ApiSettings, run_with_client
from ._failures import files_named, partly_done
from ._options import api_options, json_option
from ._output import print_document, show
from ._record_list import Cell, ListColumn, RecordList

__all__ = [
    "NOT_DONE",
    "ItemsFile",
    "bulk",
    "emails_file_option",
    "job_id",
    "read_items",
    "remaining_option",
    "run_bulk",
]

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
    where the service allows only one at once. Exits with 3 when a chunk failed (4 when every chunk
    did): no chunk is sent after it, and the report says which e-mails were sent OK, which failed
    and which were never sent.
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
        revoked = sum(
            len(item.successful_revocations) for item in result.results if isinstance(item, BulkRevokeResult)
        )
        raise partly_done(
            f"partial result: {len(failed)} revocation{'s' * (len(failed) != 1)} failed", done=revoked
        )


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
    """Run the bulk call, report every chunk, write what remains; exit with 3 when a chunk failed,
    4 when every chunk did (see ``run_bulk``)."""
    result, error = run_bulk(api, work, items, as_json=as_json, remaining=remaining, unapplied=unapplied)
    if error is not None:
        raise partly_done(f"IncompleteBulkError: {error}", done=len(result.items("succeeded")))
    return result


def run_bulk(
    api: ApiSettings,
    work: Work,
    items: ItemsFile,
    *,
    as_json: bool,
    remaining: Path | None,
    unapplied: Callable[[BulkResult[Any]], list[str]] = lambda _: [],
    on_outcome: Callable[[ChunkOutcome[Any]], None] | None = None,
) -> tuple[BulkResult[Any], IncompleteBulkError | None]:
    """Run the bulk call, report every chunk and write what remains; returns the result and the
    error that says a chunk failed, if one did. ``on_outcome`` hears of each chunk as it is
    answered. A bad item is named by its line in ``items``' file. A stop signal cancels the call:
    what it did so far is reported and written all the same."""

    def report(result: BulkResult[Any]) -> None:
        if remaining is not None:
            left = [item for state in NOT_DONE for item in result.items(state)] + unapplied(result)
            with files_named():
                remaining.write_text("".join(f"{item}\n" for item in left), encoding="utf-8")
        if as_json:
            print_document(_document(result))
        else:
            show(_chunks_view(result), _summary(result))

    async def guarded(client: EnterpriseClient) -> tuple[BulkResult[Any], IncompleteBulkError | None]:
        with bulk_progress(on_outcome) as progress:
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

    on_stop = (
        f"what was sent is reported above; the e-mails not sent OK are in {remaining}"
        if remaining is not None
        else "what was sent is reported above (--remaining FILE keeps the e-mails not sent OK)"
    )
    result, error = run_with_client(api, guarded, on_stop=on_stop)
    report(result)
    return result, error


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


def job_id(outcome: ChunkOutcome[Any]) -> str | None:
    """The id of the job a chunk queued (a bulk enrollment's), if its answer names one."""
    found = getattr(outcome.result, "job_id", None)
    return None if found is None else str(found)


def _chunks_view(result: BulkResult[Any]) -> RecordList:
    jobs = any(job_id(outcome) is not None for outcome in result.chunks)
    columns = (
        ListColumn("Chunk", justify="right"),
        ListColumn("State"),
        ListColumn(result.field, justify="right"),
        ListColumn("First", identifier=True),
        *((ListColumn("Job", identifier=True),) if jobs else ()),
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
                *((job_id(outcome) or "",) if jobs else ()),
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
