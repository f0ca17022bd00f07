"""``export_learners``: the learner summary as CSV or JSON Lines, streamed in constant memory.

Rows are written as the pager yields them; nothing is written before the arguments are checked
and page 1 has arrived, so a run that fails at once leaves nothing, not a lone header. The CSV
header is the model's fields (``attrs.fields`` of ``LearnerSummary``, in order); fields the spec
does not know (``extra``) have no column there and are kept by JSON Lines. Dates and datetimes are
written as ISO 8601, decimals as their exact text, booleans as ``true``/``false``, and a missing
value as an empty cell. A CSV cell a spreadsheet would run as a formula is escaped as OWASP
recommends (``spreadsheet_safe``).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Sequence
from contextlib import aclosing
from typing import Final, Literal, Protocol, get_args

import attrs
import orjson

from .._generated.client import EnterpriseClient
from .._generated.resources import LearnerSummaryOrdering
from ..errors import ClientValidationError
from ..models import LearnerSummary, to_dict

__all__ = [
    "FORMULA_TRIGGERS",
    "LEARNER_COLUMNS",
    "ByteSink",
    "LearnerFormat",
    "csv_cell",
    "export_learners",
    "spreadsheet_safe",
]

LearnerFormat = Literal["csv", "jsonl"]

LEARNER_COLUMNS: Final = tuple(
    field.name for field in attrs.fields(LearnerSummary) if field.name != "extra" and field.init
)
"""The CSV header: the model's fields, in the model's order (not the private wire record)."""


class ByteSink(Protocol):
    """Where rows go: a binary file, standard output's buffer, an ``AtomicFile``."""

    def write(self, data: bytes, /) -> object:
        """Write bytes."""


FORMULA_TRIGGERS: Final = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection)."""
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_safe(text: str) -> str:
    """OWASP's defence against CSV injection: a cell starting with ``=``, ``+``, ``-``, ``@``, a tab
    or a carriage return gets a leading single quote, so a spreadsheet shows it as text instead of
    running it (``=HYPERLINK(...)`` becomes ``'=HYPERLINK(...)``). A plain number (``-12.50``) is
    left as sent: a spreadsheet reads it as the number it is, never as a formula."""
    if text.startswith(FORMULA_TRIGGERS) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_cell(value: object) -> str:
    """A value as CSV text: ISO dates, exact decimals, lowercase booleans, empty for missing, and
    text a spreadsheet would run as a formula escaped (``spreadsheet_safe``)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return spreadsheet_safe(str(to_dict(value)))


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
    ordering: LearnerSummaryOrdering | None = None,
) -> int:
    """Write the learner summary of ``enterprise_uuid`` to ``sink``; returns the number of records.

    The arguments are checked (``ClientValidationError``) and page 1 fetched before anything is
    written: the CSV header goes out with page 1. Memory stays constant whatever the size of the
    report: each record is encoded and written as the pager yields it.
    """
    if output_format not in get_args(LearnerFormat):
        raise ClientValidationError("output_format", f"must be one of {', '.join(get_args(LearnerFormat))}")
    # checks the arguments now; pages as large as the service allows (bulk_size: its maximum, 1000)
    pager = client.learner_summary.list(enterprise_uuid, ordering=ordering).bulk()
    rows = _CsvRows() if output_format == "csv" else None
    encode: Callable[[LearnerSummary], bytes] = rows.record if rows is not None else _json_line
    count = 0
    async with aclosing(pager.pages()) as pages:
        async for page in pages:
            if rows is not None:
                sink.write(rows.header())  # once page 1 is in; later pages write none
                rows = None
            for record in pager.items_of(page):
                sink.write(encode(record))
                count += 1
    return count
