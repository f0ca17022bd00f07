"""How a command fails: one line on standard error and an exit code.

An error the user can act on (an API error, bad input, missing credentials, a file that cannot be
written) never shows a traceback; a bug still does, so it can be reported. A command stopped by
Ctrl-C or SIGTERM is cancelled (so an export keeps its partial files and checkpoints for
``--resume``, a bulk call writes ``--remaining`` and the results of the jobs that finished, and
progress says it was interrupted), then exits as shells expect of a signal: 128 + its number (130,
143), with a message saying what the command leaves to do next.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Coroutine, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Final, TypeVar

import click

from .._utils.optional import MissingExtraError, require_extra
from .._utils.redaction import Redactor
from ..errors import ClientValidationError, EnterpriseError, IncompleteListingError
from ..fleet import Customer, CustomersFileError, read_customers
from ._help import EXIT_CODES, exit_code_table

__all__ = [
    "EXIT_CODES",
    "EXIT_FAILURE",
    "EXIT_INCOMPLETE",
    "EXIT_NOTHING_DONE",
    "EXIT_REJECTED",
    "EXIT_USAGE",
    "STOP_SIGNALS",
    "CommandError",
    "IncompleteError",
    "InputError",
    "InterruptionError",
    "NothingDoneError",
    "RejectedItemsError",
    "TerminationError",
    "exit_code_table",
    "failure",
    "files_named",
    "interruption",
    "partly_done",
    "read_customers_file",
    "require_installed",
    "run",
    "stop_note",
]

T = TypeVar("T")

EXIT_FAILURE: Final = 1
"""The API, the network or the file system refused: nothing (more) was done."""
EXIT_USAGE: Final = 2
"""Bad input or missing credentials (click uses 2 for its own usage errors too)."""
EXIT_INCOMPLETE: Final = 3
"""The command ran to the end but part of it failed: a catalog of an export, a revocation of a bulk revoke."""
EXIT_NOTHING_DONE: Final = 4
"""The command ran to the end and every part of it failed: every chunk, every enrollment, every catalog."""
EXIT_REJECTED: Final = 5
"""An export is complete, but some items could not be read: each is in its catalog's rejects file."""


SECRET_VARIABLE: Final = "ENTERPRISE_CLIENT_SECRET"

STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)
"""Signals that stop a command cleanly: its work is cancelled, then it exits with 128 + the signal."""


class CommandError(click.ClickException):
    """A failure reported as ``Error: <one line>`` on standard error; exits with 1."""

    exit_code = EXIT_FAILURE

    def __init__(self, message: str) -> None:
        super().__init__(_one_line(message))


class InputError(CommandError):
    """Bad input or missing credentials; exits with 2."""

    exit_code = EXIT_USAGE


class IncompleteError(CommandError):
    """The command finished, but part of it failed; exits with 3."""

    exit_code = EXIT_INCOMPLETE


class NothingDoneError(CommandError):
    """The command finished, but every part of it failed; exits with 4."""

    exit_code = EXIT_NOTHING_DONE


class RejectedItemsError(CommandError):
    """An export finished with every catalog complete, some items of which could not be read (each
    written to its catalog's rejects file); exits with 5."""

    exit_code = EXIT_REJECTED


def partly_done(message: str, *, done: int) -> CommandError:
    """The failure of a command that finished with ``done`` parts done: 3 when some, 4 when none."""
    return IncompleteError(message) if done else NothingDoneError(message)


class InterruptionError(CommandError):
    """The command was stopped by Ctrl-C (SIGINT); exits with 130 (128 + the signal), as shells do."""

    exit_code = 128 + signal.SIGINT


class TerminationError(InterruptionError):
    """The command was stopped by SIGTERM; exits with 143."""

    exit_code = 128 + signal.SIGTERM


_STOP_NOTES: ContextVar[list[str] | None] = ContextVar("enterprise_async_cli_stop_notes", default=None)


def stop_note(note: str) -> None:
    """Add what the user can do next to the message of a stop signal (Ctrl-C, SIGTERM) that comes
    while the command runs; a command's ``CancelledError`` handler says it once it knows."""
    notes = _STOP_NOTES.get()
    if notes is not None:
        notes.append(note)


def interruption(signum: int, notes: list[str] | None = None) -> InterruptionError:
    """The report of a stop signal, once the work it stopped has been cancelled."""
    kind = TerminationError if signum == signal.SIGTERM else InterruptionError
    name = signal.Signals(signum).name
    return kind("; ".join([f"interrupted by {name}", *(notes or ())]))


def failure(error: EnterpriseError | OSError) -> CommandError:
    """The one-line report of an error the user can act on."""
    if isinstance(error, ClientValidationError):
        return InputError(f"invalid input: {error}")
    if isinstance(error, IncompleteListingError):
        return IncompleteError(f"{type(error).__name__}: {error}")
    if isinstance(error, EnterpriseError):
        return CommandError(f"{type(error).__name__}: {error}")
    where = f": {error.filename}" if error.filename else ""
    return CommandError(f"{error.strerror or type(error).__name__}{where}")


@contextlib.contextmanager
def files_named() -> Iterator[None]:
    """Within: a file the user named that cannot be read or written (a directory that does not
    exist, a full disk) is the one-line failure naming it as given, not a traceback. For a file
    written after the command's work, outside ``run``."""
    try:
        yield
    except BrokenPipeError:
        raise  # the reader went away (``| head``): click exits quietly
    except OSError as error:
        raise failure(error) from None


def require_installed(extra: str) -> None:
    """Refuse, in one line naming the install command, when ``extra`` (``"redis"``) is missing."""
    try:
        require_extra(extra)
    except MissingExtraError as error:
        raise InputError(str(error)) from None


def read_customers_file(path: Path) -> dict[str, Customer]:
    """The customers file's customers; its problems, all of them, as one ``InputError``."""
    try:
        return read_customers(path)
    except CustomersFileError as error:
        raise InputError(str(error)) from None


def run(work: Coroutine[Any, Any, T], *, on_stop: str = "") -> T:
    """Run a command's coroutine to the end, turning the errors a user can act on into one line,
    and Ctrl-C or SIGTERM into ``InterruptionError`` once the work has been cancelled and cleaned up;
    its message ends with ``on_stop`` and what the command said with ``stop_note``."""
    notes = [on_stop] if on_stop else []
    token = _STOP_NOTES.set(notes)
    try:
        return asyncio.run(_until_stopped(work, notes))
    except BrokenPipeError:
        raise  # the reader went away (``| head``): click exits quietly
    except KeyboardInterrupt:
        raise interruption(signal.SIGINT, notes) from None  # Ctrl-C outside the event loop's handler
    except (EnterpriseError, OSError) as error:
        raise failure(error) from None
    except MissingExtraError as error:  # --sandbox without the [sandbox] extra, say
        raise InputError(str(error)) from None
    finally:
        _STOP_NOTES.reset(token)


async def _until_stopped(work: Coroutine[Any, Any, T], notes: list[str]) -> T:
    """``work``, cancelled by the first stop signal; the signal is then raised as ``InterruptionError``."""
    task = asyncio.ensure_future(work)
    received: list[int] = []

    def stop(signum: int) -> None:
        received.append(signum)
        task.cancel()

    with _signal_handlers(stop):
        try:
            return await task
        except asyncio.CancelledError:
            if received:
                raise interruption(received[0], notes) from None
            raise


@contextlib.contextmanager
def _signal_handlers(stop: Any) -> Iterator[None]:
    """``stop(signum)`` on each of ``STOP_SIGNALS`` while inside; nothing where the loop cannot
    handle signals (another thread than the main one, Windows)."""
    loop = asyncio.get_running_loop()
    installed = []
    for signum in STOP_SIGNALS:
        try:
            loop.add_signal_handler(signum, stop, signum)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(signum)
    try:
        yield
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


def _one_line(message: str) -> str:
    """Collapse a message to one line, and hide the client secret (in any encoding), URL passwords
    and anything shaped like a JWT should one ever be in it.

    The SDK already keeps secrets and tokens out of its messages; this is the last line of
    defence for whatever else ends up on the terminal.
    """
    return Redactor([os.environ.get(SECRET_VARIABLE) or ""]).text(" ".join(message.split()))
