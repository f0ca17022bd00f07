"""The ``enterprise-async`` root command, light enough that ``enterprise-async --help`` imports
no model: it lists the commands from the generated index of the operations
(``_generated/commands.py``) and the hand-written commands' first lines, and builds the command
tree (``_app``) only when a command is run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import click

from .._generated.commands import RESOURCES
from .._version import __version__
from ._drift_option import DRIFT_OPTION
from ._help import CLI_HELP, CONTEXT_SETTINGS, HAND_WRITTEN_HELP

__all__ = ["LazyRoot", "cli", "listing", "main"]


def _command_name(name: str) -> str:
    return name.replace("__", "-").replace("_", "-")


def listing() -> dict[str, str]:
    """Every top-level command's name and help, without building one: each resource's
    description (or the generated default), then the hand-written commands'."""
    found = {
        _command_name(name): description or f"Operations of the {name} resource."
        for name, (description, _) in RESOURCES.items()
    }
    for name, text in HAND_WRITTEN_HELP.items():
        found.setdefault(name, text)
    return dict(sorted(found.items()))


class LazyRoot(click.Group):
    """The root group: lists its commands from ``listing``, and builds the whole tree with
    ``load`` the first time a command is looked up (to run it, or to show its own help)."""

    def __init__(self, load: Callable[[], click.Group], commands: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._load = load
        self._listed = dict(commands)
        self._tree: click.Group | None = None

    @property
    def tree(self) -> click.Group:
        """The whole command tree, built on first use."""
        if self._tree is None:
            self._tree = self._load()
        return self._tree

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self._listed)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self.tree.get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their short help, as click shows them, from the listing alone."""
        stubs = [click.Command(name, help=text) for name, text in self._listed.items()]
        if not stubs:
            return
        limit = formatter.width - 6 - max(len(stub.name or "") for stub in stubs)
        rows = [(stub.name or "", stub.get_short_help_str(limit)) for stub in stubs]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _tree() -> click.Group:
    from ._app import command_tree  # here: the models, the operations and the commands

    return command_tree()


cli: Final = LazyRoot(
    _tree, listing(), name="enterprise-async", help=CLI_HELP, context_settings=CONTEXT_SETTINGS
)
"""The ``enterprise-async`` command group."""
cli.params.append(DRIFT_OPTION)
click.version_option(__version__, prog_name="enterprise-async")(cli)


def main() -> None:
    """Run the command line (the ``enterprise-async`` console script and ``python -m enterprise_async``)."""
    cli()
