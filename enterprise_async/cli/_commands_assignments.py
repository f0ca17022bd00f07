"""``assignments list|remind|cancel``: learner content assignments of an assignment configuration."""

from __future__ import annotations

from typing import Any

import click

from .._client import EnterpriseClient
from .._pagination import AsyncPager
from ..models import Assignment, AssignmentPage, LearnerStateCount
from ._context import ApiSettings, run_with_client
from ._options import api_options, json_option, list_option, max_items_option
from ._output import print_document, print_json_line, show, take
from ._views import action_view, assignments_view

__all__ = ["assignments"]

STATES = "allocated, accepted, cancelled, errored, expired, reversed"
LEARNER_STATES = "notifying, waiting, failed, expired"


@click.group()
def assignments() -> None:
    """Learner content assignments of an assignment configuration."""


@assignments.command("list")
@click.argument("assignment_configuration_uuid")
@click.option("--content-key", help="Only this content key.")
@list_option("--content-key-in", "content_key__in", help="Any of these content keys", metavar="KEY")
@click.option("--learner-email", help="Only this learner.")
@list_option("--learner-email-in", "learner_email__in", help="Any of these learners", metavar="EMAIL")
@click.option("--learner-state", help=f"Only this learner state ({LEARNER_STATES}).")
@list_option("--learner-state-in", "learner_state__in", help="Any of these learner states", metavar="STATE")
@click.option("--lms-user-id", type=int, help="Only this learner user id.")
@list_option(
    "--lms-user-id-in", "lms_user_id__in", kind=int, help="Any of these learner user ids", metavar="ID"
)
@click.option("--state", help=f"Only this state ({STATES}).")
@list_option("--state-in", "state__in", help="Any of these states", metavar="STATE")
@click.option("--ordering", help="Field to order by (prefix with - for descending).")
@click.option("--search", help="Free-text search.")
@click.option("--page-size", type=click.IntRange(min=1), help="Results per page.")
@max_items_option
@json_option
@api_options()
def list_assignments(
    assignment_configuration_uuid: str,
    max_items: int | None,
    as_json: bool,
    api: ApiSettings,
    **filters: Any,
) -> None:
    """List the assignments of ASSIGNMENT_CONFIGURATION_UUID, with their learner state counts.

    With --json, one assignment per line (the counts are in the table view only).
    """

    async def work(client: EnterpriseClient) -> None:
        pager = client.assignments.list(assignment_configuration_uuid, **filters)
        rows, counts = await _walk(pager, max_items=max_items, as_json=as_json)
        if not as_json:
            show(assignments_view(rows, counts))

    run_with_client(api, work)


async def _walk(
    pager: AsyncPager[Assignment, AssignmentPage], *, max_items: int | None, as_json: bool
) -> tuple[list[Assignment], list[LearnerStateCount]]:
    """Page through the listing, printing JSON Lines as it goes or keeping rows for the table,
    and keep page 1's learner state counts (every page carries the same)."""
    rows: list[Assignment] = []
    counts: list[LearnerStateCount] = []
    seen = 0
    async for page in take(pager.pages(), None):
        counts = counts or list(page.learner_state_counts)
        batch = page.results if max_items is None else page.results[: max_items - seen]
        seen += len(batch)
        for assignment in batch:
            if as_json:
                print_json_line(assignment)
            else:
                rows.append(assignment)
        if max_items is not None and seen >= max_items:
            break
    return rows, counts


def _action_command(action: str, summary: str) -> click.Command:
    """``remind`` and ``cancel``: the same shape, a different operation."""

    @click.command(action, help=f"{summary} of ASSIGNMENT_CONFIGURATION_UUID.")
    @click.argument("assignment_configuration_uuid")
    @list_option(
        "--assignment-uuid", "assignment_uuids", required=True, help="Assignment to act on", metavar="UUID"
    )
    @json_option
    @api_options()
    def command(
        assignment_configuration_uuid: str, assignment_uuids: list[str], as_json: bool, api: ApiSettings
    ) -> None:
        async def work(client: EnterpriseClient) -> None:
            operation = getattr(client.assignments, action)
            body = await operation(assignment_configuration_uuid, assignment_uuids=assignment_uuids)
            if as_json:
                print_document(body)
            else:
                show(action_view(action, body))

        run_with_client(api, work)

    return command


assignments.add_command(_action_command("remind", "Remind the learners of assignments"))
assignments.add_command(_action_command("cancel", "Cancel assignments"))
