"""``policies list|allocate``: subsidy access policies and the allocation of assignments."""

from __future__ import annotations

import click

from .._client import EnterpriseClient
from ._context import ApiSettings, run_with_client
from ._options import api_options, json_option, list_option, max_items_option
from ._output import print_document, print_listing, show
from ._views import allocation_view, policies_table

__all__ = ["policies"]


@click.group()
def policies() -> None:
    """Subsidy access policies of an enterprise customer."""


@policies.command("list")
@click.argument("enterprise_customer_uuid")
@click.option("--active/--inactive", default=None, help="Only active, or only inactive, policies.")
@click.option("--policy-type", help="Only policies of this type.")
@click.option("--page-size", type=click.IntRange(min=1), help="Results per page.")
@max_items_option
@json_option
@api_options()
def list_policies(
    enterprise_customer_uuid: str,
    active: bool | None,
    policy_type: str | None,
    page_size: int | None,
    max_items: int | None,
    as_json: bool,
    api: ApiSettings,
) -> None:
    """List the subsidy access policies of ENTERPRISE_CUSTOMER_UUID."""

    async def work(client: EnterpriseClient) -> None:
        pager = client.policies.list(
            enterprise_customer_uuid, active=active, policy_type=policy_type, page_size=page_size
        )
        await print_listing(pager, policies_table, as_json=as_json, max_items=max_items)

    run_with_client(api, work)


@policies.command("allocate")
@click.argument("policy_uuid")
@list_option(
    "--learner-email", "learner_emails", required=True, help="Learner to allocate to", metavar="EMAIL"
)
@click.option("--content-key", required=True, help="Course content key.")
@click.option("--content-price-cents", required=True, type=int, help="Price in USD cents at allocation time.")
@json_option
@api_options()
def allocate(
    policy_uuid: str,
    learner_emails: list[str],
    content_key: str,
    content_price_cents: int,
    as_json: bool,
    api: ApiSettings,
) -> None:
    """Allocate CONTENT_KEY in POLICY_UUID to learners: shows what was created, updated or left unchanged."""

    async def work(client: EnterpriseClient) -> None:
        result = await client.policies.allocate(
            policy_uuid,
            learner_emails=learner_emails,
            content_key=content_key,
            content_price_cents=content_price_cents,
        )
        if as_json:
            print_document(result)
        else:
            show(allocation_view(result))

    run_with_client(api, work)
