"""``subscriptions revoke``: bulk revocation by e-mails, or by filters spelled as options rather than
JSON (``subscriptions bulk-revoke`` is the operation's generated command)."""

from __future__ import annotations

from typing import Any

import click

from .._generated.client import EnterpriseClient
from ..models import BulkRevokeResult
from ._context import ApiSettings, run_with_client
from ._failures import IncompleteError
from ._options import api_options, json_option, list_option
from ._output import print_document, show
from ._views import revocation_view

__all__ = ["subscriptions"]

LICENSE_STATUSES = "activated, assigned, unassigned, revoked"


@click.group()
def subscriptions() -> None:
    """Subscription plans and their licenses."""


@subscriptions.command("revoke")
@click.argument("subscription_plan_uuid")
@list_option("--user-email", "user_emails", help="User whose license is revoked", metavar="EMAIL")
@list_option(
    "--filter-email", "filter_emails", help="Revoke through a filter looking this user up", metavar="EMAIL"
)
@list_option(
    "--status-in",
    "status_in",
    help=f"Revoke every license in these statuses ({LICENSE_STATUSES})",
    metavar="STATUS",
)
@json_option
@api_options()
def revoke(
    subscription_plan_uuid: str,
    user_emails: list[str] | None,
    filter_emails: list[str] | None,
    status_in: list[str] | None,
    as_json: bool,
    api: ApiSettings,
) -> None:
    """Revoke licenses of SUBSCRIPTION_PLAN_UUID in bulk, by e-mail or by filters (never both).

    Exits with 3 when the result is partial (207: some revocations failed).
    """
    filters = _filters(filter_emails, status_in)

    async def work(client: EnterpriseClient) -> BulkRevokeResult:
        return await client.subscriptions.bulk_revoke(
            subscription_plan_uuid, user_emails=user_emails, filters=filters
        )

    result = run_with_client(api, work)
    if as_json:
        print_document(result)
    else:
        show(revocation_view(result))
    if result.partial:
        failed = len(result.unsuccessful_revocations)
        raise IncompleteError(f"partial result: {failed} revocation{'s' * (failed != 1)} failed")


def _filters(emails: list[str] | None, statuses: list[str] | None) -> list[dict[str, Any]] | None:
    """The ``filters`` of bulk revoke: one e-mail lookup per address, one filter for the statuses."""
    filters: list[dict[str, Any]] = [{"user_email": email} for email in emails or ()]
    if statuses:
        filters.append({"status_in": statuses})
    return filters or None
