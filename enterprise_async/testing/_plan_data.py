"""license-manager's records in the sandbox's initial world: subscription plans (current, previous
and renewed) and their licenses in every status (``LICENSE_CYCLE``); a plan as the reference
writes it (``plan_wire``) and as license-manager's serializer does (``plan_as_served``).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any, Final

from attrs import frozen

from ._data_size import DataSize
from ._made import MadeWhenRead
from ._records import (
    CatalogRecord,
    Customer,
    Learner,
    LicenseRecord,
    PlanRecord,
    iso,
)
from ._seeded import in_days, seeded_rng, seeded_uuid

__all__ = [
    "LICENSE_CYCLE",
    "STATUSES",
    "CustomerPlans",
    "license_counts",
    "license_records",
    "plan_as_served",
    "plan_wire",
    "plans_by_customer",
]

LICENSE_CYCLE: Final = (
    "activated",
    "assigned",
    "unassigned",
    "activated",
    "revoked",
    "assigned",
    "unassigned",
    "activated",
    "unassigned",
    "activated",
)
"""Status of the generated licenses, in turn: every status appears."""
STATUSES: Final = ("activated", "assigned", "unassigned", "revoked")
"""Every status of a license, in the order the plan's counters list them."""


@frozen
class _Head:
    """What the shared ``plans`` generator draws for a customer: its current plan's start and the
    uuids of its current, previous and next plans."""

    current_start: datetime.datetime
    current: str
    previous: str
    following: str


def plans_by_customer(
    seed: int,
    customers: Sequence[Customer],
    catalogs: Sequence[CatalogRecord],
    size: DataSize,
    anchor: datetime.datetime,
) -> dict[str, CustomerPlans]:
    """Every customer's plans, each made when first read (``CustomerPlans``)."""
    rng = seeded_rng(seed, "plans")
    plans = {}
    for customer in customers:
        catalog = next(catalog for catalog in catalogs if catalog.customer_uuid == customer.uuid)
        current_start = anchor - in_days(rng.randint(60, 150))
        head = _Head(current_start, seeded_uuid(rng), seeded_uuid(rng), seeded_uuid(rng))
        plans[customer.uuid] = CustomerPlans(seed, customer, catalog.uuid, head, size)
    return plans


class CustomerPlans(MadeWhenRead[PlanRecord]):
    """A customer's subscription plans, in list order: the current one, the previous year's, the
    next year's, then years before (expired), each made when first read."""

    def __init__(self, seed: int, customer: Customer, catalog_uuid: str, head: _Head, size: DataSize) -> None:
        super().__init__(size.plans_per_customer, self._plan)
        self._customer = customer
        self._catalog_uuid = catalog_uuid
        self._head = head
        self._count = size.plans_per_customer
        self._older = seeded_rng(seed, "older plans", customer.uuid)  # past the three: years before
        self._older_uuids: list[str] = []

    def uuid_of(self, number: int) -> str:
        """The uuid of plan ``number``, without making the plan."""
        if number < 3:
            return (self._head.current, self._head.previous, self._head.following)[number]
        while len(self._older_uuids) <= number - 3:
            self._older_uuids.append(seeded_uuid(self._older))
        return self._older_uuids[number - 3]

    def current(self) -> list[PlanRecord]:
        """The plans that can be current (``is_active``): the first alone."""
        return [self[0]] if self._count else []

    def _plan(self, number: int) -> PlanRecord:
        customer, head = self._customer, self._head
        year = head.current_start.year
        current_end = head.current_start + in_days(365)
        shape = "total"
        if number == 0:
            title, start, end = f"{customer.name} Learning {year}", head.current_start, current_end
        elif number == 1:
            start = head.current_start - in_days(365)
            title, end, shape = f"{customer.name} Learning {year - 1}", head.current_start, "applied"
        elif number == 2:
            title, start, end = (
                f"{customer.name} Learning {year + 1}",
                current_end,
                current_end + in_days(365),
            )
        else:
            years = number - 1
            start = head.current_start - in_days(365 * years)
            title, end, shape = f"{customer.name} Learning {year - years}", start + in_days(365), "applied"
        renewals: tuple[dict[str, Any], ...] = ()
        if number == 0 and self._count > 1:
            renewals = (
                {
                    "prior_subscription_plan_id": head.previous,
                    "prior_subscription_plan_start_date": iso(head.current_start - in_days(365)),
                    "renewed_subscription_plan_id": head.current,
                    "renewed_subscription_plan_start_date": iso(head.current_start),
                },
            )
        return PlanRecord(
            uuid=self.uuid_of(number),
            title=title,
            customer_uuid=customer.uuid,
            catalog_uuid=self._catalog_uuid,
            start=start,
            expiration=end,
            is_active=number == 0,
            revocation_cap=number == 0,
            revocation_limit=10,
            revocations_shape=shape,
            locked_for_renewal=number == 2,
            auto_apply=number == 0 and customer.sso,
            renewal_days=365 if number == 0 and self._count > 2 else 0,
            prior_renewals=renewals,
        )


def license_records(
    seed: int,
    plan: PlanRecord,
    learners: Sequence[Learner],
    size: DataSize,
    anchor: datetime.datetime,
) -> list[LicenseRecord]:
    rng = seeded_rng(seed, "licenses", plan.uuid)
    domain = learners[0].email.split("@", 1)[1]
    licenses = []
    holder = 0
    for number in range(size.licenses_per_plan):
        status = LICENSE_CYCLE[number % len(LICENSE_CYCLE)]
        email = None
        if status != "unassigned":
            email = learners[holder].email if holder < len(learners) else f"user{holder}@{domain}"
            holder += 1
        assigned = plan.start + in_days(rng.randint(0, 30)) if email else None
        licenses.append(
            LicenseRecord(
                uuid=seeded_uuid(rng),
                plan_uuid=plan.uuid,
                status=status,
                user_email=email,
                assigned=assigned,
                activated=assigned + in_days(2) if assigned and status in ("activated", "revoked") else None,
                revoked=min(anchor, plan.expiration) - in_days(3) if status == "revoked" else None,
            )
        )
    return licenses


def license_counts(size: DataSize) -> dict[str, int]:
    """How many of a plan's licenses the seed makes in each status (``LICENSE_CYCLE`` in turn),
    counted without making them."""
    rounds, rest = divmod(size.licenses_per_plan, len(LICENSE_CYCLE))
    counts = dict.fromkeys(STATUSES, 0)
    for position, status in enumerate(LICENSE_CYCLE):
        counts[status] += rounds + (position < rest)
    return counts


def plan_wire(plan: PlanRecord, counts: Mapping[str, int], now: datetime.datetime) -> dict[str, Any]:
    """A plan as the subscription list sends it; ``counts`` are its live licenses' statuses."""
    counts = {status: counts[status] for status in STATUSES}
    total = sum(counts.values())
    used = counts["revoked"]
    remaining = max(0, plan.revocation_limit - used)
    revocations: dict[str, int] = (
        {"total": plan.revocation_limit, "used": used, "applied": used, "remaining": remaining}
        if plan.revocations_shape == "total"
        else {"applied": used, "remaining": remaining}
    )
    days_left = max(0, (plan.expiration - now).days)
    return {
        "title": plan.title,
        "uuid": plan.uuid,
        "start_date": iso(plan.start),
        "expiration_date": iso(plan.expiration),
        "enterprise_customer_uuid": plan.customer_uuid,
        "enterprise_catalog_uuid": plan.catalog_uuid,
        "is_active": plan.is_active,
        "is_revocation_cap_enabled": plan.revocation_cap,
        "days_until_expiration": days_left,
        "days_until_expiration_including_renewals": days_left + plan.renewal_days,
        "is_locked_for_renewal_processing": plan.locked_for_renewal,
        "should_auto_apply_licenses": plan.auto_apply,
        "licenses": {
            **counts,
            "total": total,
            "allocated": counts["activated"] + counts["assigned"],
        },
        "revocations": revocations,
        "prior_renewals": list(plan.prior_renewals),
        "is_current": plan.start <= now <= plan.expiration,
        "created": iso(plan.start),
        "plan_type": "Standard Paid",
        "salesforce_opportunity_line_item": f"00k{plan.uuid.replace('-', '')[:15].upper()}",
        # Fields of the provisioning serializer (SubscriptionPlanCreateSerializer), carried too so
        # that every field of the spec is exercised.
        "can_freeze_unused_licenses": False,
        "customer_agreement": plan.customer_uuid,
        "desired_num_licenses": total,
        "expiration_processed": plan.expiration < now,
        "for_internal_use_only": False,
        "last_freeze_timestamp": None,
        "num_revocations_applied": used,
        "product": 1,
        "revoke_max_percentage": 5,
        "change_reason": "new",
    }


def plan_as_served(plan: PlanRecord, wire: dict[str, Any]) -> dict[str, Any]:
    """A plan's wire form as license-manager's SubscriptionPlanSerializer writes it: revocations
    ``{applied, remaining}`` (null without a cap), a license total without the revoked ones, and
    renewal dates as ``str(datetime)`` (its UUIDField over a datetime)."""
    served = dict(wire)
    counters = wire["revocations"]
    used = counters.get("used", counters.get("applied", 0))
    served["revocations"] = (
        {"applied": used, "remaining": counters["remaining"]} if plan.revocation_cap else None
    )
    served["licenses"] = {
        **wire["licenses"],
        "total": wire["licenses"]["total"] - wire["licenses"]["revoked"],
    }
    served["prior_renewals"] = [
        {name: _python_str(value) if name.endswith("_date") else value for name, value in renewal.items()}
        for renewal in wire["prior_renewals"]
    ]
    return served


def _python_str(text: str | None) -> str | None:
    """An ISO ``...Z`` moment as Python's ``str(datetime)`` writes it (``2026-01-15 10:00:00+00:00``)."""
    if text is None:
        return None
    return str(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")))
