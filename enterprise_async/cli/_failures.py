"""How a command fails: one line on standard error and an exit code.

An error the user can act on (an API error, bad input, missing credentials, a file that cannot be
written) never shows a traceback; a bug still does, so it can be reported. A command stopped by
Ctrl-C or SIGTERM is cancelled (so an export keeps its partial files and checkpoints for
``--resume``, a bulk call writes ``--remaining``, and progress says it was interrupted), then exits
as shells expect of a signal: 128 + its number (130, 143).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, Final, TypeVar

import click

from .._utils.optional import MissingExtraError, require_extra
from .._utils.redaction import Redactor
from ..errors import ClientValidationError, EnterpriseError, IncompleteListingError
from ..fleet import Customer, CustomersFileError, read_customers

__all__ = [
    "EXIT_FAILURE",
    "EXIT_INCOMPLETE",
    "EXIT_USAGE",
    "STOP_SIGNALS",
    "CommandError",
    "IncompleteError",
    "InputError",
    "InterruptionError",
    "TerminationError",
    "failure",
    "interruption",
    "read_customers_file",
    "require_installed",
    "run",
]

T = TypeVar("T")

EXIT_FAILURE: Final = 1
"""The API, the network or the file system refused: nothing (more) was done."""
EXIT_USAGE: Final = 2
"""Bad input or missing credentials (click uses 2 for its own usage errors too)."""
EXIT_INCOMPLETE: Final = 3
"""The command ran to the end but part of it failed: a catalog of an export, a revocation of a bulk revoke."""

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


class InterruptionError(CommandError):
    """The command was stopped by Ctrl-C (SIGINT); exits with 130 (128 + the signal), as shells do."""

    exit_code = 128 + signal.SIGINT


class TerminationError(InterruptionError):
    """The command was stopped by SIGTERM; exits with 143."""

    exit_code = 128 + signal.SIGTERM


def interruption(signum: int) -> InterruptionError:
    """The report of a stop signal, once the work it stopped has been cancelled."""
    kind = TerminationError if signum == signal.SIGTERM else InterruptionError
    name = signal.Signals(signum).name
    return kind(f"interrupted by {name}; what was done is kept (an export continues with --resume)")


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


def run(work: Coroutine[Any, Any, T]) -> T:
    """Run a command's coroutine to the end, turning the errors a user can act on into one line,
    and Ctrl-C or SIGTERM into ``InterruptionError`` once the work has been cancelled and cleaned up."""
    try:
        return asyncio.run(_until_stopped(work))
    except BrokenPipeError:
        raise  # the reader went away (``| head``): click exits quietly
    except KeyboardInterrupt:
        raise interruption(signal.SIGINT) from None  # Ctrl-C outside the event loop's handler
    except (EnterpriseError, OSError) as error:
        raise failure(error) from None
    except MissingExtraError as error:  # --sandbox without the [sandbox] extra, say
        raise InputError(str(error)) from None


async def _until_stopped(work: Coroutine[Any, Any, T]) -> T:
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
                raise interruption(received[0]) from None
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
