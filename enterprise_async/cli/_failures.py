"""How a command fails: one line on standard error and an exit code.

An error the user can act on (an API error, bad input, missing credentials, a file that cannot be
written) never shows a traceback; a bug still does, so it can be reported.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, Final, TypeVar

import click

from .._redaction import Redactor
from ..errors import ClientValidationError, EnterpriseError
from ..fleet import Customer, CustomersFileError, read_customers

__all__ = [
    "EXIT_FAILURE",
    "EXIT_INCOMPLETE",
    "EXIT_USAGE",
    "CommandError",
    "IncompleteError",
    "InputError",
    "failure",
    "read_customers_file",
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


def failure(error: EnterpriseError | OSError) -> CommandError:
    """The one-line report of an error the user can act on."""
    if isinstance(error, ClientValidationError):
        return InputError(f"invalid input: {error}")
    if isinstance(error, EnterpriseError):
        return CommandError(f"{type(error).__name__}: {error}")
    where = f": {error.filename}" if error.filename else ""
    return CommandError(f"{error.strerror or type(error).__name__}{where}")


def read_customers_file(path: Path) -> dict[str, Customer]:
    """The customers file's customers; its problems, all of them, as one ``InputError``."""
    try:
        return read_customers(path)
    except CustomersFileError as error:
        raise InputError(str(error)) from None


def run(work: Coroutine[Any, Any, T]) -> T:
    """Run a command's coroutine to the end, turning the errors a user can act on into one line."""
    try:
        return asyncio.run(work)
    except BrokenPipeError:
        raise  # the reader went away (``| head``): click exits quietly
    except (EnterpriseError, OSError) as error:
        raise failure(error) from None


def _one_line(message: str) -> str:
    """Collapse a message to one line, and hide the client secret (in any encoding), URL passwords
    and anything shaped like a JWT should one ever be in it.

    The SDK already keeps secrets and tokens out of its messages; this is the last line of
    defence for whatever else ends up on the terminal.
    """
    return Redactor([os.environ.get(SECRET_VARIABLE) or ""]).text(" ".join(message.split()))
