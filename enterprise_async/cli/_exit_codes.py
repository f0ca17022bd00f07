"""What each exit code of the command line means: one table, for ``--help`` and the README."""

from __future__ import annotations

from typing import Final

__all__ = ["EXIT_CODES", "exit_code_table"]

EXIT_CODES: Final = (
    (0, "everything was done"),
    (1, "the API, the network or the file system refused"),
    (2, "bad input or missing credentials: nothing was sent"),
    (3, "done in part: some chunks, enrollments or catalogs failed"),
    (4, "nothing done: every chunk, enrollment or catalog failed"),
    (130, "stopped by Ctrl-C (SIGINT): what was done is reported"),
    (143, "stopped by SIGTERM: as for Ctrl-C"),
)
"""What each exit code means: the table of the command line's help and of its README."""


def exit_code_table() -> str:
    """``EXIT_CODES`` as the lines of a table, one code a line."""
    return "\n".join(f"{code:>5}  {meaning}" for code, meaning in EXIT_CODES)
