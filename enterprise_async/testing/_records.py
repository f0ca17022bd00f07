"""The sandbox's records: what a test reads from ``sandbox.data`` and what the endpoints change.

Immutable records (customers, catalogs, policies, plans) are frozen; assignments and licenses,
which the endpoints move from state to state, are mutable. Each knows its own wire shape
(``wire()``): a JSON-ready dict exactly as the API sends it, quirks included.
"""

from __future__ import annotations

import datetime
from typing import Any

from attrs import define, field, frozen

__all__ = [
    "AssignmentRecord",
    "CatalogRecord",
    "Customer",
    "EnrollmentJob",
    "Learner",
    "LicenseRecord",
    "PlanRecord",
    "PolicyRecord",
    "iso",
]


def iso(moment: datetime.datetime | None) -> str | None:
    """A UTC datetime the way the servers write it (``2026-01-15T10:00:00Z``)."""
    if moment is None:
        return None
    if moment.tzinfo is not datetime.timezone.utc:
        moment = moment.astimezone(datetime.timezone.utc)
    return moment.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


@frozen
class Customer:
    """An enterprise customer: the owner of catalogs, policies, plans and learners."""

    uuid: str
    name: str
    slug: str
    sso: bool
    """Whether the customer signs its learners in through single sign-on (``enterprise_sso_uid``)."""


@frozen
class Learner:
    """A learner of a customer, as the learning system knows them."""

    email: str
    username: str
    lms_user_id: int
    customer_uuid: str
    country: str
    joined: datetime.datetime


@frozen
class CatalogRecord:
    """A catalog. Its contents are not held: they are generated on demand from ``ordinal``."""

    uuid: str
    ordinal: int
    """Position among all catalogs; it is part of every content key of the catalog."""
    title: str
    customer_uuid: str
    query_uuid: str
    query_title: str
    item_count: int
    modified: datetime.datetime
    content_modified: datetime.datetime
    include_exec_ed: bool | None

    def wire(self) -> dict[str, Any]:
        return {
            "uuid": self.uuid,
            "title": self.title,
            "enterprise_customer": self.customer_uuid,
            "catalog_query_uuid": self.query_uuid,
            "content_last_modified": iso(self.content_modified),
            "catalog_modified": iso(self.modified),
            "query_title": self.query_title,
            "include_exec_ed_2u_courses": self.include_exec_ed,
            "enterprise_catalog_query": self.ordinal + 1,
        }


@frozen
class PolicyRecord:
    """A subsidy access policy; assignable ones carry an assignment configuration."""

    uuid: str
    customer_uuid: str
    catalog_uuid: str
    subsidy_uuid: str
    policy_type: str
    access_method: str
    display_name: str
    description: str
    active: bool
    retired: bool
    spend_limit: int
    """In USD cents."""
    redeemed_cents: int
    per_learner_enrollment_limit: int | None
    per_learner_spend_limit: int | None
    subsidy_active: datetime.datetime
    subsidy_expiration: datetime.datetime
    late_redemption_until: datetime.datetime | None
    group_uuids: tuple[str, ...]
    assignment_configuration_uuid: str | None
    assignment_configuration_active: bool = True


@define
class AssignmentRecord:
    """A learner content assignment; allocate, remind and cancel change it in place."""

    uuid: str
    configuration_uuid: str
    policy_uuid: str
    learner_email: str
    lms_user_id: int | None
    content_key: str
    content_title: str | None
    content_quantity: int
    state: str
    learner_state: str | None
    created: datetime.datetime
    actions: list[dict[str, Any]] = field(factory=list)
    transaction_uuid: str | None = None
    error_reason: str | dict[str, str] | None = None
    expiration: datetime.datetime | None = None
    expiration_reason: str = "NINETY_DAYS_PASSED"
    position: int = 0
    """Creation order: the default ordering of the assignment list."""

    @property
    def recent_action(self) -> dict[str, Any]:
        last = self.actions[-1] if self.actions else None
        if last is None:
            return {"action_type": "assigned", "timestamp": iso(self.created)}
        kind = "reminded" if last["action_type"] == "reminded" else "assigned"
        return {"action_type": kind, "timestamp": last["created"]}

    def wire(self) -> dict[str, Any]:
        return {
            "uuid": self.uuid,
            "assignment_configuration": self.configuration_uuid,
            "learner_email": self.learner_email,
            "lms_user_id": self.lms_user_id,
            "content_key": self.content_key,
            "parent_content_key": None,
            "is_assigned_course_run": False,
            "content_title": self.content_title,
            "content_quantity": self.content_quantity,
            "state": self.state,
            "transaction_uuid": self.transaction_uuid,
            "actions": list(self.actions),
            "earliest_possible_expiration": {
                "date": iso(self.expiration),
                "reason": self.expiration_reason,
            },
            "recent_action": self.recent_action,
            "learner_state": self.learner_state,
            "error_reason": self.error_reason,
            # Fields of the learner-facing serializer (with content metadata), carried too so that
            # every field of the spec is exercised.
            "content_metadata": None,
            "learner_acknowledged": None,
        }


@frozen
class PlanRecord:
    """A subscription plan; its licenses live in the sandbox's state, keyed by the plan."""

    uuid: str
    title: str
    customer_uuid: str
    catalog_uuid: str
    start: datetime.datetime
    expiration: datetime.datetime
    is_active: bool
    revocation_cap: bool
    revocation_limit: int
    revocations_shape: str
    """``"total"`` for ``{total, used, remaining}``, ``"applied"`` for ``{applied, remaining}``."""
    locked_for_renewal: bool
    auto_apply: bool
    renewal_days: int
    """Days that renewals add beyond the expiration."""
    prior_renewals: tuple[dict[str, Any], ...] = ()


@define
class LicenseRecord:
    """A license of a plan; assign and bulk revoke change it in place."""

    uuid: str
    plan_uuid: str
    status: str
    user_email: str | None
    assigned: datetime.datetime | None = None
    activated: datetime.datetime | None = None
    revoked: datetime.datetime | None = None


@frozen
class EnrollmentJob:
    """A bulk enrollment job the sandbox accepted (nothing is enrolled: the job is only recorded)."""

    job_id: str
    customer_uuid: str
    emails: tuple[str, ...]
    course_run_keys: tuple[str, ...]
    notify: bool | None
