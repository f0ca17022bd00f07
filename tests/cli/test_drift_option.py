"""``enterprise-async --drift <command>``: the client's drift report on stderr, stdout left to data."""

from __future__ import annotations

import orjson

from enterprise_async.testing import Sandbox

from .conftest import CommandLine

CATALOG = {
    "uuid": "7d0c5a7e-2b44-4f4b-9a3d-6e1f0c8b5a22",
    "title": "Everything",
    "enterprise_customer": "c",
    "new_field": [1, 2],
}


def test_drift_names_what_the_answers_held_beyond_the_spec_on_stderr(
    cli: CommandLine, served: Sandbox
) -> None:
    served.canned.add("catalogs.list", {"count": 1, "next": None, "previous": None, "results": [CATALOG]})
    ran = cli("--drift", "catalogs", "list", "--json")
    assert ran.exit_code == 0
    assert "unknown field: Catalog.new_field (1x, sent array); e.g. catalogs.list > results[0].new_field" in (
        ran.stderr
    )
    assert "drift" not in ran.stdout
    assert [orjson.loads(line)["uuid"] for line in ran.stdout.splitlines()] == [CATALOG["uuid"]]


def test_drift_after_answers_that_fit_the_spec_says_so(cli: CommandLine, served: Sandbox) -> None:
    ran = cli("--drift", "catalogs", "list")
    assert ran.exit_code == 0
    assert "drift: none; every response fit the spec" in ran.stderr


def test_without_the_option_no_report_is_printed(cli: CommandLine, served: Sandbox) -> None:
    served.canned.add("catalogs.list", {"count": 1, "next": None, "previous": None, "results": [CATALOG]})
    ran = cli("catalogs", "list")
    assert ran.exit_code == 0
    assert "drift" not in ran.stderr


def test_drift_works_with_an_embedded_sandbox(cli: CommandLine) -> None:
    ran = cli("--drift", "catalogs", "list", "--sandbox")
    assert ran.exit_code == 0
    assert "drift: none" in ran.stderr


def test_drift_is_printed_when_the_command_fails_too(cli: CommandLine, served: Sandbox) -> None:
    ran = cli("--drift", "catalogs", "course", CATALOG["uuid"], "edX+Nowhere")
    assert ran.exit_code != 0
    assert "drift: none" in ran.stderr
