"""The ``enterprise-async`` command group: a command for every operation of the table, the
hand-written commands (bulk jobs, short names, the demo and the sandbox), and the entry point."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Final

import click

from .._client.resource import Resource
from .._decoding.spec import Operation
from .._generated.client import EnterpriseClient
from .._generated.operations import OPERATIONS
from .._version import __version__
from ._commands_bulk import bulk
from ._commands_catalogs import catalogs
from ._commands_learners import learners
from ._commands_sandbox import demo, sandbox
from ._commands_subscriptions import subscriptions
from ._commands_worker import worker
from ._drift_option import DRIFT_OPTION
from ._operation_commands import AliasGroup, build_groups
from ._presentation import DEFAULT_PRESENTATION, Presentation

__all__ = ["SHORT_NAMES", "build_cli", "cli", "main"]

SHORT_NAMES: Final = (
    ("subscriptions assign", "subscriptions.assign_licenses"),
    ("enroll", "enrollments.bulk_enroll"),
)
"""Shorter names under which some operations' commands are known as well (the first command
line had them, and scripts use them): ``enroll`` is ``enrollments bulk-enroll``."""

HAND_WRITTEN: Final = (catalogs, subscriptions, learners)
"""Groups of hand-written commands; each joins the generated group of the same name, if any."""


def _resource_descriptions() -> dict[str, str]:
    """Each resource's description in the spec, as its generated class documents it."""
    hints = typing.get_type_hints(EnterpriseClient)
    return {
        name: inspect.getdoc(kind) or ""
        for name, kind in hints.items()
        if inspect.isclass(kind) and issubclass(kind, Resource)
    }


def build_cli(
    operations: Iterable[Operation[Any]],
    *,
    presentation: Presentation = DEFAULT_PRESENTATION,
    descriptions: Mapping[str, str] | None = None,
    hand_written: Iterable[click.Group] = (),
) -> click.Group:
    """The command line of an operation table: a group per resource, a command per operation,
    then the hand-written groups merged in (a hand-written command wins over a generated one)."""
    root = AliasGroup(
        "enterprise-async",
        help=cli_help,
        context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    )
    root.params.append(DRIFT_OPTION)
    groups = build_groups(operations, presentation, descriptions=descriptions)
    for group in hand_written:
        target = groups.setdefault(group.name or "", group)
        if target is not group:
            for name, command in group.commands.items():
                target.add_command(command, name)
    for group in groups.values():
        root.add_command(group)
    return root


def _add_short_names(root: click.Group) -> None:
    """Register the commands of ``SHORT_NAMES`` under their short names too."""
    context = click.Context(root)
    for short, operation_name in SHORT_NAMES:
        resource, method = operation_name.split(".", 1)
        group = root.get_command(context, resource)
        command = group.get_command(context, method) if isinstance(group, click.Group) else None
        if command is None:
            continue  # the operation left the spec: its short name goes with it
        *path, name = short.split()
        parent = root.get_command(context, path[0]) if path else root
        if isinstance(parent, click.Group):
            parent.add_command(command, name)


cli_help: Final = """The enterprise learning platform's API from the command line.

Every operation of the API is a command, `enterprise-async <resource> <method>`: the ids it needs
are arguments, everything else options (see `enterprise-async <resource> <method> --help`).
Credentials come from ENTERPRISE_CLIENT_ID, ENTERPRISE_CLIENT_SECRET and ENTERPRISE_BASE_URL (and
ENTERPRISE_AUTH_URL when tokens come from another host); or add --sandbox to any command to run it
against a sandbox started for it, with no credentials. Start with `enterprise-async demo`.

Results are tables sized to the terminal; --json writes them for programs instead.
`enterprise-async --drift <command>` prints afterwards, on stderr, what the answers held that this
SDK does not know yet.

Exit codes: 0 done, 1 the API or the system refused, 2 bad input or missing credentials,
3 done in part (a catalog of an export, a revocation of a bulk revoke failed).
"""

cli = build_cli(OPERATIONS.values(), descriptions=_resource_descriptions(), hand_written=HAND_WRITTEN)
"""The ``enterprise-async`` command group."""
click.version_option(__version__, prog_name="enterprise-async")(cli)
for _command in (demo, sandbox, worker, bulk):
    cli.add_command(_command)
_add_short_names(cli)


def main() -> None:
    """Run the command line (the ``enterprise-async`` console script and ``python -m enterprise_async``)."""
    cli()
