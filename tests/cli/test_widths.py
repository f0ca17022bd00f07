"""The command line at 80 and 120 columns: ids, keys and e-mails are never cut nor wrapped,
headers never split inside a word, a list too wide for the terminal shows one record per block,
``--json`` does not depend on the width, and a failed export ends with one line per catalog."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import orjson
import pytest

from enterprise_async.testing import Fault, Sandbox

from .conftest import CommandLine

WIDTHS = (80, 120)
CONTENTS = "/enterprise/v2/enterprise-catalogs/{}"

Ids = Callable[[dict[str, Any]], list[str]]


def _plan(sandbox: Sandbox) -> tuple[list[str], Ids, list[str]]:
    return (["subscriptions", "list"], lambda plan: [plan["uuid"]], ["Title", "Active", "Unassigned"])


def _policies(sandbox: Sandbox) -> tuple[list[str], Ids, list[str]]:
    customer = sandbox.data.customers[0].uuid
    return (
        ["policies", "list", customer],
        lambda policy: [policy["uuid"], (policy.get("assignment_configuration") or {}).get("uuid") or "-"],
        ["Name", "Active", "Available", "configuration"],
    )


def _assignments(sandbox: Sandbox) -> tuple[list[str], Ids, list[str]]:
    configuration = next(p for p in sandbox.data.policies if p.assignment_configuration_uuid)
    return (
        ["assignments", "list", str(configuration.assignment_configuration_uuid), "--max-items", "12"],
        lambda assignment: [assignment["uuid"], assignment["learner_email"], assignment["content_key"]],
        ["Learner", "Content", "State"],
    )


def _learners(sandbox: Sandbox) -> tuple[list[str], Ids, list[str]]:
    return (
        ["learner_summary", "list", sandbox.data.customers[0].uuid, "--max-items", "12"],
        lambda row: [row["user_email"], row["courserun_key"]],
        ["Course", "Progress", "Passed"],
    )


def _catalogs(sandbox: Sandbox) -> tuple[list[str], Ids, list[str]]:
    return (["catalogs", "list"], lambda catalog: [catalog["uuid"]], ["Title", "Query", "modified"])


LISTINGS = {
    "subscriptions list": _plan,
    "policies list": _policies,
    "assignments list": _assignments,
    "learner_summary list": _learners,
    "catalogs list": _catalogs,
}


def _at(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    monkeypatch.setenv("COLUMNS", str(width))


def _uuids(cli: CommandLine, *arguments: str) -> list[str]:
    """The uuids a listing command lists (``--json``), in order."""
    return [orjson.loads(line)["uuid"] for line in cli(*arguments, "--json").stdout.splitlines()]


def _lines(text: str) -> Iterator[str]:
    return (line.rstrip() for line in text.splitlines())


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("listing", LISTINGS)
def test_a_listing_shows_every_id_whole_within_the_width(
    cli: CommandLine, served: Sandbox, monkeypatch: pytest.MonkeyPatch, listing: str, width: int
) -> None:
    arguments, ids_of, headers = LISTINGS[listing](served)
    records = [orjson.loads(line) for line in cli(*arguments, "--json").stdout.splitlines()]
    assert records
    _at(monkeypatch, width)
    ran = cli(*arguments)
    assert ran.exit_code == 0, ran.stderr
    lines = list(_lines(ran.stdout))
    assert max(len(line) for line in lines) <= width
    words = {word for line in lines for word in line.split()}
    for record in records:
        for identifier in filter(None, ids_of(record)):
            assert identifier in words, f"{identifier} is cut or wrapped"
    for header in headers:  # never "Tit / le"
        assert header in words


@pytest.mark.parametrize("listing", LISTINGS)
def test_json_output_does_not_depend_on_the_width(
    cli: CommandLine, served: Sandbox, monkeypatch: pytest.MonkeyPatch, listing: str
) -> None:
    arguments, _, _ = LISTINGS[listing](served)
    outputs = []
    for width in (40, *WIDTHS):
        _at(monkeypatch, width)
        outputs.append(cli(*arguments, "--json").stdout)
    assert outputs[0] == outputs[1] == outputs[2]


def test_at_80_columns_a_wide_list_shows_one_record_per_block(
    cli: CommandLine, served: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = [
        orjson.loads(line)["uuid"] for line in cli("subscriptions", "list", "--json").stdout.splitlines()
    ]
    _at(monkeypatch, 80)
    ran = cli("subscriptions", "list")
    plans = [line for line in _lines(ran.stdout) if line.startswith("Plan ")]
    assert [line.split()[1] for line in plans] == listed
    assert "  Unassigned  " in ran.stdout


def test_at_120_columns_the_plans_are_a_table(
    cli: CommandLine, served: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    _at(monkeypatch, 120)
    ran = cli("subscriptions", "list")
    header = next(line for line in _lines(ran.stdout) if line.startswith("Plan "))
    assert header.split() == [
        "Plan", "Title", "Active", "Expires", "Assigned", "Activated", "Unassigned", "Revoked",
    ]  # fmt: skip


@pytest.mark.parametrize("width", WIDTHS)
def test_a_failed_export_ends_with_one_line_per_failed_catalog(
    cli: CommandLine, served: Sandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Any, width: int
) -> None:
    listed = _uuids(cli, "catalogs", "list")
    broken = listed[1:]  # the first is exported
    assert broken
    for uuid in broken:
        served.faults.inject(CONTENTS.format(uuid), Fault.server_error(503), times=None)
    _at(monkeypatch, width)
    ran = cli("catalogs", "export", "--out", str(tmp_path), "--max-retries", "0")
    assert ran.exit_code == 3
    lines = list(_lines(ran.stdout))
    failures = lines[-len(broken) :]
    assert [line.split()[0] for line in failures] == broken
    for line in failures:
        assert len(line) <= width
        assert line.split()[1:5] == ["failed:", "page", "1:", "503"]
    assert ran.stdout.count("Service Unavailable") == len(broken)  # said once per catalog, not wrapped


def test_a_message_to_standard_error_that_is_no_terminal_is_one_line(
    cli: CommandLine, served: Sandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    # A log reader takes a line for a record: wrapping is for terminals only, whatever COLUMNS says.
    _at(monkeypatch, 40)
    out = tmp_path / "a-folder-whose-name-is-longer-than-the-columns" / "learners.csv"
    out.parent.mkdir()
    customer = served.data.customers[0].uuid
    ran = cli("learners", "export", customer, "--out", str(out))
    assert ran.exit_code == 0
    assert (
        ran.error_lines[-1] == f"wrote {len(served.data.summaries(customer))} learner records to {out} (csv)"
    )
    emails = tmp_path / "emails.txt"
    emails.write_text("ada@acme.example\ngrace@acme.example\n")
    key = served.data.first(served.data.catalogs[0], "courserun")["key"]
    ran = cli(
        "bulk", "enroll", customer, "--emails-file", str(emails), "--course-run-key", key, "--no-notify"
    )
    queued = [line for line in ran.error_lines if line.startswith("job ")]
    assert len(queued) == 1
    assert queued[0].endswith(" queued: chunk 1, 2 learner(s)")
