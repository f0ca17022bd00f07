"""``bulk enroll`` and ``enrollments results``: enrolling a file of learners in jobs that can be
followed.

``bulk enroll`` names each job as it is queued; with ``--wait`` it then reads each job's results.
Stopped by Ctrl-C or SIGTERM, it writes the results of the jobs that finished and names the jobs
still running, with the ``enrollments results`` command that fetches theirs later.
"""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path
from typing import IO, Any, Final

import click

from .._bulk.chunks import BulkResult, ChunkOutcome
from .._client.job_results import DEFAULT_POLL_INTERVAL, DEFAULT_RESULTS_TIMEOUT
from .._generated.client import EnterpriseClient
from .._generated.operations import ENROLLMENTS_JOB_STATUS
from ..errors import IncompleteBulkError
from ..models import BulkEnrollmentResult, to_dict
from ._commands_bulk import bulk, emails_file_option, job_id, read_items, remaining_option, run_bulk
from ._context import ApiSettings, run_with_client
from ._failures import files_named, partly_done, stop_note
from ._next_command import next_command
from ._operation_options import required_choice
from ._options import api_options, json_option, list_option
from ._output import error_console, print_json_line, say, show
from ._record_list import ListColumn, RecordList

__all__ = ["enrollments", "report_enrollment_results"]

FAILED: Final = "failed"
"""The status of a results row whose enrollment failed (``pending`` awaits a license activation)."""

results_file_option = click.option(
    "--results",
    "results_file",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Write every job's result rows to this CSV file, in the services' columns.",
)
wait_timeout_option = click.option(
    "--wait-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_RESULTS_TIMEOUT,
    show_default=True,
    help="Seconds to wait for each job's results.",
)
poll_interval_option = click.option(
    "--poll-interval",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_POLL_INTERVAL,
    show_default=True,
    help="Seconds between two requests of a job's status.",
)


def results_command(customer: str, job: str) -> str:
    """The command that fetches one job's results later, with the options of the command line
    running that it takes too (credentials' place, format, timeouts...), and its own results file."""
    return next_command(
        command="enrollments results",
        arguments=[customer, job],
        leave_out={"results_file"},
        add=["--results", "FILE"],
    )


@bulk.command("enroll")
@click.argument("enterprise_customer_uuid")
@emails_file_option
@list_option(
    "--course-run-key", "course_run_keys", help="Course run to enroll them in", required=True, metavar="KEY"
)
@click.option(
    "--notify/--no-notify",
    default=None,
    callback=required_choice,
    is_eager=True,  # refused before the e-mails file is opened
    help="Whether learners are e-mailed about their enrollment: required (the service requires it).",
)
@click.option("--wait", is_flag=True, help="Wait for every job's results (with --remaining: add the failed).")
@results_file_option
@wait_timeout_option
@poll_interval_option
@remaining_option
@json_option
@api_options()
def enroll(
    enterprise_customer_uuid: str,
    emails_file: IO[str],
    course_run_keys: list[str],
    notify: bool,
    wait: bool,
    results_file: Path | None,
    wait_timeout: float,
    poll_interval: float,
    remaining: Path | None,
    as_json: bool,
    api: ApiSettings,
) -> None:
    """Enroll every learner of the file in the course runs, in jobs of the size the service accepts.

    Each job's id is printed (on standard error) as the job is queued. With --wait, then waits for
    each job's results file and reports how each enrollment ended (success, pending license
    activation, failed); --results FILE writes the rows, and --remaining also holds the learners
    whose rows failed (never those pending: they are enrolled once they activate their license).
    Stopped by Ctrl-C or SIGTERM, it writes the results of the jobs that finished and names the
    jobs still running, with the `enrollments results` command that fetches theirs later.

    Exits with 3 when a chunk or an enrollment failed, 4 when every one did.
    """
    if results_file is not None and not wait:
        raise click.UsageError("--results needs --wait")
    queued: list[str] = []
    finished: dict[str, list[BulkEnrollmentResult]] = {}
    items = read_items(emails_file)

    def heard(outcome: ChunkOutcome[Any]) -> None:
        job = job_id(outcome)
        if job is None:
            return
        queued.append(job)
        if not as_json:
            count = len(outcome.items.get("emails", ()))
            say(f"job {job} queued: chunk {outcome.number}, {count} learner(s)", stderr=True)

    async def wait_for_jobs(client: EnterpriseClient) -> None:
        for job in list(queued):
            finished[job] = await client.enrollments.results(
                enterprise_customer_uuid, job, timeout=wait_timeout, poll_interval=poll_interval
            )

    async def work(client: EnterpriseClient) -> BulkResult[Any]:
        try:
            try:
                result = await client.enrollments.bulk_enroll_in_chunks(
                    enterprise_customer_uuid, emails=items, course_run_keys=course_run_keys, notify=notify
                )
            except IncompleteBulkError:
                if wait:
                    await wait_for_jobs(client)
                raise
            if wait:
                await wait_for_jobs(client)
            return result
        except asyncio.CancelledError:
            _stopped(enterprise_customer_uuid, queued, finished, wait, results_file, remaining)
            raise

    result, error = run_bulk(api, work, items, as_json=as_json, remaining=remaining, on_outcome=heard)
    rows = [row for job in queued if job in finished for row in finished[job]]
    if wait:
        report_enrollment_results(rows, results_file, remaining)
    failed_rows = sum(1 for row in rows if row.status == FAILED)
    problems = [f"IncompleteBulkError: {error}"] if error is not None else []
    if failed_rows:
        problems.append(f"{failed_rows} of {len(rows)} enrollments failed")
    if problems:
        sent = len(result.items("succeeded"))
        done = sent if not wait else len(rows) - failed_rows
        raise partly_done("; ".join(problems), done=done)


def _stopped(
    customer: str,
    queued: list[str],
    finished: dict[str, list[BulkEnrollmentResult]],
    wait: bool,
    results_file: Path | None,
    remaining: Path | None,
) -> None:
    """On a stop signal: the finished jobs' results written, the running ones named."""
    rows = [row for job in queued if job in finished for row in finished[job]]
    if wait and finished:
        report_enrollment_results(rows, results_file, remaining)
    running = [job for job in queued if job not in finished]
    if not running:
        return
    console = error_console()
    console.print(f"{len(running)} job(s) queued whose results were not read:", markup=False)
    for job in running:
        console.print(f"  {job}", markup=False)
    stop_note(
        f"{len(running)} job(s) still running (listed above); fetch each one's results later with "
        f"`{results_command(customer, 'JOB_ID')}`"
    )


# ---------------------------------------------------------------------------------- enrollments results


@click.group()
def enrollments() -> None:
    """Enrollments in course runs with a license, in bulk jobs."""


@enrollments.command("results")
@click.argument("enterprise_customer_uuid")
@click.argument("job_ids", nargs=-1, required=True, metavar="JOB_ID...")
@results_file_option
@wait_timeout_option
@poll_interval_option
@json_option
@api_options()
def results(
    enterprise_customer_uuid: str,
    job_ids: tuple[str, ...],
    results_file: Path | None,
    wait_timeout: float,
    poll_interval: float,
    as_json: bool,
    api: ApiSettings,
) -> None:
    """The result rows of bulk enrollment jobs (JOB_ID...), once each has written its results file.

    A table of the rows (--json: JSON Lines), or with --results FILE the rows as CSV in the
    services' columns. Exits with 3 when an enrollment failed, 4 when every one did.
    """

    async def work(client: EnterpriseClient) -> list[BulkEnrollmentResult]:
        rows: list[BulkEnrollmentResult] = []
        for job in job_ids:
            rows.extend(
                await client.enrollments.results(
                    enterprise_customer_uuid, job, timeout=wait_timeout, poll_interval=poll_interval
                )
            )
        return rows

    rows = run_with_client(api, work)
    if results_file is None:
        if as_json:
            for row in rows:
                print_json_line(row)
        else:
            show(_rows_view(rows))
    report_enrollment_results(rows, results_file, None)
    failed = sum(1 for row in rows if row.status == FAILED)
    if failed:
        raise partly_done(f"{failed} of {len(rows)} enrollments failed", done=len(rows) - failed)


def _columns() -> tuple[tuple[str, str], ...]:
    found = ENROLLMENTS_JOB_STATUS.job_results
    return tuple(found.columns) if found is not None else ()


def _rows_view(rows: list[BulkEnrollmentResult]) -> RecordList:
    columns = _columns()
    listed = tuple(ListColumn(header, identifier=name != "notes") for header, name in columns)
    cells = [[str(to_dict(row).get(name) or "") for _, name in columns] for row in rows]
    return RecordList(f"{len(rows)} enrollment result(s)", listed, cells)


def report_enrollment_results(
    rows: list[BulkEnrollmentResult], results_file: Path | None, remaining: Path | None
) -> None:
    """Write the jobs' rows (the services' CSV columns), add the learners whose rows failed to
    ``--remaining``, and say how the enrollments ended."""
    if results_file is not None:
        with files_named():
            _write_rows(rows, results_file)
    failed = list(dict.fromkeys(row.email for row in rows if row.status == FAILED))
    if remaining is not None and failed:
        with files_named():
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
    columns = _columns()
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([header for header, _ in columns])
        for row in rows:
            written = to_dict(row)
            writer.writerow([written.get(name, "") for _, name in columns])
