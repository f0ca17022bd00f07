"""``learners export``: the learner summary of a customer, as CSV or JSON Lines."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import get_args

import click

from .._generated.client import EnterpriseClient
from .._generated.resources import LearnerSummaryOrdering
from ..exports import AtomicFile, LearnerFormat, export_learners
from ._context import ApiSettings, run_with_client
from ._options import api_options
from ._output import say

__all__ = ["learners"]


@click.group()
def learners() -> None:
    """The learner summary as a file (its pages one at a time: `learner-summary list`)."""


@learners.command("export")
@click.argument("enterprise_uuid")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="File to write; standard output when left out.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["csv", "jsonl"]),
    default="csv",
    show_default=True,
    help="CSV with a header of the model's fields, or JSON Lines with every field the server sent.",
)
@click.option(
    "--ordering",
    type=click.Choice(get_args(LearnerSummaryOrdering)),
    metavar="FIELD",
    help="Field to sort by, -FIELD descending (server default: -last_activity_date); a field of the "
    "records, as the spec lists them: another is refused before anything is sent.",
)
@api_options(format_names=("--response-format",))
def export(
    enterprise_uuid: str,
    out: Path | None,
    output_format: LearnerFormat,
    ordering: LearnerSummaryOrdering | None,
    api: ApiSettings,
) -> None:
    """Export the learner summary of ENTERPRISE_UUID, one row per record, streamed as it arrives.

    A file given with --out appears only once complete (a failed run leaves none); nothing is
    written before the input is checked and the first page has arrived. CSV cells a spreadsheet
    would run as formulas (starting with =, +, -, @, tab or CR) get a leading ' (OWASP).
    """

    async def work(client: EnterpriseClient) -> int:
        if out is None:
            sys.stdout.flush()  # rows go to the binary layer beneath it
            stdout = sys.stdout.buffer
            count = await export_learners(
                client, enterprise_uuid, stdout, output_format=output_format, ordering=ordering
            )
            stdout.flush()
            return count
        with AtomicFile(out) as file:
            count = await export_learners(
                client, enterprise_uuid, file, output_format=output_format, ordering=ordering
            )
            file.commit()
        return count

    left = (
        "nothing was written: the file appears only once complete"
        if out
        else "the records sent so far are out"
    )
    count = run_with_client(api, work, on_stop=left)
    where = str(out) if out else "standard output"
    say(f"wrote {count:,} learner records to {where} ({output_format})", stderr=True)
