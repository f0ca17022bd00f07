"""Records shown to people at any width, whatever the console's.

``RecordList`` draws records as a table where every column fits the console at its narrowest (ids
whole, free text wrapped between words), else one block per record, so nothing is ever cut or
hidden. ``cell`` writes a value as table text. ``table`` and ``details`` make them from models by
columns that are data (a header and an attribute path), so a view says what it shows, not how.
"""

from __future__ import annotations

import datetime
import decimal
import enum
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final

from attrs import frozen
from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, JustifyMethod, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

__all__ = ["Cell", "Columns", "ListColumn", "RecordList", "cell", "details", "table"]

Columns = Sequence[tuple[str, str]]
"""(header, attribute path) pairs; a path may go through nested models (``aggregates.spend_limit``)."""

MISSING = "-"


def cell(value: Any) -> str:
    """A value as table text: datetimes without seconds (nor a time at midnight), booleans as
    yes/no, enums as their wire value, floats with two decimals."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, datetime.datetime):
        midnight = (value.hour, value.minute, value.second) == (0, 0, 0)
        return value.strftime("%Y-%m-%d" if midnight else "%Y-%m-%d %H:%M")
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, (datetime.date, decimal.Decimal)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(cell(item) for item in value) or MISSING
    return str(value)


def _lookup(model: Any, path: str) -> Any:
    for name in path.split("."):
        model = getattr(model, name, None)
        if model is None:
            return None
    return model


IDENTIFIER_NAMES: Final = ("uuid", "key", "license", "job_id", "email")
IDENTIFIER_SUFFIXES: Final = ("_uuid", "_key", "_email")


def _identifier(path: str) -> bool:
    """Whether a column holds ids, keys or e-mails: values a user copies, never cut nor wrapped."""
    name = path.rsplit(".", 1)[-1]
    return name in IDENTIFIER_NAMES or name.endswith(IDENTIFIER_SUFFIXES)


TEXT_WIDTH: Final = 14
"""The narrowest a column of free text (titles, names, reasons) gets; it wraps between words."""
TEXT_LINES: Final = 3
"""The most lines the longest text of a table wraps over; past that, records go in blocks."""
LIST_BOX: Final = box.SIMPLE_HEAD
"""Lists are drawn with a rule under the header and no other lines: more room for the values."""


LIST_PADDING: Final = (0, 1, 0, 0)
"""A space after each column's text; with the box's separator, two between columns."""


def _table_overhead(columns: int) -> int:
    """What a list's table adds to its columns' text (edges off): two spaces between columns."""
    return 2 * (columns - 1)


BLOCK_INDENT: Final = 2
"""Spaces before the fields of a record shown as a block."""


@frozen
class ListColumn:
    """A column of a ``RecordList``: ids are shown whole, text wraps between words."""

    header: str
    identifier: bool = False
    justify: JustifyMethod = "left"


Cell = str | Text


@frozen
class RecordList:
    """Records as a table when every column fits the console at its narrowest (ids whole, headers
    never split inside a word); otherwise one record per block, so that nothing is cut or hidden
    at any width. Rendered at print time, when the console's width is known."""

    title: str
    columns: Sequence[ListColumn]
    rows: Sequence[Sequence[Cell]]
    caption: str | None = None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = [self._narrowest(index) for index in range(len(self.columns))]
        needed = sum(widths) + _table_overhead(len(widths))
        if needed <= options.max_width:
            yield self._table(widths)
        else:
            yield from self._blocks()

    def _narrowest(self, index: int) -> int:
        """How narrow a column can get: an id's or a short value's whole width, free text's
        ``TEXT_WIDTH``, and never less than the longest word of its header."""
        column = self.columns[index]
        header = max((cell_len(word) for word in column.header.split()), default=1)
        values = [_plain(row[index]) for row in self.rows]
        longest = max((cell_len(value) for value in values), default=0)
        if column.identifier or longest <= TEXT_WIDTH:
            return max(header, longest)
        return max(header, TEXT_WIDTH, *(_width_in_lines(value, TEXT_LINES) for value in values))

    def _table(self, widths: Sequence[int]) -> Table:
        view = Table(
            title=self.title,
            caption=self.caption,
            title_justify="left",
            caption_justify="left",
            header_style="bold",
            box=LIST_BOX,
            show_edge=False,
            pad_edge=False,
            padding=LIST_PADDING,
        )
        for column, width in zip(self.columns, widths, strict=True):
            view.add_column(
                column.header,
                justify=column.justify,
                min_width=width,
                no_wrap=column.identifier,
                overflow="fold",
            )
        for row in self.rows:
            view.add_row(*row)
        return view

    def _blocks(self) -> Iterator[RenderableType]:
        """Each record as its first value (its id) in bold, then its other fields, one a line."""
        yield Text(self.title, style="italic")
        for row in self.rows:
            yield Text()
            yield Text.assemble(f"{self.columns[0].header} ", (_plain(row[0]), "bold"))
            labels = [column.header for column in self.columns[1:]]
            yield _fields_block(zip(labels, row[1:], strict=True))
        if self.caption:
            yield Text()
            yield Text(self.caption, style="dim")


def _width_in_lines(text: str, lines: int) -> int:
    """The narrowest width at which ``text``, wrapped between words, takes at most ``lines`` lines."""
    words = [cell_len(word) for word in text.split()] or [0]
    width = max(words)
    while _wrapped_lines(words, width) > lines:
        width += 1
    return width


def _wrapped_lines(words: Sequence[int], width: int) -> int:
    """Lines that words of these widths take, wrapped greedily at ``width``."""
    lines, used = 1, -1
    for word in words:
        if used + 1 + word > width:
            lines, used = lines + 1, word
        else:
            used += 1 + word
    return lines


def _plain(value: Cell) -> str:
    return value.plain if isinstance(value, Text) else value


def table(title: str, columns: Columns, rows: Iterable[Any], *, caption: str | None = None) -> RecordList:
    """Models, one record each: a table where it fits, else one block per record (``RecordList``)."""
    return RecordList(
        title,
        [ListColumn(header, identifier=_identifier(path)) for header, path in columns],
        [[cell(_lookup(row, path)) for _, path in columns] for row in rows],
        caption=caption,
    )


def details(title: str, model: Any, fields: Sequence[str]) -> Group:
    """One model as its title, then field/value pairs, as a record of a list is shown in a block."""
    pairs = [(name, cell(_lookup(model, name))) for name in fields]
    return Group(Text(title, style="bold"), _fields_block(pairs))


def _fields_block(pairs: Iterable[tuple[str, Cell]]) -> Padding:
    """Labels and values, one pair a line, indented under what they describe."""
    fields = Table.grid(padding=(0, 2, 0, 0))
    fields.add_column(style="bold", no_wrap=True)
    fields.add_column(overflow="fold")
    for label, value in pairs:
        fields.add_row(label, value)
    return Padding(fields, (0, 0, 0, BLOCK_INDENT))
