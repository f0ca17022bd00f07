"""``export_learners`` called directly, and ``learners export`` through the command line."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator
from pathlib import Path

import attrs
import orjson
import pytest

from enterprise_async.cli import LEARNER_COLUMNS, export_learners
from enterprise_async.models import LearnerSummary, from_dict
from enterprise_async.testing import Sandbox
from tests.openapi_spec import required

from .conftest import CommandLine

SUMMARY = "/enterprise/v3/enterprise-customer/{}/learner-summary"


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=0, profile="reference") as running:
        yield running


def csv_rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode())))


class WatchedSink:
    """Collects bytes, and notes how many summary pages the sandbox had served at each write."""

    def __init__(self, sandbox: Sandbox, customer: str) -> None:
        self.data = io.BytesIO()
        self.pages_served_at_write: list[int] = []
        self._sandbox = sandbox
        self._path = SUMMARY.format(customer)

    def write(self, data: bytes, /) -> int:
        self.pages_served_at_write.append(len(self._sandbox.requests.find("GET", self._path)))
        return self.data.write(data)


def test_csv_header_is_the_model_fields() -> None:
    assert list(LEARNER_COLUMNS) == [
        field.name for field in attrs.fields(LearnerSummary) if field.name not in ("extra", "_sdk_wire")
    ]


async def test_csv_has_the_header_and_one_row_per_record(sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[0].uuid
    sink = io.BytesIO()
    async with sandbox.client() as client:
        count = await export_learners(client, customer, sink)
    rows = csv_rows(sink.getvalue())
    assert rows[0] == list(LEARNER_COLUMNS)
    assert len(rows) - 1 == count == len(sandbox.data.summaries(customer))


async def test_csv_writes_dates_decimals_and_booleans_as_text(sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[0].uuid
    sink = io.BytesIO()
    async with sandbox.client(response_format="xml") as client:
        await export_learners(client, customer, sink, ordering="enrollment_id")
    header, *rows = csv_rows(sink.getvalue())
    first = dict(zip(header, rows[0], strict=True))
    wire = min(sandbox.data.summaries(customer), key=lambda row: row["enrollment_id"])
    assert first["enrollment_id"] == str(wire["enrollment_id"])
    assert first["amount_learner_paid"] == str(wire["amount_learner_paid"])  # the number as JSON writes it
    assert first["course_list_price"] == str(wire["course_list_price"])
    assert first["enrollment_date"] == wire["enrollment_date"]  # YYYY-MM-DD
    assert first["has_passed"] == str(wire["has_passed"]).lower()
    assert first["letter_grade"] == (wire["letter_grade"] or "")


async def test_json_lines_read_back_as_the_records(sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[1].uuid
    sink = io.BytesIO()
    async with sandbox.client() as client:
        await export_learners(client, customer, sink, output_format="jsonl")
        listed = await client.learner_summary.list(customer).to_list()
    exported: list[LearnerSummary] = [
        from_dict(LearnerSummary, orjson.loads(line)) for line in sink.getvalue().splitlines()
    ]
    assert exported == listed


async def test_rows_are_written_as_pages_arrive() -> None:
    async with Sandbox(seed=0, page_sizes={"learner_summary": 10}) as sandbox:  # pages of 10, not 1000
        customer = sandbox.data.customers[0].uuid
        sink = WatchedSink(sandbox, customer)
        async with sandbox.client() as client:
            await export_learners(client, customer, sink)
    header, first_row, *_ = sink.pages_served_at_write
    assert (header, first_row) == (1, 1)  # the header with page 1 (nothing before it), before page 2
    assert sink.pages_served_at_write[-1] == len(sandbox.requests.find("GET", SUMMARY.format(customer))) > 1


def test_learners_export_asks_for_the_services_largest_page(cli: CommandLine, served: Sandbox) -> None:
    customer = served.data.customers[0].uuid
    ran = cli("learners", "export", customer)
    assert ran.exit_code == 0, ran.stderr
    requests = served.requests.find("GET", SUMMARY.format(customer))
    sizes = {value for request in requests for name, value in request.query if name == "page_size"}
    assert sizes == {"1000"}  # edx-enterprise-data's EnterpriseEnrollmentsPagination.max_page_size


def test_learners_export_refuses_an_ordering_the_service_does_not_sort_by(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    customer = served.data.customers[0].uuid
    ran = cli("learners", "export", customer, "--ordering", "bogus", "--out", str(tmp_path / "x.csv"))
    assert ran.exit_code == 2, ran.stderr  # a usage error: nothing sent, nothing written
    assert "'bogus' is not one of" in ran.stderr
    assert served.requests.find("GET", SUMMARY.format(customer)) == []
    assert list(tmp_path.iterdir()) == []
    ran = cli("learners", "export", customer, "--ordering", "-last_activity_date")
    assert ran.exit_code == 0, ran.stderr
    (first, *_) = served.requests.find("GET", SUMMARY.format(customer))
    assert first.query_value("ordering") == "-last_activity_date"


async def test_a_summary_without_pagination_is_exported_too() -> None:
    async with (
        Sandbox(seed=1, learner_summary="list", profile="reference") as sandbox,
        sandbox.client() as client,
    ):
        customer = sandbox.data.customers[0].uuid
        sink = io.BytesIO()
        count = await export_learners(client, customer, sink)
    assert count == len(sandbox.data.summaries(customer)) == len(csv_rows(sink.getvalue())) - 1


def test_learners_export_writes_csv_to_standard_output(cli: CommandLine, served: Sandbox) -> None:
    customer = served.data.customers[0].uuid
    ran = cli("learners", "export", customer)
    assert ran.exit_code == 0
    rows = csv_rows(ran.stdout.encode())
    assert rows[0] == list(LEARNER_COLUMNS)
    assert len(rows) - 1 == len(served.data.summaries(customer))
    assert ran.error_lines == [f"wrote {len(rows) - 1} learner records to standard output (csv)"]


def test_learners_export_writes_a_file_only_when_complete(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    customer = served.data.customers[2].uuid
    out = tmp_path / "learners.jsonl"
    ran = cli("learners", "export", customer, "--out", str(out), "--format", "jsonl")
    assert ran.exit_code == 0
    assert len(out.read_bytes().splitlines()) == len(served.data.summaries(customer))
    assert [path.name for path in tmp_path.iterdir()] == ["learners.jsonl"]


def test_learners_export_failing_leaves_no_file(cli: CommandLine, served: Sandbox, tmp_path: Path) -> None:
    out = tmp_path / "learners.csv"
    ran = cli("learners", "export", "00000000-0000-4000-8000-000000000000", "--out", str(out))
    assert ran.exit_code == 1
    assert len(ran.error_lines) == 1
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_cannot_be_written_is_named_as_given(
    cli: CommandLine, served: Sandbox, tmp_path: Path
) -> None:
    out = tmp_path / "nonexistent" / "dir" / "x.csv"
    ran = cli("learners", "export", served.data.customers[0].uuid, "--out", str(out))
    assert ran.exit_code == 1
    assert ran.error_lines == [f"Error: No such file or directory: {out}"]  # never x.csv.part


def test_csv_rows_carry_the_servers_own_spellings_and_texts() -> None:
    from enterprise_async.exports._learners import _CsvRows

    record = from_dict(
        LearnerSummary,
        {
            **required(LearnerSummary),
            "progress_status": "in progress",
            "course_list_price": "100.0",
            "created": "2026-01-05T00:00:00Z",
        },
    )
    (row,) = csv.DictReader(io.StringIO((_CsvRows().header() + _CsvRows().record(record)).decode()))
    assert (row["progress_status"], row["course_list_price"], row["created"]) == (
        "in progress",
        "100.0",
        "2026-01-05T00:00:00Z",
    )
