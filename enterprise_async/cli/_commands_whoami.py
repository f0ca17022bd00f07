"""``whoami``: the enterprise customers the credentials' token serves, the uuid the other commands take."""

from __future__ import annotations

import click

from .._client.identity import ALL_CUSTOMERS
from .._generated.client import EnterpriseClient
from ._context import ApiSettings, run_with_client
from ._failures import CommandError
from ._options import api_options, json_option
from ._output import print_document

__all__ = ["whoami"]


@click.command()
@json_option
@api_options()
def whoami(as_json: bool, api: ApiSettings) -> None:
    """The enterprise customers your token serves: the uuid that `policies list`, `learners export`,
    `subscriptions list --enterprise-customer-uuid` and the other commands take.

    Read from the token's roles (the services check every request against them). With --json:
    {"customers": {"<uuid>": ["<role>", ...]}}, "*" standing for every customer. Exits 1 when the
    token names no customer.
    """

    async def work(client: EnterpriseClient) -> dict[str, list[str]]:
        return await client.token_customers()

    customers = run_with_client(api, work)
    if as_json:
        print_document({"customers": customers})
    else:
        for uuid, roles in customers.items():
            shown = "every customer (an operator's token)" if uuid == ALL_CUSTOMERS else uuid
            click.echo(f"{shown}  {', '.join(roles)}")
    if not customers:
        raise CommandError("the token names no enterprise customer in its roles claim")
