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
