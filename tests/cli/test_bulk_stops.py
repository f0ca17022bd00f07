"""``bulk ... --remaining FILE`` stopped or partly refused: a SIGTERM or Ctrl-C while a chunk is in
flight still writes what remains and a one-line summary, then exits 143 or 130; a revoke's e-mails
the service did not revoke (207) go to the remaining file too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from enterprise_async.testing import Fault, PolicyRecord, Sandbox

from .conftest import CommandLine

ALLOCATE = "/enterprise/v1/policy-allocation/{}/allocate/"


def assignable(sandbox: Sandbox) -> PolicyRecord:
    return next(policy for policy in sandbox.data.policies if policy.assignment_configuration_uuid)


def emails_file(tmp_path: Path, emails: list[str]) -> Path:
    path = tmp_path / "emails.txt"
    path.write_text("\n".join(emails) + "\n", encoding="utf-8")
    return path


def _emails(count: int) -> list[str]:
    return [f"learner{number}@example.com" for number in range(count)]


def _wait_for_requests(sandbox: Sandbox, path: str, count: int, process: subprocess.Popen[str]) -> None:
    """Until ``count`` requests to ``path`` were answered (the sandbox logs a request once answered)
    and the next one arrived and is held (its latency fault fired): the command has then read the
    answers, however late a loaded machine lets it run."""
    while len(sandbox.requests.find("POST", path)) < count or not sandbox.faults.fired["latency"]:
        assert process.poll() is None, "the command ended before it was stopped"
        time.sleep(0.01)


@pytest.mark.parametrize(("stop", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stop_signal_while_a_chunk_is_in_flight_writes_the_remaining_file_and_a_summary(
    served: Sandbox, tmp_path: Path, stop: signal.Signals, code: int
) -> None:
    policy = assignable(served)
    emails = _emails(250)
    remaining = tmp_path / "remaining.txt"
    lingering = Fault.latency(10)  # chunk 2 (and any after it) is still in flight when the signal comes
    served.faults.inject(ALLOCATE.format(policy.uuid), lingering, skip=1, times=None)
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "enterprise_async", "bulk", "allocate", policy.uuid),
            *("--emails-file", str(emails_file(tmp_path, emails)), "--remaining", str(remaining)),
            *("--content-key", "HarvardX+CS50", "--content-price-cents", "1"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        _wait_for_requests(served, ALLOCATE.format(policy.uuid), 1, process)
        process.send_signal(stop)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == code, stderr
    assert remaining.read_text(encoding="utf-8").splitlines() == emails[100:]
    assert "learner_emails: 100 sent OK" in stdout
    assert "Traceback" not in stderr


def test_a_revokes_unrevoked_emails_go_to_the_remaining_file(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    plan = served.data.plans[1]
    held = [
        item.user_email
        for item in served.data.licenses(plan.uuid)
        if item.status in ("assigned", "activated")
    ]
    remaining = tmp_path / "remaining.txt"
    path = emails_file(tmp_path, [*held[:2], "stranger@example.com"])
    ran = cli("bulk", "revoke", plan.uuid, "--emails-file", str(path), "--remaining", str(remaining))
    assert ran.exit_code == 3
    assert remaining.read_text(encoding="utf-8").splitlines() == ["stranger@example.com"]
