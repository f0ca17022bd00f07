"""``--max-concurrency N|auto``: a number, or ``auto``, reaches the command's client as its bound."""

from __future__ import annotations

import click

from enterprise_async import EnterpriseClient
from enterprise_async.cli._context import ApiSettings, run_with_client
from enterprise_async.cli._options import api_options
from enterprise_async.testing import Sandbox

from .conftest import CommandLine


@click.group()
def commands() -> None:
    """A command tree of the test's own: one command showing its client's bound."""


@commands.command()
@api_options()
def bound(api: ApiSettings) -> None:
    async def show(client: EnterpriseClient) -> None:
        click.echo(repr(client.concurrency))

    run_with_client(api, show)


def test_max_concurrency_auto_gives_the_client_an_adaptive_bound(cli: CommandLine, served: Sandbox) -> None:
    ran = cli.invoke(commands, "bound", "--max-concurrency", "auto")
    assert ran.exit_code == 0
    assert ran.stdout.strip() == "AdaptiveConcurrency(limit=8, bounds=(1, 32))"


def test_max_concurrency_as_a_number_stays_a_fixed_bound(cli: CommandLine, served: Sandbox) -> None:
    ran = cli.invoke(commands, "bound", "--max-concurrency", "3")
    assert ran.stdout.strip() == "FixedConcurrency(3)"


def test_a_bound_neither_a_number_nor_auto_is_a_usage_error(cli: CommandLine, served: Sandbox) -> None:
    for value in ("0", "fast", "-2"):
        ran = cli.invoke(commands, "bound", "--max-concurrency", value)
        assert ran.exit_code == 2
        assert "nor 'auto'" in ran.stderr
