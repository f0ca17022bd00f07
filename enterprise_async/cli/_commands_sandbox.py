"""``demo`` and ``sandbox``: the commands that run the embedded sandbox rather than a real API."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .._request.options import ResponseFormat
from ..testing import DataSize
from ._demo import DEMO_CATALOG_ITEMS, run_demo
from ._export_views import export_totals
from ._failures import CommandError, IncompleteError, require_installed, run
from ._next_command import next_command
from ._output import stdout_console

if TYPE_CHECKING:
    from ..testing import Sandbox

__all__ = ["demo", "sandbox"]


@click.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, writable=True, path_type=Path),
    help="Keep the export here (default: a temporary directory, removed afterwards).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the sandbox's data.")
@click.option(
    "--catalog-items",
    type=click.IntRange(min=1),
    default=DEMO_CATALOG_ITEMS,
    show_default=True,
    help="Items per catalog.",
)
@click.option(
    "--response-format",
    "--format",
    type=click.Choice(["json", "xml"]),
    default="json",
    show_default=True,
    help="Format the sandbox answers in.",
)
def demo(out: Path | None, seed: int, catalog_items: int, response_format: ResponseFormat) -> None:
    """Tour every resource against an embedded sandbox: no credentials, no network.

    Lists policies, allocates twice (created, then no_change), lists assignments with their learner
    state counts (over every assignment the listing matches), reminds and cancels, assigns and
    bulk-revokes licenses (a 207 partial result), browses catalogs and a course, bulk-enrolls and
    reads the job's status, shows the learner summary, and ends with a concurrent export of every
    catalog; then one catalog changes in the sandbox and a second export says what was created,
    updated and removed (the catalogs that did not change cost one request each).
    """
    console = stdout_console()
    started = time.perf_counter()
    summary = run(
        run_demo(console, seed=seed, catalog_items=catalog_items, out=out, response_format=response_format)
    )
    console.print()
    console.rule("[bold]Done")
    console.print(f"[bold]Export:[/] {export_totals(summary)}")
    console.print(f"Whole demo: {time.perf_counter() - started:.2f} s.")
    if out is None:
        keep = next_command(add=["--out", "DIR"])
        console.print(
            f"The export went to a temporary directory, now removed: `{keep}` keeps it.", markup=False
        )
    else:
        console.print(
            f"Files in {out}: per catalog, its export <uuid>.jsonl and its changes <uuid>.changes.jsonl; "
            "and manifest.json.",
            markup=False,
        )
    if summary.failed:
        raise IncompleteError(f"{len(summary.failed)} catalogs failed to export")


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="0 picks a free port."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the generated data.")
@click.option(
    "--catalog-items",
    type=click.IntRange(min=0),
    default=DataSize().catalog_items,
    show_default=True,
    help="Items in each catalog (courses, runs, programs, pathways, videos); more for bigger exports.",
)
@click.option(
    "--token-lifetime",
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds a token lives (default: an hour).",
)
@click.option(
    "--next-host", default=None, help="Origin that next/previous links name instead of the sandbox's."
)
@click.option(
    "--rate-limit", default=None, help='Throttle API requests with 429s, e.g. "18/second; 360/minute".'
)
@click.option(
    "--profile",
    type=click.Choice(["services", "reference"]),
    default="services",
    show_default=True,
    help="Answer as the services behind the gateway do, or as the reference documents the API.",
)
def sandbox(
    host: str,
    port: int,
    seed: int,
    catalog_items: int,
    token_lifetime: float | None,
    next_host: str | None,
    rate_limit: str | None,
    profile: str,
) -> None:
    """Serve the sandbox API in the foreground until Ctrl-C.

    Prints its base URL and the credentials it accepts as `export NAME=value` lines of the
    environment variables the other commands read (the rest as # comments, so the output can be
    sourced by a shell), so that they (or any HTTP tool) can talk to it.
    """
    require_installed("sandbox")
    from ..testing import serve

    lifetime: dict[str, Any] = {} if token_lifetime is None else {"token_lifetime": token_lifetime}
    try:
        serve(
            host,
            port,
            seed,
            size=DataSize(catalog_items=catalog_items),
            **lifetime,
            next_host=next_host,
            rate_limit=rate_limit,
            profile=profile,
            ready=_print_ids,
        )
    except OSError as error:
        raise CommandError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None


def _print_ids(running: Sandbox) -> None:
    """Ids worth trying, printed after the sandbox's own banner."""
    data = running.data
    customer = data.customers[0].uuid
    configuration = next(policy for policy in data.policies if policy.assignment_configuration_uuid)
    lines = [
        "# Try, with those variables exported:",
        "#   enterprise-async whoami              # the customer the token serves",
        "#   enterprise-async catalogs list",
        f"#   enterprise-async policies list {customer}",
        f"#   enterprise-async assignments list {configuration.assignment_configuration_uuid}",
        f"#   enterprise-async subscriptions list --enterprise-customer-uuid {customer}",
        f"#   enterprise-async learners export {customer}",
    ]
    click.echo("\n".join(lines))
