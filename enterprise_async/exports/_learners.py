"""``export_learners``: the learner summary as CSV or JSON Lines, streamed in constant memory.

Rows are written as the pager yields them. The CSV header is the model's fields (``attrs.fields``
of ``LearnerSummary``, in order); fields the spec does not know (``extra``) have no column there
and are kept by JSON Lines. Dates and datetimes are written as ISO 8601, decimals as their exact
text, booleans as ``true``/``false``, and a missing value as an empty cell.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from typing import Any, Final, Literal, Protocol

import attrs
import orjson

from .._generated.client import EnterpriseClient
from ..models import LearnerSummary, to_dict

__all__ = ["LEARNER_COLUMNS", "ByteSink", "LearnerFormat", "csv_cell", "export_learners"]

LearnerFormat = Literal["csv", "jsonl"]

LEARNER_COLUMNS: Final = tuple(
    field.name for field in attrs.fields(LearnerSummary) if field.name != "extra" and field.init
)
"""The CSV header: the model's fields, in the model's order (not the private wire record)."""


class ByteSink(Protocol):
    """Where rows go: a binary file, standard output's buffer, an ``AtomicFile``."""

    def write(self, data: bytes, /) -> object:
        """Write bytes."""


def csv_cell(value: Any) -> str:
    """A value as CSV text: ISO dates, exact decimals, lowercase booleans, empty for missing."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(to_dict(value))


class _CsvRows:
    """CSV rows encoded one at a time: the csv module writes each into a reused buffer."""

    def __init__(self) -> None:
        self._buffer = io.StringIO()
        self._writer = csv.writer(self._buffer)

    def encode(self, cells: Sequence[str]) -> bytes:
        self._buffer.seek(0)
        self._buffer.truncate()
        self._writer.writerow(cells)
        return self._buffer.getvalue().encode()

    def header(self) -> bytes:
        return self.encode(LEARNER_COLUMNS)

    def record(self, record: LearnerSummary) -> bytes:
        written = to_dict(record, every_field=True)  # the server's own values, as in the JSON lines
        return self.encode([csv_cell(written.get(name)) for name in LEARNER_COLUMNS])


def _json_line(record: LearnerSummary) -> bytes:
    return orjson.dumps(to_dict(record)) + b"\n"


async def export_learners(
    client: EnterpriseClient,
    enterprise_uuid: str,
    sink: ByteSink,
    *,
    output_format: LearnerFormat = "csv",
    ordering: str | None = None,
) -> int:
    """Write the learner summary of ``enterprise_uuid`` to ``sink``; returns the number of records.

    Memory stays constant whatever the size of the report: each record is encoded and written as
    the pager yields it.
    """
    encode: Callable[[LearnerSummary], bytes] = _json_line
    if output_format == "csv":
        rows = _CsvRows()
        sink.write(rows.header())
        encode = rows.record
    count = 0
    async for record in client.learner_summary.list(enterprise_uuid, ordering=ordering):
        sink.write(encode(record))
        count += 1
    return count
