"""enterprise-access's policies in the sandbox's initial world (``Policies``, each customer's made
when first read), and a policy as the service sends it (``policy_wire``). Their assignments are
``_assignment_data``'s.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from . import _vocabulary as words
from ._data_size import DataSize
from ._records import CatalogRecord, Customer, PolicyRecord, iso
from ._seeded import in_days, seeded_rng, seeded_uuid

__all__ = ["Policies", "policy_wire"]


class Policies:
    """Every customer's subsidy access policies, in list order, drawn customer after customer
    from one generator: a customer's are made when first read, with those of the customers
    before it."""

    def __init__(
        self,
        seed: int,
        customers: Sequence[Customer],
        catalogs: Sequence[CatalogRecord],
        size: DataSize,
        anchor: datetime.datetime,
    ) -> None:
        self._rng = seeded_rng(seed, "policies")
        self._pending = list(customers)
        self._catalogs = catalogs
        self._size = size
        self._anchor = anchor
        self._made: dict[str, tuple[PolicyRecord, ...]] = {}
        self._by_uuid: dict[str, PolicyRecord] = {}
        self._by_configuration: dict[str, PolicyRecord] = {}

    def of(self, customer_uuid: str) -> tuple[PolicyRecord, ...]:
        """The policies of a customer (none for an unknown one)."""
        while customer_uuid not in self._made and self._next():
            pass
        return self._made.get(customer_uuid, ())

    def every(self) -> list[PolicyRecord]:
        """Every customer's policies."""
        while self._next():
            pass
        return [policy for policies in self._made.values() for policy in policies]

    def by_uuid(self, policy_uuid: str) -> PolicyRecord | None:
        """The policy with this uuid, if any (made with its customer's, and those before)."""
        while policy_uuid not in self._by_uuid and self._next():
            pass
        return self._by_uuid.get(policy_uuid)

    def by_configuration(self, configuration_uuid: str) -> PolicyRecord | None:
        """The policy of the assignment configuration with this uuid, if any."""
        while configuration_uuid not in self._by_configuration and self._next():
            pass
        return self._by_configuration.get(configuration_uuid)

    def _next(self) -> bool:
        """Make the next customer's policies; False when every customer's are made."""
        if not self._pending:
            return False
        customer = self._pending.pop(0)
        policies = self._made[customer.uuid] = self._customer_policies(customer)
        for policy in policies:
            self._by_uuid[policy.uuid] = policy
            if policy.assignment_configuration_uuid is not None:
                self._by_configuration[policy.assignment_configuration_uuid] = policy
        return True

    def _customer_policies(self, customer: Customer) -> tuple[PolicyRecord, ...]:
        rng, size, anchor = self._rng, self._size, self._anchor
        owned = [catalog for catalog in self._catalogs if catalog.customer_uuid == customer.uuid]
        policies = []
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
