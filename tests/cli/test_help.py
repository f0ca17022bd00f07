"""Every command's ``--help`` speaks to users: what it does and what its options mean, never
where a rule comes from (service file names, gateway route ids, pagination classes, spec
extensions stay in the spec)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import click

from enterprise_async.cli import cli

PROVENANCE = re.compile(
    r"service:|\w\.py\b|\.yaml\b|x-sdk-|apigateway_|\w+Pagination\b|openedx/|\bspec/", re.IGNORECASE
)
"""What marks a source note rather than help."""


def helps(command: click.Command, path: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    context = click.Context(command, info_name=" ".join(path))
    yield " ".join(path), command.get_help(context)
    if isinstance(command, click.Group):
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            assert sub is not None
            yield from helps(sub, (*path, name))


def test_no_help_cites_the_sources_of_its_rules() -> None:
    cited = {
        name: PROVENANCE.findall(text)
        for name, text in helps(cli, ("enterprise-async",))
        if PROVENANCE.search(text)
    }
    assert cited == {}


def commands(command: click.Command, path: tuple[str, ...]) -> Iterator[tuple[str, click.Command]]:
    """Every command of the tree, hidden ones (the old names) included, with its path."""
    yield " ".join(path), command
    if isinstance(command, click.Group):
        context = click.Context(command, info_name=" ".join(path))
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            assert sub is not None
            yield from commands(sub, (*path, name))


def test_every_command_and_every_option_says_what_it_is_for() -> None:
    tree = cli.tree  # the whole tree, the old names' hidden aliases too
    silent = [
        f"{path} {option.opts[0]}"
        for path, command in commands(tree, ("enterprise-async",))
        for option in command.get_params(click.Context(command))
        if isinstance(option, click.Option) and not (option.help or "").strip()
    ]
    assert silent == []
    assert [path for path, command in commands(tree, ("enterprise-async",)) if not command.help] == []


def test_the_sandboxs_catalog_items_option_is_described() -> None:
    sandbox = cli.tree.get_command(click.Context(cli.tree), "sandbox")
    assert sandbox is not None
    assert "--catalog-items" in sandbox.get_help(click.Context(sandbox, info_name="sandbox"))
    described = next(option for option in sandbox.params if option.name == "catalog_items")
    assert isinstance(described, click.Option)
    assert "Items in each catalog" in (described.help or "")
