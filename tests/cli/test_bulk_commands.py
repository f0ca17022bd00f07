"""``bulk``: the bulk operations over files of any size, against a served sandbox."""

from __future__ import annotations

from pathlib import Path

import orjson
from click.testing import CliRunner

from enterprise_async.cli import cli as command_line
from enterprise_async.testing import Fault, PolicyRecord, Sandbox

from .conftest import CommandLine

ALLOCATE = "/enterprise/v1/policy-allocation/{}/allocate/"
ENROLL = "/enterprise/v1/bulk-license-enrollment"
REVOKE = "/enterprise/v1/subscriptions/{}/licenses/bulk-revoke"


def assignable(sandbox: Sandbox) -> PolicyRecord:
    return next(policy for policy in sandbox.data.policies if policy.assignment_configuration_uuid)


def emails_file(tmp_path: Path, emails: list[str], *, notes: bool = False) -> Path:
    path = tmp_path / "emails.txt"
    lines = ["# learners of the spring cohort", ""] if notes else []
    path.write_text("\n".join([*lines, *emails]) + "\n", encoding="utf-8")
    return path


def _emails(count: int) -> list[str]:
    return [f"learner{number}@example.com" for number in range(count)]


def test_bulk_allocate_sends_a_file_in_the_specs_chunks(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    policy = assignable(served)
    emails = _emails(250)
    path = emails_file(tmp_path, emails, notes=True)
    ran = cli(
        *("bulk", "allocate", policy.uuid, "--emails-file", str(path)),
        *("--content-key", "HarvardX+CS50", "--content-price-cents", "1", "--json"),
    )
    assert ran.exit_code == 0, ran.stderr
    document = orjson.loads(ran.stdout)
    assert [chunk["state"] for chunk in document["chunks"]] == ["succeeded"] * 3
    sent = [
        request.json()["learner_emails"]
        for request in served.requests.find("POST", ALLOCATE.format(policy.uuid))
    ]
    assert sent == [emails[:100], emails[100:200], emails[200:]]


def test_bulk_enroll_sends_every_learner_once(cli: CommandLine, served: Sandbox, tmp_path: Path) -> None:
    customer = served.data.customers[0].uuid
    emails = _emails(2500)
    ran = cli(
        *("bulk", "enroll", customer, "--emails-file", str(emails_file(tmp_path, emails))),
        *("--course-run-key", "course-v1:Org+C1+Run,course-v1:Org+C2+Run", "--no-notify"),
    )
    assert ran.exit_code == 0, ran.stderr
    sent = [email for request in served.requests.find("POST", ENROLL) for email in request.json()["emails"]]
    assert sorted(sent) == sorted(emails)
    assert "emails: 2500 sent OK, 0 in a failed chunk, 0 never sent" in ran.stdout


def test_a_failed_chunk_exits_3_names_it_and_writes_what_remains(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    policy = assignable(served)
    emails = _emails(250)
    remaining = tmp_path / "remaining.txt"
    served.faults.inject(ALLOCATE.format(policy.uuid), Fault.server_error(503), skip=1)
    ran = cli(
        *("bulk", "allocate", policy.uuid, "--emails-file", str(emails_file(tmp_path, emails))),
        *("--content-key", "HarvardX+CS50", "--content-price-cents", "1", "--remaining", str(remaining)),
    )
    assert ran.exit_code == 3
    assert "chunk 2 of 3" in ran.stderr
    assert "learner_emails: 100 sent OK, 100 in a failed chunk, 50 never sent" in ran.stdout
    assert remaining.read_text(encoding="utf-8").splitlines() == emails[100:]
    assert len(served.requests.find("POST", ALLOCATE.format(policy.uuid))) == 2


def test_a_partial_revocation_exits_3(cli: CommandLine, served: Sandbox, tmp_path: Path) -> None:
    plan = served.data.plans[1]
    held = [
        item.user_email
        for item in served.data.licenses(plan.uuid)
        if item.status in ("assigned", "activated")
    ]
    path = emails_file(tmp_path, [*held[:2], "stranger@example.com"])
    ran = cli("bulk", "revoke", plan.uuid, "--emails-file", str(path), "--json")
    assert ran.exit_code == 3
    assert "1 revocation failed" in ran.stderr
    (chunk,) = orjson.loads(ran.stdout)["chunks"]
    assert chunk["result"]["unsuccessful_revocations"][0]["user_email"] == "stranger@example.com"


def test_a_bad_address_in_the_file_is_refused_before_anything_is_sent(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    plan = served.data.plans[1].uuid
    emails = _emails(150)
    emails[120] = "nobody"
    ran = cli("bulk", "revoke", plan, "--emails-file", str(emails_file(tmp_path, emails)))
    assert ran.exit_code == 2
    assert "emails.txt, line 121:" in ran.stderr
    assert not served.requests.find("POST", REVOKE.format(plan))


def test_a_bad_address_is_named_by_its_line_in_the_file_notes_and_blanks_counted(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    plan = served.data.plans[1].uuid
    emails = ["learner0@example.com", "nobody"]  # after a note and a blank line: line 4
    ran = cli("bulk", "revoke", plan, "--emails-file", str(emails_file(tmp_path, emails, notes=True)))
    assert ran.exit_code == 2
    assert f"{tmp_path / 'emails.txt'}, line 4: " in ran.stderr
    assert "user_emails[1]" not in ran.stderr


def test_emails_come_from_standard_input_with_a_dash(cli: CommandLine, served: Sandbox) -> None:
    customer = served.data.customers[0].uuid
    emails = _emails(1200)
    result = CliRunner().invoke(
        command_line,
        [
            "bulk",
            "enroll",
            customer,
            "--emails-file",
            "-",
            "--course-run-key",
            "course-v1:Org+C1+Run",
            "--notify",
        ],
        input="\n".join(emails) + "\n",
        catch_exceptions=False,
    )
    cli.assert_no_credentials(result.stdout + result.stderr)
    assert result.exit_code == 0, result.stderr
    sent = [request.json()["emails"] for request in served.requests.find("POST", ENROLL)]
    assert sorted(len(batch) for batch in sent) == [200, 500, 500]  # the service's 500 a request
    assert sorted(email for batch in sent for email in batch) == sorted(emails)


def test_enrolling_without_choosing_notify_is_a_usage_error_before_anything_is_sent(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    """license-manager requires ``notify``; leaving out both --notify and --no-notify is exit 2."""
    customer = served.data.customers[0].uuid
    path = emails_file(tmp_path, _emails(3))
    for command in (
        ("bulk", "enroll", customer, "--emails-file", str(path), "--course-run-key", "course-v1:Org+C1+Run"),
        ("enrollments", "bulk-enroll", customer, "--email", "a@example.com", "--course-run-key", "k"),
    ):
        ran = cli(*command)
        assert ran.exit_code == 2, ran.stderr
        assert "'--notify' or '--no-notify'" in ran.stderr
    assert not served.requests.find("POST", ENROLL)
