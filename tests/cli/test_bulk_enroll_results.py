"""``bulk enroll --wait``: the jobs followed to their results through the command line, against a
served sandbox; ``--results FILE`` holds the rows, ``--remaining`` the learners whose rows failed."""

from __future__ import annotations

import csv
from pathlib import Path

from enterprise_async.testing import Sandbox

from .conftest import CommandLine
from .test_bulk_commands import emails_file

KEY = "course-v1:Org+C1+Run"


def _learners(sandbox: Sandbox) -> tuple[str, str]:
    """An e-mail with an activated license of the customer, and one with an assigned license."""
    customer = sandbox.data.customers[0].uuid
    licenses = [
        license
        for plan in sandbox.data.plans
        if plan.customer_uuid == customer
        for license in sandbox.data.licenses(plan.uuid)
        if license.user_email
    ]
    activated = next(item.user_email for item in licenses if item.status == "activated")
    assigned = next(item.user_email for item in licenses if item.status == "assigned")
    assert activated is not None
    assert assigned is not None
    return activated, assigned


def _enroll(cli: CommandLine, served: Sandbox, path: Path, *extra: str) -> tuple[int, str]:
    served.jobs.delay = 0  # the jobs write their files at once
    ran = cli(
        *("bulk", "enroll", served.data.customers[0].uuid, "--emails-file", str(path)),
        *("--course-run-key", KEY, "--no-notify", "--poll-interval", "0.05", "--wait-timeout", "30"),
        *extra,
    )
    return ran.exit_code, ran.stderr


def test_wait_with_results_writes_every_row_in_the_services_columns(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    activated, assigned = _learners(served)
    results = tmp_path / "results.csv"
    code, stderr = _enroll(
        cli,
        served,
        emails_file(tmp_path, [activated, assigned, "nobody@example.com"]),
        "--wait",
        "--results",
        str(results),
    )
    assert code == 3, stderr  # one enrollment of three failed: done in part
    with results.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows == [
        ["email address", "course key", "enrollment status", "notes"],
        [activated, KEY, "success", ""],
        [assigned, KEY, "pending", "pending license activation"],
        ["nobody@example.com", KEY, "failed", "missing subscription"],
    ]
    assert "1 success, 1 pending license activation, 1 failed" in stderr


def test_remaining_holds_the_learners_whose_rows_failed_never_those_pending(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    activated, assigned = _learners(served)
    remaining = tmp_path / "remaining.txt"
    emails = [activated, assigned, "nobody@example.com", "none@example.com"]
    code, stderr = _enroll(
        cli, served, emails_file(tmp_path, emails), "--wait", "--remaining", str(remaining)
    )
    assert code == 3, stderr
    assert remaining.read_text(encoding="utf-8").splitlines() == ["nobody@example.com", "none@example.com"]


def test_results_without_wait_is_a_usage_error(cli: CommandLine, served: Sandbox, tmp_path: Path) -> None:
    code, stderr = _enroll(
        cli, served, emails_file(tmp_path, ["a@example.com"]), "--results", str(tmp_path / "r.csv")
    )
    assert code == 2
    assert "--results needs --wait" in stderr
    assert not served.requests.find("POST", "/enterprise/v1/bulk-license-enrollment")
