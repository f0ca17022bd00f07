"""``SandboxData``: the live world of a sandbox, what tests read ids from, and the transitions the
endpoints apply to it (the reference's "States and transitions" table, plus the choices the
sandbox makes where the reference is silent).

Transitions where the reference is silent, as the sandbox models them:

- allocate: an ``accepted`` assignment (already redeemed) is reported under ``no_change``, like an
  ``allocated`` one; ``cancelled``, ``errored``, ``expired`` and ``reversed`` ones are allocated
  again (``updated``).
- remind acts on ``allocated`` assignments only: it records a ``reminded`` action and moves the
  learner state to ``waiting``. Others are reported as ``non_remindable``.
- cancel acts on ``allocated`` and ``errored`` assignments: state ``cancelled``, learner state
  cleared, a ``cancelled`` action. Others are reported as ``non_cancelable``.
- assign licenses takes unassigned licenses of the plan; when there are not enough of them,
  nothing is assigned (``NotEnoughLicensesError``).
- bulk revoke honours the plan's revocation cap: past it, a revocation fails with status 400.
"""

from __future__ import annotations

import datetime
import random
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from attrs import frozen

from ._content import CatalogContent, ContentKind
from ._data import World, generate_world
from ._data_size import DataSize
from ._plan_data import plan_wire
from ._policy_data import action, policy_wire
from ._records import (
    AssignmentRecord,
    CatalogRecord,
    Customer,
    EnrollmentJob,
    Learner,
    LicenseRecord,
    PlanRecord,
    PolicyRecord,
)

__all__ = [
    "Allocation",
    "NotEnoughLicensesError",
    "Revocation",
    "SandboxData",
]

REMINDABLE_STATES = frozenset({"allocated"})
CANCELABLE_STATES = frozenset({"allocated", "errored"})
NO_CHANGE_STATES = frozenset({"allocated", "accepted"})
REVOCABLE_STATUSES = frozenset({"assigned", "activated"})


class NotEnoughLicensesError(Exception):
    """The plan has fewer unassigned licenses than users to assign (license-manager's words)."""

    def __init__(self, needed: int, available: int) -> None:
        super().__init__(
            "There are not enough licenses that can be assigned to complete your request."
            f"You attempted to assign {needed} licenses, "
            f"but there are only {available} potentially available."
        )
        self.needed = needed
        self.available = available


@frozen
class Allocation:
    """What an allocate call did, per the reference's three outcomes."""

    created: list[AssignmentRecord]
    updated: list[AssignmentRecord]
    no_change: list[AssignmentRecord]


@frozen
class Revocation:
    """What a bulk revoke did: revoked licenses and failures, each as the wire sends them."""

    successful: list[dict[str, Any]]
    unsuccessful: list[dict[str, Any]]

    @property
    def status(self) -> int:
        """200 all done, 207 some done, 404 (or 400 past the cap) none done."""
        if not self.unsuccessful:
            return 200
        if self.successful:
            return 207
        statuses = {failure["error_response_status"] for failure in self.unsuccessful}
        return 404 if statuses == {404} else 400


class SandboxData:
    """The world of a running sandbox: generated from the seed, then changed by requests.

    The ids a test needs are here: ``customers``, ``catalogs``, ``policies`` (with their
    ``assignment_configuration_uuid``), ``plans``; and the live records behind them:
    ``assignments(configuration_uuid)``, ``licenses(plan_uuid)``, ``learners(customer_uuid)``,
    ``enrollment_jobs``. Catalog items come from ``item(catalog, index)`` and ``first(catalog, kind)``.
    """

    def __init__(self, seed: int, size: DataSize, anchor: datetime.datetime) -> None:
        self.seed = seed
        self.size = size
        self.anchor = anchor
        """The moment the data is laid out around; "now" for every date the sandbox computes."""
        self.content = CatalogContent(seed, anchor)
        world: World = generate_world(seed, size, anchor, self.content)
        self.customers: list[Customer] = list(world.customers)
        self.catalogs: list[CatalogRecord] = list(world.catalogs)
        self.policies: list[PolicyRecord] = list(world.policies)
        self.plans: list[PlanRecord] = list(world.plans)
        self.enrollment_jobs: list[EnrollmentJob] = []
        self._learners = world.learners
        self._summaries = world.summaries
        self._assignments: dict[str, list[AssignmentRecord]] = {
            policy.assignment_configuration_uuid: []
            for policy in self.policies
            if policy.assignment_configuration_uuid
        }
        for assignment in world.assignments:
            self._assignments[assignment.configuration_uuid].append(assignment)
        self._licenses: dict[str, list[LicenseRecord]] = {plan.uuid: [] for plan in self.plans}
        for license in world.licenses:
            self._licenses[license.plan_uuid].append(license)
        self._rng = random.Random(f"{seed}:runtime")
        self._plan_locks: dict[str, int | None] = {}

    def __repr__(self) -> str:
        return (
            f"SandboxData(seed={self.seed}, customers={len(self.customers)}, catalogs={len(self.catalogs)}, "
            f"policies={len(self.policies)}, plans={len(self.plans)})"
        )

    # ------------------------------------------------------------------ lookups

    @property
    def assignment_configurations(self) -> list[str]:
        """Uuids of every assignment configuration (one per assignable policy)."""
        return list(self._assignments)

    def customer(self, customer_uuid: str) -> Customer | None:
        """The customer with this uuid, if any."""
        return next((customer for customer in self.customers if customer.uuid == customer_uuid), None)

    def catalog(self, catalog_uuid: str) -> CatalogRecord | None:
        """The catalog with this uuid, if any."""
        return next((catalog for catalog in self.catalogs if catalog.uuid == catalog_uuid), None)

    def policy(self, policy_uuid: str) -> PolicyRecord | None:
        """The policy with this uuid, if any."""
        return next((policy for policy in self.policies if policy.uuid == policy_uuid), None)

    def plan(self, plan_uuid: str) -> PlanRecord | None:
        """The subscription plan with this uuid, if any."""
        return next((plan for plan in self.plans if plan.uuid == plan_uuid), None)

    def catalogs_of(self, customer_uuid: str) -> list[CatalogRecord]:
        """The catalogs of a customer, in list order (those the catalog list shows its tokens)."""
        return [catalog for catalog in self.catalogs if catalog.customer_uuid == customer_uuid]

    def policies_of(self, customer_uuid: str) -> list[PolicyRecord]:
        """The policies of a customer, in list order."""
        return [policy for policy in self.policies if policy.customer_uuid == customer_uuid]

    def assignments(self, configuration_uuid: str) -> list[AssignmentRecord]:
        """The live assignments of a configuration, in creation order (empty for an unknown one)."""
        return self._assignments.get(configuration_uuid, [])

    def has_configuration(self, configuration_uuid: str) -> bool:
        """Whether an assignment configuration with this uuid exists."""
        return configuration_uuid in self._assignments

    def licenses(self, plan_uuid: str) -> list[LicenseRecord]:
        """The live licenses of a plan (empty for an unknown one)."""
        return self._licenses.get(plan_uuid, [])

    def learners(self, customer_uuid: str) -> tuple[Learner, ...]:
        """The learners of a customer."""
        return self._learners.get(customer_uuid, ())

    def summaries(self, customer_uuid: str) -> tuple[dict[str, Any], ...]:
        """The learner summary rows of a customer, as the wire sends them."""
        return self._summaries.get(customer_uuid, ())

    def item(self, catalog: CatalogRecord | str, index: int) -> dict[str, Any]:
        """Item ``index`` of a catalog's contents (nested shape). Read it, do not change it."""
        record = self._catalog(catalog)
        if not 0 <= index < record.item_count:
            raise IndexError(f"catalog {record.uuid} has {record.item_count} items")
        return self.content.item(record, index)

    def first(self, catalog: CatalogRecord | str, kind: ContentKind) -> dict[str, Any]:
        """The first item of a kind (``course``, ``courserun``, ``program``) in a catalog's contents."""
        record = self._catalog(catalog)
        for index in range(min(record.item_count, 10)):
            if self.content.kind(index) == kind:
                return self.content.item(record, index)
        raise LookupError(f"catalog {record.uuid} has no {kind} among its first items")

    def _catalog(self, catalog: CatalogRecord | str) -> CatalogRecord:
        if isinstance(catalog, CatalogRecord):
            return catalog
        found = self.catalog(catalog)
        if found is None:
            raise KeyError(catalog)
        return found

    # ------------------------------------------------------------------ wire views

    def policy_wire(self, policy: PolicyRecord) -> dict[str, Any]:
        """A policy as the list sends it, aggregates computed from the live assignments."""
        allocated = 0
        if policy.assignment_configuration_uuid:
            allocated = sum(
                -assignment.content_quantity
                for assignment in self.assignments(policy.assignment_configuration_uuid)
                if assignment.state == "allocated"
            )
        return policy_wire(policy, allocated, self.anchor)

    def plan_wire(self, plan: PlanRecord) -> dict[str, Any]:
        """A plan as the list sends it, counters computed from the live licenses."""
        return plan_wire(plan, self.licenses(plan.uuid), self.anchor)

    def current_plan(self, plan: PlanRecord) -> bool:
        """Whether the plan is the active one now (the ``current`` filter)."""
        return plan.is_active and plan.start <= self.anchor < plan.expiration

    # ------------------------------------------------------------------ transitions

    def new_uuid(self) -> str:
        """A fresh version 4 uuid, deterministic for the seed and the order of requests."""
        return str(uuid.UUID(int=self._rng.getrandbits(128), version=4))

    def now(self) -> datetime.datetime:
        """The wall clock (UTC), for the records and actions that requests create."""
        return datetime.datetime.now(datetime.timezone.utc)

    def allocate(
        self, policy: PolicyRecord, emails: Sequence[str], content_key: str, price_cents: int
    ) -> Allocation:
        """The reference's allocate transitions, for each distinct e-mail."""
        configuration = policy.assignment_configuration_uuid
        assert configuration is not None
        catalog = self._catalog(policy.catalog_uuid)
        title = self.content.title_of(catalog, content_key)
        outcome = Allocation(created=[], updated=[], no_change=[])
        records = self._assignments[configuration]
        for email in _distinct(emails):
            existing = next(
                (
                    record
                    for record in records
                    if record.content_key == content_key
                    and (record.learner_email or "").lower() == email.lower()
                ),
                None,
            )
            if existing is None:
                outcome.created.append(
                    self._create_assignment(policy, email, content_key, title, price_cents)
                )
            elif existing.state in NO_CHANGE_STATES:
                outcome.no_change.append(existing)
            else:
                self._reallocate(existing, price_cents)
                outcome.updated.append(existing)
        return outcome

    def _create_assignment(
        self, policy: PolicyRecord, email: str, content_key: str, title: str | None, price_cents: int
    ) -> AssignmentRecord:
        configuration = policy.assignment_configuration_uuid
        assert configuration is not None
        now = self.now()
        records = self._assignments[configuration]
        record = AssignmentRecord(
            uuid=self.new_uuid(),
            configuration_uuid=configuration,
            policy_uuid=policy.uuid,
            learner_email=email,
            lms_user_id=None,
            content_key=content_key,
            content_title=title,
            content_quantity=-price_cents,
            state="allocated",
            learner_state="notifying",
            created=now,
            expiration=now + datetime.timedelta(days=90),
            position=len(records),
        )
        records.append(record)
        return record

    def _reallocate(self, record: AssignmentRecord, price_cents: int) -> None:
        now = self.now()
        record.state = "allocated"
        record.learner_state = "notifying"
        record.content_quantity = -price_cents
        record.error_reason = None
        record.transaction_uuid = None
        record.expiration = now + datetime.timedelta(days=90)
        record.actions.append(action(self._rng, "reallocated", now))

    def remind(self, configuration_uuid: str, assignment_uuids: Sequence[str]) -> dict[str, list[str]]:
        """Remind allocated assignments; the body says which were reminded and which were not."""
        reminded, skipped = [], []
        for record, wanted in self._select(configuration_uuid, assignment_uuids):
            if record is None or record.state not in REMINDABLE_STATES:
                skipped.append(wanted)
                continue
            record.actions.append(action(self._rng, "reminded", self.now()))
            record.learner_state = "waiting"
            reminded.append(record.uuid)
        return {"reminded": reminded, "non_remindable": skipped}

    def cancel(self, configuration_uuid: str, assignment_uuids: Sequence[str]) -> dict[str, list[str]]:
        """Cancel allocated and errored assignments; the body says which were cancelled and which were not."""
        cancelled, skipped = [], []
        for record, wanted in self._select(configuration_uuid, assignment_uuids):
            if record is None or record.state not in CANCELABLE_STATES:
                skipped.append(wanted)
                continue
            record.actions.append(action(self._rng, "cancelled", self.now()))
            record.state = "cancelled"
            record.learner_state = None
            record.error_reason = None
            cancelled.append(record.uuid)
        return {"cancelled": cancelled, "non_cancelable": skipped}

    def _select(
        self, configuration_uuid: str, assignment_uuids: Sequence[str]
    ) -> Iterable[tuple[AssignmentRecord | None, str]]:
        by_uuid = {record.uuid: record for record in self.assignments(configuration_uuid)}
        for wanted in _distinct(assignment_uuids):
            yield by_uuid.get(wanted.lower()), wanted

    def assign_licenses(self, plan: PlanRecord, emails: Sequence[str]) -> dict[str, Any]:
        """Assign a license to each e-mail not yet tied to a non-revoked license of the plan."""
        licenses = self.licenses(plan.uuid)
        held = {
            license.user_email.lower()
            for license in licenses
            if license.user_email and license.status != "revoked"
        }
        wanted = [email for email in _distinct(emails) if email.lower() not in held]
        free = [license for license in licenses if license.status == "unassigned"]
        if len(free) < len(wanted):
            raise NotEnoughLicensesError(len(wanted), len(free))
        now = self.now()
        assignments = []
        for email, license in zip(wanted, free[: len(wanted)], strict=True):
            license.status, license.user_email, license.assigned = "assigned", email, now
            assignments.append({"user_email": email, "license": license.uuid})
        return {
            "num_successful_assignments": len(assignments),
            "num_already_associated": len(_distinct(emails)) - len(wanted),
            "license_assignments": assignments,
        }

    def revoke_emails(self, plan: PlanRecord, emails: Sequence[str]) -> Revocation:
        """Revoke the license of each e-mail (the ``user_emails`` form of bulk revoke)."""
        outcome = Revocation(successful=[], unsuccessful=[])
        for email in _distinct(emails):
            self._revoke_email(plan, email, outcome)
        return outcome

    def filtered_emails(self, plan: PlanRecord, filters: Sequence[dict[str, Any]]) -> list[str]:
        """E-mails of the plan's non-revoked licenses that every filter selects, as license-manager
        reads them: ``user_email`` a case-insensitive substring, ``status_in`` a list of statuses."""
        selected = [license for license in self.licenses(plan.uuid) if license.status != "revoked"]
        for selector in filters:
            value = selector["filter_value"]
            if selector["name"] == "user_email":
                selected = [item for item in selected if value.lower() in (item.user_email or "").lower()]
            else:
                selected = [item for item in selected if item.status in value]
        return _distinct(license.user_email for license in selected if license.user_email)

    def revocations_left(self, plan: PlanRecord) -> int | None:
        """Revocations the plan still allows (None: no cap)."""
        return self._revocations_left(plan) if plan.revocation_cap else None

    def lock_plan(self, plan_uuid: str, *, attempts: int | None = None) -> None:
        """Hold the plan's assignment lock, as a concurrent assignment would: license assignment
        answers 423 Locked for the next ``attempts`` requests (every request until
        ``unlock_plan`` when None)."""
        self._plan_locks[plan_uuid.lower()] = attempts

    def unlock_plan(self, plan_uuid: str) -> None:
        """Release the plan's assignment lock."""
        self._plan_locks.pop(plan_uuid.lower(), None)

    def plan_locked(self, plan: PlanRecord) -> bool:
        """Whether an assignment request finds the plan locked (counting down a limited lock)."""
        if plan.uuid not in self._plan_locks:
            return False
        left = self._plan_locks[plan.uuid]
        if left is not None:
            if left <= 1:
                del self._plan_locks[plan.uuid]
            else:
                self._plan_locks[plan.uuid] = left - 1
        return True

    def spend_available(self, policy: PolicyRecord) -> int:
        """Cents the policy can still allocate, from the live assignments (as the policy list shows)."""
        return int(self.policy_wire(policy)["aggregates"]["spend_available_usd_cents"])

    def _revoke_email(self, plan: PlanRecord, email: str, outcome: Revocation) -> None:
        held = [
            license
            for license in self.licenses(plan.uuid)
            if (license.user_email or "").lower() == email.lower()
        ]
        revocable = next((license for license in held if license.status in REVOCABLE_STATUSES), None)
        if revocable is not None:
            self._revoke(plan, revocable, outcome)
            return
        error = (
            f"License for user with email {email} is {held[0].status}; "
            "only assigned or activated licenses can be revoked."
            if held
            else f"No license for user with email {email} exists in subscription plan {plan.uuid}."
        )
        outcome.unsuccessful.append({"error": error, "error_response_status": 404, "user_email": email})

    def _revoke(self, plan: PlanRecord, license: LicenseRecord, outcome: Revocation) -> None:
        email = license.user_email or ""
        if plan.revocation_cap and self._revocations_left(plan) <= 0:
            outcome.unsuccessful.append(
                {
                    "error": f"The revocation cap of subscription plan {plan.uuid} has been reached.",
                    "error_response_status": 400,
                    "user_email": email,
                }
            )
            return
        original = license.status
        license.status, license.revoked = "revoked", self.now()
        outcome.successful.append(
            {"license_uuid": license.uuid, "original_status": original, "user_email": email}
        )

    def _revocations_left(self, plan: PlanRecord) -> int:
        used = sum(1 for license in self.licenses(plan.uuid) if license.status == "revoked")
        return plan.revocation_limit - used

    def enroll(
        self, customer_uuid: str, emails: Sequence[str], course_run_keys: Sequence[str], notify: bool | None
    ) -> EnrollmentJob:
        """Record a bulk enrollment job; its id is a version 4 uuid."""
        job = EnrollmentJob(
            job_id=self.new_uuid(),
            customer_uuid=customer_uuid,
            emails=tuple(emails),
            course_run_keys=tuple(course_run_keys),
            notify=notify,
        )
        self.enrollment_jobs.append(job)
        return job


def _distinct(values: Iterable[str]) -> list[str]:
    """Values in order, without case-insensitive repeats."""
    seen: set[str] = set()
    kept = []
    for value in values:
        if value.lower() not in seen:
            seen.add(value.lower())
            kept.append(value)
    return kept
