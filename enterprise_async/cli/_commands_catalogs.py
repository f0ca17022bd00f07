"""``catalogs list|contents|course|course-run|program|export``: catalogs and what is in them."""

from __future__ import annotations

from pathlib import Path

import click

from .._client import EnterpriseClient
from ._context import ApiSettings, run_with_client
from ._export_catalogs import ExportSummary, export_catalogs
from ._failures import IncompleteError
from ._options import api_options, json_option, max_items_option
from ._output import error_console, print_document, print_listing, show
from ._progress import CatalogProgressBars
from ._queue import export_via_queue
from ._views import (
    catalogs_table,
    contents_table,
    course_run_view,
    course_view,
    export_summary_view,
    program_view,
)

__all__ = ["catalogs"]


@click.group()
def catalogs() -> None:
    """Catalogs available to the customer, and the courses, course runs and programs in them."""


@catalogs.command("list")
@max_items_option
@json_option
@api_options()
def list_catalogs(max_items: int | None, as_json: bool, api: ApiSettings) -> None:
    """List the catalogs available to the organization."""

    async def work(client: EnterpriseClient) -> None:
        await print_listing(client.catalogs.list(), catalogs_table, as_json=as_json, max_items=max_items)

    run_with_client(api, work)


@catalogs.command("contents")
@click.argument("catalog_id")
@click.option("--limit", type=click.IntRange(min=1), help="Items per page (server default: 20).")
@max_items_option
@json_option
@api_options()
def contents(
    catalog_id: str, limit: int | None, max_items: int | None, as_json: bool, api: ApiSettings
) -> None:
    """List the active content of CATALOG_ID: courses, course runs and programs."""

    async def work(client: EnterpriseClient) -> None:
        pager = client.catalogs.contents(catalog_id, limit=limit)
        await print_listing(pager, contents_table, as_json=as_json, max_items=max_items)

    run_with_client(api, work)


@catalogs.command("course")
@click.argument("catalog_id")
@click.argument("course_key")
@json_option
@api_options()
def course(catalog_id: str, course_key: str, as_json: bool, api: ApiSettings) -> None:
    """Show the course COURSE_KEY of CATALOG_ID, with its runs."""

    async def work(client: EnterpriseClient) -> None:
        found = await client.catalogs.course(catalog_id, course_key)
        if as_json:
            print_document(found)
        else:
            show(course_view(found))

    run_with_client(api, work)


@catalogs.command("course-run")
@click.argument("catalog_id")
@click.argument("course_run_id")
@json_option
@api_options()
def course_run(catalog_id: str, course_run_id: str, as_json: bool, api: ApiSettings) -> None:
    """Show the course run COURSE_RUN_ID (its key) of CATALOG_ID."""

    async def work(client: EnterpriseClient) -> None:
        found = await client.catalogs.course_run(catalog_id, course_run_id)
        if as_json:
            print_document(found)
        else:
            show(course_run_view(found))

    run_with_client(api, work)


@catalogs.command("program")
@click.argument("catalog_id")
@click.argument("program_id")
@json_option
@api_options()
def program(catalog_id: str, program_id: str, as_json: bool, api: ApiSettings) -> None:
    """Show the program PROGRAM_ID (its uuid) of CATALOG_ID."""

    async def work(client: EnterpriseClient) -> None:
        found = await client.catalogs.program(catalog_id, program_id)
        if as_json:
            print_document(found)
        else:
            show(program_view(found))

    run_with_client(api, work)


@catalogs.command("export")
@click.option(
    "--out",
    "directory",
    required=True,
    type=click.Path(file_okay=False, writable=True, path_type=Path),
    help="Directory for the files: <catalog uuid>.jsonl each, and manifest.json.",
)
@click.option("--resume", is_flag=True, help="Skip the catalogs already complete in the directory.")
@click.option("--limit", type=click.IntRange(min=1), help="Items per page (server default: 20).")
@click.option(
    "--queue",
    "queue_url",
    metavar="REDIS_URL",
    help="Enqueue one job per catalog on this Redis for `enterprise-async worker`s, and wait for them.",
)
@json_option
@api_options()
def export(
    directory: Path, resume: bool, limit: int | None, queue_url: str | None, as_json: bool, api: ApiSettings
) -> None:
    """Export every catalog's contents as JSON Lines, all catalogs and pages concurrently.

    Progress goes to standard error, the summary to standard output. Exits with 3 when some
    catalogs failed (the others are complete); run again with --resume to finish them.
    """

    async def work(client: EnterpriseClient) -> ExportSummary:
        if queue_url is not None:
            return await export_via_queue(client, directory, queue_url, resume=resume, page_size=limit)
        with CatalogProgressBars(error_console()) as bars:
            return await export_catalogs(client, directory, resume=resume, page_size=limit, progress=bars)

    summary = run_with_client(api, work)
    if as_json:
        print_document(summary.to_dict())
    else:
        show(export_summary_view(summary))
    if summary.failed:
        names = ", ".join(outcome.uuid for outcome in summary.failed)
        raise IncompleteError(
            f"{len(summary.failed)} of {len(summary.outcomes)} catalogs failed ({names}); "
            "rerun with --resume to export them"
        )
