"""license-manager's records in the sandbox's initial world: subscription plans (current, previous
and renewed) and their licenses in every status (``LICENSE_CYCLE``); a plan as the reference
writes it (``plan_wire``) and as license-manager's serializer does (``plan_as_served``).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any, Final

from ._data_size import DataSize
from ._records import (
    CatalogRecord,
    Customer,
    Learner,
    LicenseRecord,
    PlanRecord,
    iso,
)
from ._seeded import in_days, seeded_rng, seeded_uuid

__all__ = ["LICENSE_CYCLE", "license_records", "plan_as_served", "plan_records", "plan_wire"]

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


def plan_records(
    seed: int,
    customers: Sequence[Customer],
    catalogs: Sequence[CatalogRecord],
    size: DataSize,
    anchor: datetime.datetime,
) -> tuple[PlanRecord, ...]:
    rng = seeded_rng(seed, "plans")
    plans: list[PlanRecord] = []
    for customer in customers:
        catalog = next(catalog for catalog in catalogs if catalog.customer_uuid == customer.uuid)
        current_start = anchor - in_days(rng.randint(60, 150))
        current_uuid, previous_uuid = seeded_uuid(rng), seeded_uuid(rng)
        current_end = current_start + in_days(365)
        year = current_start.year
        layouts = [
            (current_uuid, f"{customer.name} Learning {year}", current_start, current_end, True, "total"),
            (
                previous_uuid,
                f"{customer.name} Learning {year - 1}",
                current_start - in_days(365),
                current_start,
                False,
                "applied",
            ),
            (
                seeded_uuid(rng),
                f"{customer.name} Learning {year + 1}",
                current_end,
                current_end + in_days(365),
                False,
                "total",
            ),
        ]
        older = seeded_rng(seed, "older plans", customer.uuid)  # past the three: years before, expired
        for number in range(3, size.plans_per_customer):
            years = number - 1
            start = current_start - in_days(365 * years)
            title = f"{customer.name} Learning {year - years}"
            layouts.append((seeded_uuid(older), title, start, start + in_days(365), False, "applied"))
        for number, (plan_uuid, title, start, end, active, shape) in enumerate(
            layouts[: size.plans_per_customer]
        ):
            renewals: tuple[dict[str, Any], ...] = ()
            if number == 0 and size.plans_per_customer > 1:
                renewals = (
                    {
                        "prior_subscription_plan_id": previous_uuid,
                        "prior_subscription_plan_start_date": iso(current_start - in_days(365)),
                        "renewed_subscription_plan_id": current_uuid,
                        "renewed_subscription_plan_start_date": iso(current_start),
                    },
                )
            plans.append(
                PlanRecord(
                    uuid=plan_uuid,
                    title=title,
                    customer_uuid=customer.uuid,
                    catalog_uuid=catalog.uuid,
                    start=start,
                    expiration=end,
                    is_active=active,
                    revocation_cap=number == 0,
                    revocation_limit=10,
                    revocations_shape=shape,
                    locked_for_renewal=number == 2,
                    auto_apply=number == 0 and customer.sso,
                    renewal_days=365 if number == 0 and size.plans_per_customer > 2 else 0,
                    prior_renewals=renewals,
                )
            )
    return tuple(plans)


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


def plan_wire(plan: PlanRecord, licenses: Sequence[LicenseRecord], now: datetime.datetime) -> dict[str, Any]:
    """A plan as the subscription list sends it; the counters come from the live licenses."""
    counts = dict.fromkeys(("activated", "assigned", "unassigned", "revoked"), 0)
    for license in licenses:
        counts[license.status] += 1
    total = len(licenses)
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
