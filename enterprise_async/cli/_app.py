"""The ``enterprise-async`` command group: every command, and the entry point."""

from __future__ import annotations

import click

from .._version import __version__
from ._commands_assignments import assignments
from ._commands_catalogs import catalogs
from ._commands_enroll import enroll
from ._commands_learners import learners
from ._commands_policies import policies
from ._commands_sandbox import demo, sandbox
from ._commands_subscriptions import subscriptions
from ._commands_worker import worker

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="enterprise-async")
def cli() -> None:
    """Command line of enterprise_async, the SDK of the enterprise learning platform's API.

    Credentials come from ENTERPRISE_CLIENT_ID, ENTERPRISE_CLIENT_SECRET, ENTERPRISE_BASE_URL
    (and ENTERPRISE_AUTH_URL); or pass --sandbox to any command to run it against an embedded
    sandbox. Start with `enterprise-async demo`.

    Exit codes: 0 done, 1 the API or the system refused, 2 bad input or missing credentials,
    3 done in part (a catalog of an export, a revocation of a bulk revoke failed).
    """


for _command in (
    policies,
    assignments,
    subscriptions,
    enroll,
    catalogs,
    learners,
    demo,
    sandbox,
    worker,
):
    cli.add_command(_command)


def main() -> None:
    """Run the command line (the ``enterprise-async`` console script and ``python -m enterprise_async``)."""
    cli()
