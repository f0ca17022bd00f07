"""enterprise-access's records in the sandbox's initial world: subsidy access policies, their
assignments in every state (``STATE_MIX``) with the actions that led there, and a policy as the
service sends it (``policy_wire``).
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Sequence
from typing import Any, Final

import attrs

from . import _vocabulary as words
from ._content import CatalogContent
from ._data_size import DataSize
from ._records import (
    AssignmentRecord,
    CatalogRecord,
    Customer,
    Learner,
    PolicyRecord,
    iso,
)
from ._seeded import in_days, pick_course, seeded_rng, seeded_uuid

__all__ = ["STATE_MIX", "action", "assignment_records", "policy_records", "policy_wire"]

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


def policy_records(
    seed: int,
    customers: Sequence[Customer],
    catalogs: Sequence[CatalogRecord],
    size: DataSize,
    anchor: datetime.datetime,
) -> tuple[PolicyRecord, ...]:
    rng = seeded_rng(seed, "policies")
    policies = []
    for customer in customers:
        owned = [catalog for catalog in catalogs if catalog.customer_uuid == customer.uuid]
        for number in range(size.policies_per_customer):
            policy_type, access_method, name = words.POLICY_KINDS[number % len(words.POLICY_KINDS)]
            if number >= len(words.POLICY_KINDS):  # kinds in turn, numbered past the first round
                name = f"{name} {number // len(words.POLICY_KINDS) + 1}"
            assignable = access_method == "assigned"
            spend_limit = rng.choice((2_500_000, 5_000_000, 10_000_000))
            active = number != 1
            policies.append(
                PolicyRecord(
                    uuid=seeded_uuid(rng),
                    customer_uuid=customer.uuid,
                    catalog_uuid=owned[number % len(owned)].uuid,
                    subsidy_uuid=seeded_uuid(rng),
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
                    subsidy_active=anchor - in_days(rng.randint(60, 200)),
                    subsidy_expiration=anchor + in_days(rng.randint(120, 400)),
                    late_redemption_until=anchor + in_days(30) if number == 0 else None,
                    group_uuids=tuple(seeded_uuid(rng) for _ in range(number % 2 + 1)),
                    assignment_configuration_uuid=seeded_uuid(rng) if assignable else None,
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


def assignment_records(
    seed: int,
    policy: PolicyRecord,
    learners: Sequence[Learner],
    catalog: CatalogRecord,
    content: CatalogContent,
    size: DataSize,
    anchor: datetime.datetime,
) -> list[AssignmentRecord]:
    rng = seeded_rng(seed, "assignments", policy.uuid)
    assert policy.assignment_configuration_uuid is not None
    taken: set[tuple[str, str]] = set()
    records: list[AssignmentRecord] = []
    wanted = size.assignments_per_configuration
    for number in range(4 * wanted):  # a learner and course drawn twice is drawn again
        if len(records) == wanted:
            break
        learner = learners[number % len(learners)]
        index = pick_course(rng, catalog)
        if index is None:
            break
        course = content.item(catalog, index)
        if (learner.email, course["key"]) in taken and number >= wanted:
            learner = _invited(learner, number)  # past the learners' pairs: someone not yet a learner
        if (learner.email, course["key"]) in taken:
            continue
        taken.add((learner.email, course["key"]))
        state, learner_state = STATE_MIX[number % len(STATE_MIX)]
        price_cents = int(float(course["course_runs"][0]["seats"][-1]["price"]) * 100)
        age = rng.randint(100, 150) if state == "expired" else rng.randint(1, 80)
        created = anchor - in_days(age) + datetime.timedelta(minutes=rng.randint(0, 1439))
        uuid = seeded_uuid(rng)
        scrubbed = state == "expired" and number % 2
        record = AssignmentRecord(
            uuid=uuid,
            configuration_uuid=policy.assignment_configuration_uuid,
            policy_uuid=policy.uuid,
            learner_email=retired_email(uuid) if scrubbed else learner.email,
            lms_user_id=None if learner_state == "notifying" else learner.lms_user_id,
            content_key=course["key"],
            content_title=course["title"],
            content_quantity=-price_cents,
            state=state,
            learner_state=learner_state,
            created=created,
            transaction_uuid=seeded_uuid(rng) if state in ("accepted", "reversed") else None,
            expiration=created + in_days(90),
            expiration_reason="NINETY_DAYS_PASSED" if number % 3 else "SUBSIDY_EXPIRED",
            position=len(records),
        )
        record.actions = _history(rng, record, number)
        record.error_reason = _error_reason(state, number)
        records.append(record)
    return records


def retired_email(uuid: str) -> str:
    """The address enterprise-access writes over a learner's e-mail when it scrubs an assignment
    (its ``RETIRED_EMAIL_ADDRESS_FORMAT``, ``retired_user<16 hex digits>@retired.invalid``): never null."""
    return f"retired_user{uuid.replace('-', '')[:16]}@retired.invalid"


def _invited(learner: Learner, number: int) -> Learner:
    """A learner of the customer's domain invited by e-mail, number ``number``."""
    local, domain = learner.email.split("@", 1)
    return attrs.evolve(learner, email=f"{local}.{number}@{domain}", lms_user_id=10_000_000 + number)


def action(
    rng: random.Random, action_type: str, moment: datetime.datetime, error: str | None = None
) -> dict[str, Any]:
    """One action record of an assignment."""
    return {
        "created": iso(moment),
        "modified": iso(moment),
        "uuid": seeded_uuid(rng),
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
        history.append(action(rng, "reminded", moment + in_days(3)))
    if follow_up:
        history.append(action(rng, follow_up, moment + in_days(rng.randint(4, 20))))
    return history


def _error_reason(state: str, number: int) -> str | dict[str, str] | None:
    if state != "errored":
        return None
    if number % 2:
        return "email_error"
    return {"action_type": "notified", "error_reason": "email_error"}
