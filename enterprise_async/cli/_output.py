"""Where results go: rich renderables for people, JSON documents and JSON Lines for programs.

Consoles are made per call rather than at import, so that they write to whatever standard output
is at the time (a pipe, a file, click's test runner). Output that goes to a file or a pipe is for
tools too: no line ends in spaces (rich pads tables and panels to their width), and a message to
standard error is one line however long (wrapped for a terminal only).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import AsyncIterable, Callable
from typing import IO, Any, Final, TypeVar, cast

import click
import orjson
from rich.console import Console, RenderableType

from .._paging import take
from ..models import to_dict

__all__ = [
    "error_console",
    "print_document",
    "print_json_line",
    "print_listing",
    "say",
    "show",
    "stdout_console",
]

T = TypeVar("T")

WIDTH_WITHOUT_TERMINAL: Final = 120
"""Columns of output that goes to a file or a pipe: wide enough for a table of ids to stay a table."""


_TRAILING_SPACES: Final = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)(?=\n)")
"""Spaces at the end of a line, before any style codes that close it."""


class TrimmedLines:
    """A text stream that writes through to ``stream`` without the spaces that end a line.

    Spaces at the end of what is written wait for what comes next: dropped before a line's end,
    written before more text.
    """

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self._pending = ""

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def write(self, text: str) -> int:
        written = len(text)
        text = _TRAILING_SPACES.sub(r"\1", self._pending + text)
        kept = text.rstrip(" \t")
        self._pending = text[len(kept) :]
        self.stream.write(kept)
        return written

    def flush(self) -> None:
        self.stream.flush()


def _console(*, stderr: bool) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    console = Console(file=cast("IO[str]", TrimmedLines(stream)), highlight=False)
    if console.is_terminal:
        console.file = stream  # a terminal shows no trailing space, and redraws progress in place
        return console
    if "COLUMNS" not in os.environ:
        console.width = WIDTH_WITHOUT_TERMINAL
    console.soft_wrap = stderr  # a note or a log line to a file or a pipe stays one line
    return console


def stdout_console() -> Console:
    """A console on standard output, for results meant for people."""
    return _console(stderr=False)


def error_console() -> Console:
    """A console on standard error, for progress and notes that must not mix with results."""
    return _console(stderr=True)


def say(message: str, *, stderr: bool = False) -> None:
    """A one-line message (a note, a log line, what was done): wrapped at words on a terminal,
    and one line, however long, on a file or a pipe, where a reader takes a line for a record."""
    console = _console(stderr=stderr)
    console.print(message, markup=False, soft_wrap=not console.is_terminal)


def show(*renderables: RenderableType) -> None:
    """Print rich renderables (tables, panels, text) to standard output."""
    console = stdout_console()
    for renderable in renderables:
        console.print(renderable)


def print_document(value: Any) -> None:
    """One JSON document (a model, a list of models, or plain data)."""
    click.echo(orjson.dumps(to_dict(value), option=orjson.OPT_INDENT_2).decode())


def print_json_line(value: Any) -> None:
    """One line of JSON Lines."""
    click.echo(orjson.dumps(to_dict(value)).decode())


async def print_listing(
    items: AsyncIterable[T],
    render: Callable[[list[T]], RenderableType],
    *,
    as_json: bool,
    max_items: int | None,
) -> int:
    """A listing: JSON Lines as the items arrive, or one table of them; returns how many there were."""
    count = 0
    rows: list[T] = []
    async for item in take(items, max_items):
        count += 1
        if as_json:
            print_json_line(item)
        else:
            rows.append(item)
    if not as_json:
        show(render(rows))
    return count
