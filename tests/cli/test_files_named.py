"""Every command that writes a file the user names (--out, --results, --remaining) reports a file
it cannot write in one line naming the path as given, never a temporary name (NAME.part) nor a
traceback, and exits 1. The path here runs through a regular file, so no directory of it can be
made or opened, whoever runs the test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from enterprise_async.testing import Sandbox

from .conftest import CommandLine

LEARNERS = ("ada@acme.example", "grace@acme.example")

Arguments = Callable[[Sandbox, str, str], list[str]]
"""The command's arguments, given the sandbox, the e-mails file and the path to write."""


def _plan(sandbox: Sandbox) -> str:
    customer = sandbox.data.customers[0].uuid
    return next(plan.uuid for plan in sandbox.data.plans if plan.customer_uuid == customer)


def _run_key(sandbox: Sandbox) -> str:
    key: str = sandbox.data.first(sandbox.data.catalogs[0], "courserun")["key"]
    return key


def _policy(sandbox: Sandbox) -> str:
    return str(next(policy.uuid for policy in sandbox.data.policies if policy.assignment_configuration_uuid))


COMMANDS: dict[str, Arguments] = {
    "learners export --out": lambda s, _, path: [
        "learners", "export", s.data.customers[0].uuid, "--out", path,
    ],
    "catalogs export --out": lambda s, _, path: ["catalogs", "export", "--out", path],
    "demo --out": lambda s, _, path: ["demo", "--catalog-items", "2", "--out", path],
    "bulk assign-licenses --remaining": lambda s, emails, path: [
        "bulk", "assign-licenses", _plan(s), "--emails-file", emails, "--remaining", path,
    ],
    "bulk revoke --remaining": lambda s, emails, path: [
        "bulk", "revoke", _plan(s), "--emails-file", emails, "--remaining", path,
    ],
    "bulk allocate --remaining": lambda s, emails, path: [
        "bulk", "allocate", _policy(s), "--emails-file", emails, "--content-key", "edX+DemoX",
        "--content-price-cents", "100", "--remaining", path,
    ],
    "bulk enroll --remaining": lambda s, emails, path: [
        "bulk", "enroll", s.data.customers[0].uuid, "--emails-file", emails, "--course-run-key", _run_key(s),
        "--no-notify", "--remaining", path,
    ],
    "bulk enroll --wait --results": lambda s, emails, path: [
        "bulk", "enroll", s.data.customers[0].uuid, "--emails-file", emails, "--course-run-key", _run_key(s),
        "--no-notify", "--wait", "--poll-interval", "0.05", "--results", path,
    ],
}  # fmt: skip


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_file_that_cannot_be_written_is_named_as_given(
    cli: CommandLine, served: Sandbox, tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "emails.txt").write_text("".join(f"{email}\n" for email in LEARNERS), encoding="utf-8")
    (tmp_path / "a-file").write_text("not a directory\n", encoding="utf-8")
    assert (
        cli("subscriptions", "assign-licenses", _plan(served), "--user-email", ",".join(LEARNERS)).exit_code
        == 0
    )
    path = "a-file/out/written.csv"  # relative, as typed
    ran = cli(*COMMANDS[command](served, "emails.txt", path))
    assert ran.exit_code == 1, ran.stdout[-1000:] + ran.stderr[-1000:]
    assert ran.error_lines[-1] == f"Error: Not a directory: {path}"
    assert ".part" not in ran.stdout + ran.stderr
