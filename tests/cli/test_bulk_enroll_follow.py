"""``bulk enroll`` that can be followed, with exit codes that tell the truth: the job ids as each
job is queued, 4 when nothing was done, the finished jobs' results written on Ctrl-C or SIGTERM
with the running jobs named, and ``enrollments results`` that fetches them later."""

from __future__ import annotations

import csv
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from enterprise_async.cli._failures import EXIT_CODES, exit_code_table
from enterprise_async.testing import Fault, Sandbox

from .conftest import CommandLine
from .test_bulk_commands import emails_file
from .test_hints import hint_in

KEY = "course-v1:Org+C1+Run"
ENROLL = "/enterprise/v1/bulk-license-enrollment"
JOB = re.compile(r"job (?P<id>[0-9a-f-]{36}) queued: chunk (?P<chunk>\d+), (?P<count>\d+) learner")
README = Path(__file__).resolve().parents[2] / "README.md"
CLI_README = Path(__file__).resolve().parents[2] / "enterprise_async" / "cli" / "README.md"


def _emails(count: int) -> list[str]:
    return [f"nobody{number}@example.com" for number in range(count)]


def test_each_job_id_is_shown_as_it_is_queued_and_in_the_table(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    served.jobs.delay = 0
    ran = cli(
        *(
            "bulk",
            "enroll",
            served.data.customers[0].uuid,
            "--emails-file",
            str(emails_file(tmp_path, _emails(600))),
        ),
        *("--course-run-key", KEY, "--no-notify"),
    )
    assert ran.exit_code == 0, ran.stderr
    shown = [match["id"] for match in JOB.finditer(ran.stderr)]
    jobs = [job.job_id for job in served.data.enrollment_jobs]
    assert sorted(shown) == sorted(jobs)
    assert len(jobs) == 2
    for job in jobs:
        assert job in ran.stdout  # the chunks table has a Job column


def test_wait_whose_every_enrollment_failed_exits_4_not_0(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    """20 learners without a subscription: every row of the job says "failed"; nothing was done."""
    served.jobs.delay = 0
    ran = cli(
        *(
            "bulk",
            "enroll",
            served.data.customers[0].uuid,
            "--emails-file",
            str(emails_file(tmp_path, _emails(20))),
        ),
        *("--course-run-key", KEY, "--no-notify", "--wait", "--poll-interval", "0.05"),
    )
    assert ran.exit_code == 4, ran.stderr
    assert "0 success, 0 pending license activation, 20 failed" in ran.stderr
    assert "20 of 20 enrollments failed" in ran.stderr


def test_every_chunk_failed_exits_4_one_failed_exits_3(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    customer = served.data.customers[0].uuid
    path = emails_file(tmp_path, _emails(600))
    served.faults.inject(ENROLL, Fault.server_error(500), times=None, method="POST")
    ran = cli("bulk", "enroll", customer, "--emails-file", str(path), "--course-run-key", KEY, "--no-notify")
    assert ran.exit_code == 4, ran.stderr
    assert "0 sent OK" in ran.stdout
    served.faults.clear()
    served.faults.inject(ENROLL, Fault.server_error(500), times=1, method="POST", skip=1)
    ran = cli("bulk", "enroll", customer, "--emails-file", str(path), "--course-run-key", KEY, "--no-notify")
    assert ran.exit_code == 3, ran.stderr


@pytest.mark.parametrize(("stop", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stop_while_waiting_writes_the_finished_jobs_results_and_names_the_running_ones(
    served: Sandbox, tmp_path: Path, stop: signal.Signals, code: int
) -> None:
    served.jobs.delay = 0
    results = tmp_path / "results.csv"
    # the second job's status is asked after the first job's file was read: it lingers
    served.faults.inject(ENROLL, Fault.latency(30), method="GET", skip=1, times=None)
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "enterprise_async", "bulk", "enroll", served.data.customers[0].uuid),
            *("--emails-file", str(emails_file(tmp_path, _emails(600))), "--course-run-key", KEY),
            *("--no-notify", "--wait", "--poll-interval", "0.05", "--results", str(results)),
            *("--response-format", "xml", "--timeout", "20.0"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    try:
        assert served.jobs.storage is not None
        # the first job's file was read, and the second job's status request is held by the fault
        while not (served.jobs.storage.requests and served.faults.fired["latency"]):
            assert process.poll() is None, process.communicate()
            time.sleep(0.01)
        process.send_signal(stop)
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == code, stderr
    shown = [match["id"] for match in JOB.finditer(stderr)]
    assert len(shown) == 2
    with results.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert len(rows) == 1 + 500 or len(rows) == 1 + 100  # the first finished job's rows, with the header
    running = [job for job in shown if job in stderr.split("were not read:", 1)[1]]
    assert len(running) == 1
    # the options of the command line that `enrollments results` takes too; a results file of its own
    assert hint_in(stderr) == [
        *("enrollments", "results", served.data.customers[0].uuid, "JOB_ID", "--poll-interval", "0.05"),
        *("--response-format", "xml", "--timeout", "20.0", "--results", "FILE"),
    ]
    assert "--resume" not in stderr  # the hint of exports
    assert "Traceback" not in stderr


def test_enrollments_results_fetches_a_jobs_results_later(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    served.jobs.delay = 0
    customer = served.data.customers[0].uuid
    queued = cli(
        *("bulk", "enroll", customer, "--emails-file", str(emails_file(tmp_path, _emails(3)))),
        *("--course-run-key", KEY, "--no-notify"),
    )
    assert queued.exit_code == 0, queued.stderr
    (job,) = [match["id"] for match in JOB.finditer(queued.stderr)]
    results = tmp_path / "later.csv"
    ran = cli("enrollments", "results", customer, job, "--results", str(results), "--poll-interval", "0.05")
    assert ran.exit_code == 4, ran.stderr  # no learner of the file has a subscription
    with results.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert [row[0] for row in rows[1:]] == _emails(3)
    table = cli("enrollments", "results", customer, job, "--poll-interval", "0.05")
    assert all(email in table.stdout for email in _emails(3))


def test_the_old_names_are_hidden_aliases_that_print_the_new_name(cli: CommandLine, served: Sandbox) -> None:
    top = cli("--help")
    assert "\n  enroll " not in top.stdout
    customer = served.data.customers[0].uuid
    ran = cli(
        "enroll", customer, "--email", "a@example.com", "--course-run-key", KEY, "--no-notify", "--json"
    )
    assert ran.exit_code == 0, ran.stderr
    assert "note: `enroll` is now `enrollments bulk-enroll`, and the old name will go: `" in ran.stderr
    assert "assign " not in cli("subscriptions", "--help").stdout.replace("assign-licenses", "")


def test_one_exit_code_table_in_the_help_and_the_readme(cli: CommandLine) -> None:
    codes = [code for code, _ in EXIT_CODES]
    assert codes == [0, 1, 2, 3, 4, 5, 130, 143]
    help_text = cli("--help").stdout
    for line in exit_code_table().splitlines():
        assert line.strip() in help_text
    readme = CLI_README.read_text(encoding="utf-8")
    for code, meaning in EXIT_CODES:
        assert f"| {code} | {meaning} |" in readme
    assert "exit code" in README.read_text(encoding="utf-8").lower()
