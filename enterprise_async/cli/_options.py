"""Options shared by the commands: the API options, ``--json``, and list options that take
repeated or comma-separated values."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from .._request.options import ClientOptions
from ..errors import ClientValidationError
from ._context import ApiSettings
from ._failures import InputError

__all__ = ["api_options", "concurrency_option", "json_option", "list_option", "max_items_option"]

F = TypeVar("F", bound=Callable[..., Any])

_CLIENT_OPTION_NAMES = ("response_format", "max_concurrency", "max_retries", "timeout")


def _concurrency(_: click.Context, __: click.Parameter, value: str | None) -> int | str | None:
    """``--max-concurrency``: a number of requests in flight (at least 1), or ``auto``."""
    if value is None:
        return None
    text = value.strip().lower()
    if text == "auto":
        return "auto"
    if text.isdigit() and int(text) >= 1:
        return int(text)
    raise click.BadParameter(f"{value!r} is neither a number of requests (at least 1) nor 'auto'")


def concurrency_option(help: str) -> Callable[[F], F]:
    """``--max-concurrency N|auto``."""
    return click.option("--max-concurrency", metavar="N|auto", callback=_concurrency, help=help)


def _finite_seconds(_: click.Context, __: click.Parameter, value: float | None) -> float | None:
    """Refuse ``nan`` and ``inf``, which a float range lets through."""
    if value is not None and not 0 < value < float("inf"):
        raise click.BadParameter(f"{value!r} is not a finite, positive number of seconds")
    return value


def _split(kind: Callable[[str], Any]) -> Callable[[click.Context, click.Parameter, Sequence[str]], Any]:
    """A callback turning ``--x a,b --x c`` into ``[a, b, c]`` (None when the option is absent)."""

    def convert(part: str) -> Any:
        try:
            return kind(part)
        except ValueError:
            raise click.BadParameter(f"{part!r} is not a valid value") from None

    def callback(_: click.Context, __: click.Parameter, values: Sequence[str]) -> list[Any] | None:
        parts = [part.strip() for value in values for part in value.split(",") if part.strip()]
        return [convert(part) for part in parts] or None

    return callback


def list_option(
    *names: str, help: str, required: bool = False, kind: Callable[[str], Any] = str, metavar: str = "VALUE"
) -> Callable[[F], F]:
    """An option that may be repeated or given comma-separated values; it reaches the command as a list."""
    return click.option(
        *names,
        multiple=True,
        required=required,
        callback=_split(kind),
        metavar=metavar,
        help=f"{help} (repeat, or separate with commas).",
    )


json_option = click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Write JSON for programs instead of tables: one document, or one line per item for listings.",
)
"""``--json``: machine-readable output."""

max_items_option = click.option(
    "--max-items",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after this many items (pages are fetched only as needed).",
)
"""``--max-items``: how much of a listing to show."""


def api_options(*, format_names: Sequence[str] = ("--response-format", "--format")) -> Callable[[F], F]:
    """The options of every command that talks to the API, handed to it as ``api: ApiSettings``.

    ``format_names`` lets a command that writes files keep ``--format`` for its own output format.
    """
    options = [
        click.option(
            "--sandbox",
            is_flag=True,
            help="Run against an embedded sandbox started for this command; no credentials needed.",
        ),
        click.option(
            *format_names,
            "response_format",
            type=click.Choice(["json", "xml"]),
            default="json",
            show_default=True,
            help="Format the API answers in (both give the same results).",
        ),
        concurrency_option(
            "Requests in flight at once, pages included (SDK default: 8); 'auto' adapts it to the "
            "answers, halving it on 429s, 5xx and climbing latency."
        ),
        click.option(
            "--max-retries",
            type=click.IntRange(min=0),
            help="Retries of a retryable failure (SDK default: 2).",
        ),
        click.option(
            "--timeout",
            type=click.FloatRange(min=0, min_open=True),
            callback=_finite_seconds,
            help="Seconds allowed per request from sending it (SDK default: 30); the wait for the "
            "rate budget before sending is not counted.",
        ),
    ]

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def with_settings(*args: Any, **kwargs: Any) -> Any:
            given = {name: kwargs.pop(name) for name in _CLIENT_OPTION_NAMES}
            try:  # given options replace the SDK's defaults; the rest keep them
                options = ClientOptions().evolve(**given)
            except ClientValidationError as error:
                raise InputError(f"invalid input: {error}") from None
            return command(*args, api=ApiSettings(kwargs.pop("sandbox"), options), **kwargs)

        wrapped: Any = with_settings
        for option in reversed(options):
            wrapped = option(wrapped)
        return wrapped  # type: ignore[no-any-return]

    return decorate
