"""An inventory of a customer's ids, as a service keeping its own records writes it: every policy,
every subscription plan and every assignment of the customer's assignment-based policies, each
kind collected into a ``list[str]`` to key its rows by.

Type-checked with ``mypy --strict`` and run against the sandbox by tests/programs/test_programs.py;
it holds no ``assert`` and no ``cast``: each id is a primary key the services always send, and the
models type it ``str``.
"""

from __future__ import annotations

import asyncio
import os

import attrs

from enterprise_async import EnterpriseClient
from enterprise_async.models import AssignmentConfiguration


@attrs.frozen
class Inventory:
    """The ids of one customer's policies, plans and assignments, in the order the services list them."""

    policy_ids: list[str]
    plan_ids: list[str]
    assignment_ids: list[str]


async def inventory(client: EnterpriseClient, customer_uuid: str) -> Inventory:
    policies = await client.policies.list(customer_uuid).to_list()
    policy_ids: list[str] = [policy.uuid for policy in policies]
    plan_ids: list[str] = [
        plan.uuid async for plan in client.subscriptions.list(enterprise_customer_uuid=customer_uuid)
    ]
    assignment_ids: list[str] = []
    for policy in policies:
        configuration = policy.assignment_configuration
        if isinstance(configuration, AssignmentConfiguration):
            assignment_ids += [
                assignment.uuid async for assignment in client.assignments.list(configuration.uuid)
            ]
    return Inventory(policy_ids, plan_ids, assignment_ids)


def rows(found: Inventory) -> list[str]:
    """One line per id, keyed by its kind: what a service would write to its own table."""
    return [
        *(f"policy {uuid}" for uuid in found.policy_ids),
        *(f"plan {uuid}" for uuid in found.plan_ids),
        *(f"assignment {uuid}" for uuid in found.assignment_ids),
    ]


async def main() -> None:
    async with EnterpriseClient.from_env() as client:
        for line in rows(await inventory(client, os.environ["ENTERPRISE_CUSTOMER_UUID"])):
            print(line)


if __name__ == "__main__":
    asyncio.run(main())
