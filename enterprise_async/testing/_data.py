"""The sandbox's initial world, generated from a seed: customers and their learners, catalogs,
subsidy access policies with assignments in every state, subscription plans with licenses in
every status, and learner summary rows.

Each service's records are generated in their own module (``_policy_data``, ``_plan_data``,
``_summary_data``); this one holds how much is generated and puts the world together.

Everything comes from ``random.Random`` instances seeded with text (``"{seed}:policies"``...), so
the same seed and anchor give the same world on every machine and every run. Dates are laid out
around the anchor (by default, midnight UTC of the day the sandbox starts) so that "current"
plans are current and "upcoming" runs are upcoming whenever the suite runs.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from attrs import frozen

from . import _vocabulary as words
from ._assignment_data import AssignmentMaker
from ._assignments import ConfigurationAssignments
from ._content import CatalogContent
from ._data_size import DataSize
from ._plan_data import CustomerPlans, license_counts, license_records, plans_by_customer
from ._policy_data import Policies
from ._records import (
    CatalogRecord,
    Customer,
    Learner,
    LicenseRecord,
    PlanRecord,
    PolicyRecord,
)
from ._seeded import in_days, seeded_rng, seeded_uuid
from ._summary_data import SummaryRows

__all__ = ["World", "generate_world"]


@frozen
class World:
    """Everything a seed generates, before any request changes it: the records every listing
    starts from, and what grows with the size (a customer's policies and plans, a policy's
    assignments, a plan's licenses, a customer's learner rows), made from the seed when read."""

    customers: tuple[Customer, ...]
    learners: dict[str, tuple[Learner, ...]]
    catalogs: tuple[CatalogRecord, ...]
    seed: int
    size: DataSize
    anchor: datetime.datetime
    content: CatalogContent

    def policies(self) -> Policies:
        """Every customer's subsidy access policies, each customer's made when first read."""
        return Policies(self.seed, self.customers, self.catalogs, self.size, self.anchor)

    def plans(self) -> dict[str, CustomerPlans]:
        """Every customer's subscription plans, by customer, each made when first read."""
        return plans_by_customer(self.seed, self.customers, self.catalogs, self.size, self.anchor)

    def assignments(self, policy: PolicyRecord) -> ConfigurationAssignments:
        """The assignments of an assignable policy's configuration, each made when first read."""
        catalog = next(catalog for catalog in self.catalogs if catalog.uuid == policy.catalog_uuid)
        learners = self.learners[policy.customer_uuid]
        args = (self.seed, policy, learners, catalog, self.content, self.size, self.anchor)
        return ConfigurationAssignments(AssignmentMaker(*args))

    def licenses(self, plan: PlanRecord) -> list[LicenseRecord]:
        """The initial licenses of a plan."""
        return license_records(self.seed, plan, self.learners[plan.customer_uuid], self.size, self.anchor)

    def license_counts(self, plan: PlanRecord) -> dict[str, int]:
        """How many of a plan's initial licenses are in each status, without making them."""
        del plan  # every plan starts with the same mix
        return license_counts(self.size)

    def summaries(self, customer: Customer) -> SummaryRows:
        """The learner summary rows of a customer (of its first catalog), each made when read."""
        catalog = next(catalog for catalog in self.catalogs if catalog.customer_uuid == customer.uuid)
        learners = self.learners[customer.uuid]
        return SummaryRows(self.seed, customer, learners, catalog, self.content, self.size, self.anchor)


def generate_world(seed: int, size: DataSize, anchor: datetime.datetime, content: CatalogContent) -> World:
    """The initial world of a sandbox: its records, and what it makes when asked."""
    customers = _customers(seed, size)
    learners = {customer.uuid: _learners(seed, customer, size, anchor) for customer in customers}
    catalogs = _catalogs(seed, customers, size, anchor)
    return World(customers, learners, catalogs, seed, size, anchor, content)


# ---------------------------------------------------------------------------------- customers


def _customers(seed: int, size: DataSize) -> tuple[Customer, ...]:
    rng = seeded_rng(seed, "customers")
    names = list(words.CUSTOMER_NAMES)
    rng.shuffle(names)
    return tuple(
        Customer(uuid=seeded_uuid(rng), name=name, slug=name.lower().replace(" ", "-"), sso=index % 2 == 0)
        for index, name in enumerate(names[: size.customers])
    )


def _learners(
    seed: int, customer: Customer, size: DataSize, anchor: datetime.datetime
) -> tuple[Learner, ...]:
    rng = seeded_rng(seed, "learners", customer.uuid)
    domain = f"{customer.slug.split('-')[0]}.example.com"
    learners = []
    for index in range(size.learners_per_customer):
        given = words.GIVEN_NAMES[rng.randrange(len(words.GIVEN_NAMES))].lower()
        family = words.FAMILY_NAMES[rng.randrange(len(words.FAMILY_NAMES))].lower().replace("-", "")
        learners.append(
            Learner(
                email=f"{given}.{family}{index}@{domain}",
                username=f"{given}_{family}{index}",
                lms_user_id=rng.randint(10_000, 9_999_999),
                customer_uuid=customer.uuid,
                country=words.COUNTRIES[rng.randrange(len(words.COUNTRIES))],
                joined=anchor - in_days(rng.randint(200, 2000)),
            )
        )
    return tuple(learners)


# ---------------------------------------------------------------------------------- catalogs


def _catalogs(
    seed: int, customers: Sequence[Customer], size: DataSize, anchor: datetime.datetime
) -> tuple[CatalogRecord, ...]:
    rng = seeded_rng(seed, "catalogs")
    catalogs: list[CatalogRecord] = []
    for customer in customers:
        for number in range(size.catalogs_per_customer):
            kind = words.CATALOG_KINDS[number % len(words.CATALOG_KINDS)]
            modified = anchor - in_days(rng.randint(5, 90))
            catalogs.append(
                CatalogRecord(
                    uuid=seeded_uuid(rng),
                    ordinal=len(catalogs),
                    title=f"{customer.name} {kind} Catalog",
                    customer_uuid=customer.uuid,
                    query_uuid=seeded_uuid(rng),
                    query_title=f"{kind} content for {customer.name}",
                    item_count=size.catalog_items,
                    modified=modified,
                    content_modified=modified + in_days(rng.randint(0, 4)),
                    include_exec_ed=None if number == 2 else kind == "Executive Education",
                )
            )
    return tuple(catalogs)
