"""The ``enterprise-async`` command tree: a command for every operation of the table, and the
hand-written commands (bulk jobs, exports, the demo and the sandbox); ``_root`` runs it."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Final

import click

from .._client.resource import Resource
from .._generated.client import EnterpriseClient
from .._generated.operations import OPERATIONS
from .._spec import Operation
from .._version import __version__
from ._commands_bulk import bulk
from ._commands_catalogs import catalogs
from ._commands_enroll import enrollments
from ._commands_learners import learners
from ._commands_sandbox import demo, sandbox
from ._commands_sandbox_edit import sandbox_edit
from ._commands_subscriptions import subscriptions
from ._commands_whoami import whoami
from ._commands_worker import worker
from ._drift_option import DRIFT_OPTION
from ._help import CLI_HELP, CONTEXT_SETTINGS
from ._next_command import next_command
from ._operation_commands import AliasGroup, build_groups
from ._presentation import DEFAULT_PRESENTATION, Presentation

__all__ = ["OLD_NAMES", "build_cli", "command_tree"]

OLD_NAMES: Final = (
    ("subscriptions assign", "subscriptions assign-licenses"),
    ("enroll", "enrollments bulk-enroll"),
)
"""Names the first command line had, kept for a while as hidden aliases that print the new name:
one command per task (``bulk enroll`` enrolls a file of learners)."""

HAND_WRITTEN: Final = (catalogs, subscriptions, learners, enrollments)
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
        help=CLI_HELP,
        context_settings=CONTEXT_SETTINGS,
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


class OldName(click.Command):
    """A hidden alias of a command under the name it had: it runs the command, after a note on
    standard error giving the name to use."""

    def __init__(self, name: str, command: click.Command, new_name: str) -> None:
        super().__init__(
            name,
            params=command.params,
            callback=command.callback,
            help=f"Old name of `enterprise-async {new_name}`.",
            hidden=True,
            context_settings=command.context_settings,
        )
        self.new_name = new_name

    def invoke(self, ctx: click.Context) -> Any:
        old = " ".join(ctx.command_path.split()[1:])
        again = next_command(command=self.new_name)
        click.echo(f"note: `{old}` is now `{self.new_name}`, and the old name will go: `{again}`", err=True)
        return super().invoke(ctx)


def _add_old_names(root: click.Group) -> None:
    """Register the hidden aliases of ``OLD_NAMES``."""
    context = click.Context(root)
    for old, new in OLD_NAMES:
        command: click.Command | None = root
        for word in new.split():
            command = command.get_command(context, word) if isinstance(command, click.Group) else None
        if command is None:
            continue  # the operation left the spec: its old name goes with it
        *path, name = old.split()
        parent = root.get_command(context, path[0]) if path else root
        if isinstance(parent, click.Group):
            parent.add_command(OldName(name, command, new), name)


def command_tree() -> click.Group:
    """The whole ``enterprise-async`` tree: a group per resource of the operation table, the
    hand-written commands, and the old names as hidden aliases."""
    tree = build_cli(OPERATIONS.values(), descriptions=_resource_descriptions(), hand_written=HAND_WRITTEN)
    click.version_option(__version__, prog_name="enterprise-async")(tree)
    for command in (demo, sandbox, sandbox_edit, worker, bulk, whoami):
        tree.add_command(command)
    _add_old_names(tree)
    return tree
