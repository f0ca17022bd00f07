"""A hint that tells how to go on names the whole command to run, with every argument and option
the user gave that the next command takes: run as told, it does what it says (a resume run without
the first run's ``--page-size`` would start every catalog again). Every command that prints such a
hint is here or beside its own machinery: ``catalogs export`` failing in part (here), stopped by a
signal (tests/cli/test_export_stops.py), with ``--customers`` or no worker (tests/fleet/); ``bulk
enroll`` stopped with jobs running (tests/cli/test_bulk_enroll_follow.py); the old names and the
demo (here)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from enterprise_async.testing import Fault, Sandbox

from .conftest import CommandLine

CONTENTS = "/enterprise/v2/enterprise-catalogs/{}"
HINT = re.compile(r"`([^`]*enterprise[-_]async [^`]*)`")


def hint_in(text: str) -> list[str]:
    """The words of the last command a message tells to run (between backticks)."""
    found = HINT.findall(text)
    assert found, f"no command to run in {text!r}"
    words = shlex.split(found[-1].replace("python -m enterprise_async", "enterprise-async"))
    assert words[0] == "enterprise-async"
    return words[1:]


def test_a_failed_export_names_its_resume_with_every_option_and_resumes_as_told(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    out = tmp_path / "catalogs out"  # a space: the hint quotes it for a shell
    catalog = served.data.catalogs[0].uuid
    served.faults.inject(CONTENTS.format(catalog), Fault.server_error(503), skip=2, times=None)
    options = ["--page-size", "20", "--response-format", "xml", "--max-retries", "0", "--timeout", "20.0"]
    ran = cli("catalogs", "export", "--out", str(out), *options)
    assert ran.exit_code == 3
    hint = hint_in(ran.error_lines[-1])
    assert hint == ["catalogs", "export", "--out", str(out), *options, "--resume"]
    served.faults.clear()
    served.requests.clear()
    resumed = cli(*hint)
    assert resumed.exit_code == 0, resumed.stderr
    assert "starts again" not in resumed.stderr
    pages = served.requests.find("GET", CONTENTS.format(catalog))
    assert pages, "the failed catalog was resumed"
    assert {page.query_value("page_size") for page in pages} == {"20"}
    assert pages[0].query_value("page") == "2"  # the last page written, read again: not page 1


def test_an_old_name_names_the_new_with_every_argument_and_option(cli: CommandLine, served: Sandbox) -> None:
    customer = served.data.customers[0].uuid
    key = "course-v1:Org+C1+Run"
    ran = cli(
        "--drift",
        "enroll",
        customer,
        "--email",
        "a@x.example",
        "--course-run-key",
        key,
        "--no-notify",
        "--json",
    )
    assert ran.exit_code == 0, ran.stderr
    note = next(line for line in ran.error_lines if line.startswith("note: "))
    hint = hint_in(note)
    # the option's first name (an array's option also answers to its singular)
    given = [customer, "--emails", "a@x.example", "--course-run-keys", key, "--no-notify", "--json"]
    assert hint == ["--drift", "enrollments", "bulk-enroll", *given]
    assert cli(*hint).exit_code == 0


def test_the_demo_names_how_to_keep_its_export_with_its_options(cli: CommandLine) -> None:
    ran = cli("demo", "--seed", "3", "--catalog-items", "7")
    assert ran.exit_code == 0, ran.stderr
    kept = next(line for line in ran.stdout.splitlines() if "temporary directory" in line)
    assert hint_in(kept) == ["demo", "--seed", "3", "--catalog-items", "7", "--out", "DIR"]
