"""The sandbox's initial world, generated from a seed: customers and their learners, catalogs,
subsidy access policies with assignments in every state, subscription plans with licenses in
every status, and learner summary rows.

Everything comes from ``random.Random`` instances seeded with text (``"{seed}:policies"``...), so
the same seed and anchor give the same world on every machine and every run. Dates are laid out
around the anchor (by default, midnight UTC of the day the sandbox starts) so that "current"
plans are current and "upcoming" runs are upcoming whenever the suite runs.
"""

from __future__ import annotations

import datetime
import random
import uuid
from collections.abc import Sequence
from typing import Any, Final

from attrs import field, frozen, validators

from . import _vocabulary as words
from ._content import KIND_CYCLE, CatalogContent
from ._records import (
    AssignmentRecord,
    CatalogRecord,
    Customer,
    Learner,
    LicenseRecord,
    PlanRecord,
    PolicyRecord,
    iso,
)

__all__ = ["DataSize", "World", "generate_world"]

_positive = validators.ge(1)
_not_negative = validators.ge(0)

MAX_CATALOG_ITEMS: Final = 1 << 27
"""Largest catalog the key scheme can address."""

STATE_MIX: Final = (
    ("allocated", "notifying"),
    ("allocated", "waiting"),
    ("accepted", None),
    ("cancelled", None),
    ("errored", "failed"),
    ("expired", "expired"),
    ("reversed", None),
    ("allocated", "waiting"),
    ("accepted", None),
    ("errored", "failed"),
)
"""(state, learner_state) of the generated assignments, in turn: every state and learner state appears."""

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


@frozen
class DataSize:
    """How much data a sandbox generates. Catalog contents are generated on demand, so
    ``catalog_items`` may be large (100,000 and more) at no memory cost."""

    customers: int = field(default=3, validator=[_positive, validators.le(len(words.CUSTOMER_NAMES))])
    catalogs_per_customer: int = field(default=2, validator=_positive)
    catalog_items: int = field(default=45, validator=[_not_negative, validators.lt(MAX_CATALOG_ITEMS)])
    policies_per_customer: int = field(
        default=3, validator=[_positive, validators.le(len(words.POLICY_KINDS))]
    )
    assignments_per_configuration: int = field(default=30, validator=_not_negative)
    plans_per_customer: int = field(default=2, validator=[_positive, validators.le(3)])
    licenses_per_plan: int = field(default=20, validator=_not_negative)
    learners_per_customer: int = field(default=24, validator=_positive)
    summary_rows_per_customer: int = field(default=30, validator=_not_negative)


@frozen
class World:
    """Everything a seed generates, before any request changes it."""

    customers: tuple[Customer, ...]
    learners: dict[str, tuple[Learner, ...]]
    catalogs: tuple[CatalogRecord, ...]
    policies: tuple[PolicyRecord, ...]
    assignments: tuple[AssignmentRecord, ...]
    plans: tuple[PlanRecord, ...]
    licenses: tuple[LicenseRecord, ...]
    summaries: dict[str, tuple[dict[str, Any], ...]]


def _rng(seed: int, *parts: object) -> random.Random:
    return random.Random(":".join(map(str, (seed, *parts))))


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _days(count: float) -> datetime.timedelta:
    return datetime.timedelta(days=count)


def generate_world(seed: int, size: DataSize, anchor: datetime.datetime, content: CatalogContent) -> World:
    """The whole initial world of a sandbox."""
    customers = _customers(seed, size)
    learners = {customer.uuid: _learners(seed, customer, size, anchor) for customer in customers}
    catalogs = _catalogs(seed, customers, size, anchor)
    policies = _policies(seed, customers, catalogs, size, anchor)
    catalog_of = {catalog.uuid: catalog for catalog in catalogs}
    assignments = tuple(
        assignment
        for policy in policies
        if policy.assignment_configuration_uuid
        for assignment in _assignments(
            seed,
            policy,
            learners[policy.customer_uuid],
            catalog_of[policy.catalog_uuid],
            content,
            size,
            anchor,
        )
    )
    plans = _plans(seed, customers, catalogs, size, anchor)
    licenses = tuple(
        license
        for plan in plans
        for license in _licenses(seed, plan, learners[plan.customer_uuid], size, anchor)
    )
    summaries = {
        customer.uuid: _summaries(seed, customer, learners[customer.uuid], catalogs, content, size, anchor)
        for customer in customers
    }
    return World(customers, learners, catalogs, policies, assignments, plans, licenses, summaries)


# ---------------------------------------------------------------------------------- customers


def _customers(seed: int, size: DataSize) -> tuple[Customer, ...]:
    rng = _rng(seed, "customers")
    names = list(words.CUSTOMER_NAMES)
    rng.shuffle(names)
    return tuple(
        Customer(uuid=_uuid(rng), name=name, slug=name.lower().replace(" ", "-"), sso=index % 2 == 0)
        for index, name in enumerate(names[: size.customers])
    )


def _learners(
    seed: int, customer: Customer, size: DataSize, anchor: datetime.datetime
) -> tuple[Learner, ...]:
    rng = _rng(seed, "learners", customer.uuid)
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
                joined=anchor - _days(rng.randint(200, 2000)),
            )
        )
    return tuple(learners)


# ---------------------------------------------------------------------------------- catalogs


def _catalogs(
    seed: int, customers: Sequence[Customer], size: DataSize, anchor: datetime.datetime
) -> tuple[CatalogRecord, ...]:
    rng = _rng(seed, "catalogs")
    catalogs: list[CatalogRecord] = []
    for customer in customers:
        for number in range(size.catalogs_per_customer):
            kind = words.CATALOG_KINDS[number % len(words.CATALOG_KINDS)]
            modified = anchor - _days(rng.randint(5, 90))
            catalogs.append(
                CatalogRecord(
                    uuid=_uuid(rng),
                    ordinal=len(catalogs),
                    title=f"{customer.name} {kind} Catalog",
                    customer_uuid=customer.uuid,
                    query_uuid=_uuid(rng),
                    query_title=f"{kind} content for {customer.name}",
                    item_count=size.catalog_items,
                    modified=modified,
                    content_modified=modified + _days(rng.randint(0, 4)),
                    include_exec_ed=None if number == 2 else kind == "Executive Education",
                )
            )
    return tuple(catalogs)


def course_indexes(catalog: CatalogRecord) -> range:
    """Indexes of the catalog's first items, for picking courses to assign and report on."""
    return range(min(catalog.item_count, 200))


def _pick_course(rng: random.Random, catalog: CatalogRecord) -> int | None:
    candidates = [
        index for index in course_indexes(catalog) if KIND_CYCLE[index % len(KIND_CYCLE)] == "course"
    ]
    return rng.choice(candidates) if candidates else None


# ---------------------------------------------------------------------------------- policies


def _policies(
    seed: int,
    customers: Sequence[Customer],
    catalogs: Sequence[CatalogRecord],
    size: DataSize,
    anchor: datetime.datetime,
) -> tuple[PolicyRecord, ...]:
    rng = _rng(seed, "policies")
    policies = []
    for customer in customers:
        owned = [catalog for catalog in catalogs if catalog.customer_uuid == customer.uuid]
        for number in range(size.policies_per_customer):
            policy_type, access_method, name = words.POLICY_KINDS[number]
            assignable = access_method == "assigned"
            spend_limit = rng.choice((2_500_000, 5_000_000, 10_000_000))
            active = number != 1
            policies.append(
                PolicyRecord(
                    uuid=_uuid(rng),
                    customer_uuid=customer.uuid,
                    catalog_uuid=owned[number % len(owned)].uuid,
                    subsidy_uuid=_uuid(rng),
                    policy_type=policy_type,
                    access_method=access_method,
                    display_name=f"{customer.name}: {name}",
                    description=f"{name} for {customer.name} learners, funded from the learning budget.",
                    active=active,
                    retired=not active,
                    spend_limit=spend_limit,
                    redeemed_cents=rng.randrange(0, spend_limit // 4, 100),
                    per_learner_enrollment_limit=None if assignable else rng.choice((3, 5, 10)),
                    per_learner_spend_limit=None if assignable else rng.choice((50_000, 100_000)),
                    subsidy_active=anchor - _days(rng.randint(60, 200)),
                    subsidy_expiration=anchor + _days(rng.randint(120, 400)),
                    late_redemption_until=anchor + _days(30) if number == 0 else None,
                    group_uuids=tuple(_uuid(rng) for _ in range(number % 2 + 1)),
                    assignment_configuration_uuid=_uuid(rng) if assignable else None,
                    assignment_configuration_active=active,
                )
            )
    return tuple(policies)


def policy_wire(policy: PolicyRecord, allocated_cents: int, now: datetime.datetime) -> dict[str, Any]:
    """A policy as the policy list sends it; ``allocated_cents`` comes from the live assignments."""
    available = max(0, policy.spend_limit - policy.redeemed_cents - allocated_cents)
    configuration = None
    if policy.assignment_configuration_uuid is not None:
        configuration = {
            "uuid": policy.assignment_configuration_uuid,
            "subsidy_access_policy": policy.uuid,
            "enterprise_customer_uuid": policy.customer_uuid,
            "active": policy.assignment_configuration_active,
        }
    late = policy.late_redemption_until
    return {
        "uuid": policy.uuid,
        "policy_type": policy.policy_type,
        "display_name": policy.display_name,
        "description": policy.description,
        "active": policy.active,
        "retired": policy.retired,
        "enterprise_customer_uuid": policy.customer_uuid,
        "catalog_uuid": policy.catalog_uuid,
        "subsidy_uuid": policy.subsidy_uuid,
        "access_method": policy.access_method,
        "per_learner_enrollment_limit": policy.per_learner_enrollment_limit,
        "per_learner_spend_limit": policy.per_learner_spend_limit,
        "spend_limit": policy.spend_limit,
        "subsidy_active_datetime": iso(policy.subsidy_active),
        "subsidy_expiration_datetime": iso(policy.subsidy_expiration),
        "is_subsidy_active": policy.subsidy_active <= now < policy.subsidy_expiration,
        "aggregates": {
            "amount_redeemed_usd_cents": policy.redeemed_cents,
            "amount_redeemed_usd": policy.redeemed_cents / 100,
            "amount_allocated_usd_cents": allocated_cents,
            "amount_allocated_usd": allocated_cents / 100,
            "spend_available_usd_cents": available,
            "spend_available_usd": available / 100,
        },
        "assignment_configuration": configuration,
        "group_associations": list(policy.group_uuids),
        "late_redemption_allowed_until": iso(late),
        "is_late_redemption_allowed": late is not None and now < late,
        "retired_at": iso(policy.subsidy_expiration) if policy.retired else None,
        "created": iso(policy.subsidy_active),
        "bnr_enabled": False,
        "total_spend_limits_for_subsidy": policy.spend_limit,
        "total_deposits_for_subsidy": policy.spend_limit,
        # Fields of the serializers that read a policy for redemption (credits_available): the list
        # answer carries them too, so that every field of the spec is exercised.
        "learner_credit_request_config": None,
        "policy_redemption_url": f"/api/v1/policy-redemption/{policy.uuid}/redeem/",
        "remaining_balance_per_user": policy.per_learner_spend_limit,
        "remaining_balance": available,
        "subsidy_expiration_date": iso(policy.subsidy_expiration),
        "learner_content_assignments": [],
        "learner_requests": [],
        # The redeemable policy of enterprise-access's MFE API specification (docs/decisions/0006).
        "spent_limit": policy.spend_limit,
        "remaining_balance_for_learner": policy.per_learner_spend_limit,
        "list_price": None,
    }


# ---------------------------------------------------------------------------------- assignments


def _assignments(
    seed: int,
    policy: PolicyRecord,
    learners: Sequence[Learner],
    catalog: CatalogRecord,
    content: CatalogContent,
    size: DataSize,
    anchor: datetime.datetime,
) -> list[AssignmentRecord]:
    rng = _rng(seed, "assignments", policy.uuid)
    assert policy.assignment_configuration_uuid is not None
    taken: set[tuple[str, str]] = set()
    records: list[AssignmentRecord] = []
    for number in range(size.assignments_per_configuration):
        learner = learners[number % len(learners)]
        index = _pick_course(rng, catalog)
        if index is None:
            break
        course = content.item(catalog, index)
        if (learner.email, course["key"]) in taken:
            continue
        taken.add((learner.email, course["key"]))
        state, learner_state = STATE_MIX[number % len(STATE_MIX)]
        price_cents = int(float(course["course_runs"][0]["seats"][-1]["price"]) * 100)
        age = rng.randint(100, 150) if state == "expired" else rng.randint(1, 80)
        created = anchor - _days(age) + datetime.timedelta(minutes=rng.randint(0, 1439))
        record = AssignmentRecord(
            uuid=_uuid(rng),
            configuration_uuid=policy.assignment_configuration_uuid,
            policy_uuid=policy.uuid,
            learner_email=None if state == "expired" and number % 2 else learner.email,
            lms_user_id=None if learner_state == "notifying" else learner.lms_user_id,
            content_key=course["key"],
            content_title=course["title"],
            content_quantity=-price_cents,
            state=state,
            learner_state=learner_state,
            created=created,
            transaction_uuid=_uuid(rng) if state in ("accepted", "reversed") else None,
            expiration=created + _days(90),
            expiration_reason="NINETY_DAYS_PASSED" if number % 3 else "SUBSIDY_EXPIRED",
            position=len(records),
        )
        record.actions = _history(rng, record, number)
        record.error_reason = _error_reason(state, number)
        records.append(record)
    return records


def action(
    rng: random.Random, action_type: str, moment: datetime.datetime, error: str | None = None
) -> dict[str, Any]:
    """One action record of an assignment."""
    return {
        "created": iso(moment),
        "modified": iso(moment),
        "uuid": _uuid(rng),
        "action_type": action_type,
        "completed_at": None if error else iso(moment),
        "error_reason": error,
        "learner_acknowledged": False,
    }


def _history(rng: random.Random, record: AssignmentRecord, number: int) -> list[dict[str, Any]]:
    moment = record.created
    history = []
    if record.lms_user_id is not None:
        history.append(action(rng, "learner_linked", moment))
    if record.learner_state == "notifying":
        return history
    moment += datetime.timedelta(minutes=2)
    history.append(action(rng, "notified", moment, "email_error" if record.state == "errored" else None))
    follow_up = {"cancelled": "cancelled", "expired": "expired", "reversed": "reversed"}.get(record.state)
    if record.learner_state == "waiting" and number % 2:
        history.append(action(rng, "reminded", moment + _days(3)))
    if follow_up:
        history.append(action(rng, follow_up, moment + _days(rng.randint(4, 20))))
    return history


def _error_reason(state: str, number: int) -> str | dict[str, str] | None:
    if state != "errored":
        return None
    if number % 2:
        return "email_error"
    return {"action_type": "notified", "error_reason": "email_error"}


# ---------------------------------------------------------------------------------- subscriptions


def _plans(
    seed: int,
    customers: Sequence[Customer],
    catalogs: Sequence[CatalogRecord],
    size: DataSize,
    anchor: datetime.datetime,
) -> tuple[PlanRecord, ...]:
    rng = _rng(seed, "plans")
    plans: list[PlanRecord] = []
    for customer in customers:
        catalog = next(catalog for catalog in catalogs if catalog.customer_uuid == customer.uuid)
        current_start = anchor - _days(rng.randint(60, 150))
        current_uuid, previous_uuid = _uuid(rng), _uuid(rng)
        current_end = current_start + _days(365)
        year = current_start.year
        layouts = [
            (current_uuid, f"{customer.name} Learning {year}", current_start, current_end, True, "total"),
            (
                previous_uuid,
                f"{customer.name} Learning {year - 1}",
                current_start - _days(365),
                current_start,
                False,
                "applied",
            ),
            (
                _uuid(rng),
                f"{customer.name} Learning {year + 1}",
                current_end,
                current_end + _days(365),
                False,
                "total",
            ),
        ]
        for number, (plan_uuid, title, start, end, active, shape) in enumerate(
            layouts[: size.plans_per_customer]
        ):
            renewals: tuple[dict[str, Any], ...] = ()
            if number == 0 and size.plans_per_customer > 1:
                renewals = (
                    {
                        "prior_subscription_plan_id": previous_uuid,
                        "prior_subscription_plan_start_date": iso(current_start - _days(365)),
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


def _licenses(
    seed: int,
    plan: PlanRecord,
    learners: Sequence[Learner],
    size: DataSize,
    anchor: datetime.datetime,
) -> list[LicenseRecord]:
    rng = _rng(seed, "licenses", plan.uuid)
    domain = learners[0].email.split("@", 1)[1]
    licenses = []
    holder = 0
    for number in range(size.licenses_per_plan):
        status = LICENSE_CYCLE[number % len(LICENSE_CYCLE)]
        email = None
        if status != "unassigned":
            email = learners[holder].email if holder < len(learners) else f"user{holder}@{domain}"
            holder += 1
        assigned = plan.start + _days(rng.randint(0, 30)) if email else None
        licenses.append(
            LicenseRecord(
                uuid=_uuid(rng),
                plan_uuid=plan.uuid,
                status=status,
                user_email=email,
                assigned=assigned,
                activated=assigned + _days(2) if assigned and status in ("activated", "revoked") else None,
                revoked=min(anchor, plan.expiration) - _days(3) if status == "revoked" else None,
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
        {"total": plan.revocation_limit, "used": used, "remaining": remaining}
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


# ---------------------------------------------------------------------------------- learner summary


def _summaries(
    seed: int,
    customer: Customer,
    learners: Sequence[Learner],
    catalogs: Sequence[CatalogRecord],
    content: CatalogContent,
    size: DataSize,
    anchor: datetime.datetime,
) -> tuple[dict[str, Any], ...]:
    rng = _rng(seed, "summaries", customer.uuid)
    catalog = next(catalog for catalog in catalogs if catalog.customer_uuid == customer.uuid)
    rows = []
    for number in range(size.summary_rows_per_customer):
        index = _pick_course(rng, catalog)
        if index is None:
            break
        course = content.item(catalog, index)
        rows.append(_summary_row(rng, customer, learners[number % len(learners)], course, number, anchor))
    return tuple(rows)


def _summary_row(
    rng: random.Random,
    customer: Customer,
    learner: Learner,
    course: dict[str, Any],
    number: int,
    anchor: datetime.datetime,
) -> dict[str, Any]:
    run = course["course_runs"][0]
    start = datetime.date.fromisoformat(run["start"][:10])
    enrolled = start - datetime.timedelta(days=rng.randint(1, 30))
    status = ("In Progress", "Passed", "Failed", "In Progress")[number % 4]
    passed = status == "Passed"
    paid_by = ("enterprise", "learner", "enterprise", "third_party")[number % 4]
    grade = rng.randint(20, 100) / 100 if status != "In Progress" else rng.randint(0, 60) / 100
    if passed:
        grade = max(grade, 0.7)
    list_price = float(run["seats"][-1]["price"])  # a FloatField in edx-enterprise-data: a number
    unenrolled = enrolled + datetime.timedelta(days=rng.randint(3, 10)) if number % 11 == 5 else None
    activity = min(anchor.date(), enrolled + datetime.timedelta(days=rng.randint(1, 60)))
    return {
        "is_consent_granted": number % 9 != 4,
        "amount_learner_paid": list_price if paid_by == "learner" else 0.0,
        "contract_id": f"CONTRACT-{customer.slug[:4].upper()}-{2024 + number % 3}",
        "coupon_code": f"ENT{rng.getrandbits(32):08X}" if paid_by == "third_party" else None,
        "coupon_name": f"{customer.name} Q{1 + number % 4} codes" if paid_by == "third_party" else None,
        "course_api_url": f"/api/courses/v1/courses/{run['key']}",
        "course_duration": run["weeks_to_complete"],
        "course_end": run["end"],
        "course_key": course["key"],
        "course_list_price": list_price,
        "course_max_effort": run["max_effort"],
        "course_min_effort": run["min_effort"],
        "course_pacing_type": run["pacing_type"].replace("_", "-"),
        "course_primary_program": f"{course['subjects'][0]['name']} Professional Certificate"
        if number % 3 == 0
        else None,
        "course_primary_subject": course["subjects"][0]["name"],
        "course_start": run["start"],
        "course_title": course["title"],
        "courserun_key": run["key"],
        "created": iso(anchor - datetime.timedelta(hours=rng.randint(1, 30))),
        "current_grade": grade,
        "enrollment_date": enrolled.isoformat(),
        "enrollment_id": rng.randint(1_000_000, 99_999_999),
        "enterprise_customer_uuid": customer.uuid,
        "enterprise_enrollment_id": rng.randint(100_000, 9_999_999),
        "enterprise_name": customer.name,
        "enterprise_sso_uid": f"sso|{learner.username}" if customer.sso else None,
        "enterprise_user_id": learner.lms_user_id,
        "has_passed": passed,
        "is_refunded": unenrolled is not None and paid_by == "learner",
        "last_activity_date": activity.isoformat(),
        "letter_grade": words.LETTER_GRADES[number % len(words.LETTER_GRADES)] if passed else None,
        "offer_name": f"{customer.name} learner credit" if paid_by == "enterprise" else None,
        "offer_type": "Enterprise: 100%" if paid_by == "enterprise" else None,
        "paid_by": paid_by,
        "passed_date": (start + datetime.timedelta(days=rng.randint(20, 60))).isoformat() if passed else None,
        "progress_status": status,
        "seat_delivery_method": ("learner_credit", "subscription_license", "coupon_code")[number % 3],
        "unenrollment_date": unenrolled.isoformat() if unenrolled else None,
        "unenrollment_end_within_date": (max(enrolled, start) + datetime.timedelta(days=14)).isoformat(),
        "user_account_creation_date": iso(learner.joined),
        "user_country": learner.country,
        "user_current_enrollment_mode": run["type"],
        "user_email": learner.email,
        "user_username": learner.username,
        **_summary_extras(customer, learner, run, number, passed),
    }


def _summary_extras(
    customer: Customer, learner: Learner, run: dict[str, Any], number: int, passed: bool
) -> dict[str, Any]:
    """The fields edx-enterprise-data's serializers send beyond the reference's list (v1's, then v0's)."""
    first, _, last = learner.username.partition(".")
    return {
        "user_country_code": learner.country,
        "course_duration_weeks": run["weeks_to_complete"],
        "course_start_date": run["start"][:10],
        "course_end_date": run["end"][:10],
        "offer_id": None,
        "primary_program_type": "Professional Certificate" if number % 3 == 0 else None,
        "user_first_name": first.title(),
        "user_last_name": last.title() or None,
        "total_learning_time_hours": round(number % 7 * 1.25, 2),
        "is_subsidy": True,
        "course_product_line": "OCM",
        "budget_id": None,
        "enterprise_flex_group_name": None,
        "enterprise_flex_group_uuid": None,
        "course_progress": 1.0 if passed else round(number % 10 / 10, 1),
        "course_passing_grade": 0.7,
        "id": number + 1,
        "enterprise_id": customer.uuid,
        "enterprise_user": learner.lms_user_id,
        "enterprise_site_id": None,
        "lms_user_id": learner.lms_user_id,
        "course_id": run["key"],
        "consent_granted": number % 9 != 4,
        "enrollment_created_timestamp": None,
        "unenrollment_timestamp": None,
        "passed_timestamp": None,
        "user_account_creation_timestamp": iso(learner.joined),
        "offer": None,
        "course_price": run["seats"][-1]["price"],
        "discount_price": None,
    }
