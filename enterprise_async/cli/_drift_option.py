"""``--drift``: after any command, the client's drift report on stderr (stdout stays data)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import click

if TYPE_CHECKING:
    from .._client.base import BaseClient

__all__ = ["DRIFT_OPTION", "print_drift"]

_WANTED: Final = "enterprise_async.drift"
"""The key in ``click``'s ``ctx.meta`` (shared by every context of one invocation)."""


def _remember(context: click.Context, _: click.Parameter, value: bool) -> None:
    if value:
        context.meta[_WANTED] = True


DRIFT_OPTION: Final = click.Option(
    ["--drift"],
    is_flag=True,
    expose_value=False,
    callback=_remember,
    help="After the command, print to stderr what the API's answers held that this SDK does not "
    "know yet: unknown fields, enum values, values kept as sent, undocumented statuses.",
)
"""The root group's option; commands that open a client print its report when it is given."""


def print_drift(client: BaseClient) -> None:
    """Print ``client.drift()`` to stderr when the invocation asked for ``--drift``."""
    context = click.get_current_context(silent=True)
    if context is None or not context.meta.get(_WANTED):
        return
    click.echo(str(client.drift()), err=True)
