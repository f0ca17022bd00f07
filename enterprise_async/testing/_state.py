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

The plans' licenses (assign, revoke) are ``_license_state``'s, which lists their choices.
"""

from __future__ import annotations

import datetime
import random
import uuid
from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import Any

from attrs import frozen

from ._assignment_data import action
from ._assignments import ConfigurationAssignments
from ._catalog_edits import CatalogEdits
from ._content import CatalogContent, ContentKind
from ._data import World, generate_world
from ._data_size import DataSize
from ._license_state import PlanLicenses
from ._parsing import distinct
from ._plan_data import CustomerPlans, plan_wire
from ._policy_data import policy_wire
from ._records import (
    AssignmentRecord,
    CatalogRecord,
    Customer,
    EnrollmentJob,
    Learner,
    PlanRecord,
    PolicyRecord,
)
from ._summary_data import SummaryRows

__all__ = ["Allocation", "SandboxData"]

REMINDABLE_STATES = frozenset({"allocated"})
CANCELABLE_STATES = frozenset({"allocated", "errored"})
NO_CHANGE_STATES = frozenset({"allocated", "accepted"})


@frozen
class Allocation:
    """What an allocate call did, per the reference's three outcomes."""

    created: list[AssignmentRecord]
    updated: list[AssignmentRecord]
    no_change: list[AssignmentRecord]


class SandboxData(PlanLicenses):
    """The world of a running sandbox: generated from the seed, then changed by requests.

    The ids a test needs are here: ``customers``, ``catalogs``, ``policies`` (with their
    ``assignment_configuration_uuid``), ``plans``; and the live records behind them:
    ``assignments(configuration_uuid)``, ``licenses(plan_uuid)``, ``learners(customer_uuid)``,
    ``summaries(customer_uuid)``, ``enrollment_jobs``. Catalog items come from ``item(catalog,
    index)`` and ``first(catalog, kind)``. The plans' licenses and their transitions (assign,
    revoke, the assignment lock) are ``PlanLicenses``' (``_license_state``).

    What grows with the size is made when read, a record at a time: a customer's policies and
    plans (``policies_of``, ``plans_of``), a configuration's assignments, a plan's licenses, a
    customer's learner rows. What a page shows of all of them (a policy's spend allocated, a
    plan's license counts, an assignment list's learner states) is counted from the seed
    without making them, and kept as requests change them.
    """

    def __init__(self, seed: int, size: DataSize, anchor: datetime.datetime) -> None:
        self.seed = seed
        self.size = size
        self.anchor = anchor
        """The moment the data is laid out around; "now" for every date the sandbox computes."""
        self.content = CatalogContent(seed, anchor)
        self.catalog_edits = CatalogEdits(self.catalog, anchor)
        """Items created, updated and removed since the data was made (``Sandbox.edits``)."""
        world: World = generate_world(seed, size, anchor, self.content)
        self.customers: list[Customer] = list(world.customers)
        self.catalogs: list[CatalogRecord] = list(world.catalogs)
        self.enrollment_jobs: list[EnrollmentJob] = []
        self._learners = world.learners
        self._world = world
        self._policies = world.policies()
        self._plans = world.plans()
        self._summaries: dict[str, SummaryRows] = {}
        self._assignments: dict[str, ConfigurationAssignments] = {}
        super().__init__(world.licenses, world.license_counts)
        self._rng = random.Random(f"{seed}:runtime")

    @cached_property
    def policies(self) -> list[PolicyRecord]:
        """Every customer's subsidy access policies, made from the seed when first read."""
        return self._policies.every()

    @cached_property
    def plans(self) -> list[PlanRecord]:
        """Every customer's subscription plans, made from the seed when first read."""
        return [plan for plans in self._plans.values() for plan in plans]

    @cached_property
    def _configurations(self) -> dict[str, PolicyRecord]:
        return {
            policy.assignment_configuration_uuid: policy
            for policy in self.policies
            if policy.assignment_configuration_uuid
        }

    @cached_property
    def _plan_places(self) -> dict[str, tuple[CustomerPlans, int]]:
        """Where each plan uuid is (its customer's plans, its number), from the uuids alone."""
        return {
            plans.uuid_of(number): (plans, number)
            for plans in self._plans.values()
            for number in range(len(plans))
        }

    def __repr__(self) -> str:
        customers, size = len(self.customers), self.size
        return (
            f"SandboxData(seed={self.seed}, customers={customers}, catalogs={len(self.catalogs)}, "
            f"policies={customers * size.policies_per_customer}, plans={customers * size.plans_per_customer})"
        )

    # ------------------------------------------------------------------ lookups

    @property
    def assignment_configurations(self) -> list[str]:
        """Uuids of every assignment configuration (one per assignable policy)."""
        return list(self._configurations)

    def customer(self, customer_uuid: str) -> Customer | None:
        """The customer with this uuid, if any."""
        return next((customer for customer in self.customers if customer.uuid == customer_uuid), None)

    def catalog(self, catalog_uuid: str) -> CatalogRecord | None:
        """The catalog with this uuid, if any."""
        return next((catalog for catalog in self.catalogs if catalog.uuid == catalog_uuid), None)

    def policy(self, policy_uuid: str) -> PolicyRecord | None:
        """The policy with this uuid, if any."""
        return self._policies.by_uuid(policy_uuid)

    def plan(self, plan_uuid: str) -> PlanRecord | None:
        """The subscription plan with this uuid, if any."""
        found = self._plan_places.get(plan_uuid)
        if found is None:
            return None
        plans, number = found
        return plans[number]

    def plans_of(self, customer_uuid: str) -> Sequence[PlanRecord]:
        """The subscription plans of a customer, in list order, each made when first read."""
        return self._plans.get(customer_uuid, ())

    def current_plans(self, customer_uuid: str) -> list[PlanRecord]:
        """The plans of a customer that are current now (the ``current`` filter)."""
        plans = self._plans.get(customer_uuid)
        return [plan for plan in plans.current() if self.current_plan(plan)] if plans is not None else []

    def catalogs_of(self, customer_uuid: str) -> list[CatalogRecord]:
        """The catalogs of a customer, in list order (those the catalog list shows its tokens)."""
        return [catalog for catalog in self.catalogs if catalog.customer_uuid == customer_uuid]

    def policies_of(self, customer_uuid: str) -> list[PolicyRecord]:
        """The policies of a customer, in list order (made from the seed when first read)."""
        return list(self._policies.of(customer_uuid))

    def policy_of_configuration(self, configuration_uuid: str) -> PolicyRecord | None:
        """The policy whose assignment configuration has this uuid, if any."""
        return self._policies.by_configuration(configuration_uuid)

    def assignments(self, configuration_uuid: str) -> ConfigurationAssignments:
        """The live assignments of a configuration, in creation order (none for an unknown one),
        each made from the seed when first read."""
        found = self._assignments.get(configuration_uuid)
        if found is None:
            policy = self._policies.by_configuration(configuration_uuid)
            if policy is None:
                return ConfigurationAssignments(None)
            found = self._assignments[configuration_uuid] = self._world.assignments(policy)
        return found

    def has_configuration(self, configuration_uuid: str) -> bool:
        """Whether an assignment configuration with this uuid exists."""
        return self._policies.by_configuration(configuration_uuid) is not None

    def learners(self, customer_uuid: str) -> tuple[Learner, ...]:
        """The learners of a customer."""
        return self._learners.get(customer_uuid, ())

    def summaries(self, customer_uuid: str) -> Sequence[dict[str, Any]]:
        """The learner summary rows of a customer, as the wire sends them, each made from the
        seed when read (read them, do not change them)."""
        found = self._summaries.get(customer_uuid)
        if found is None:
            customer = self.customer(customer_uuid)
            if customer is None:
                return ()
            found = self._summaries[customer_uuid] = self._world.summaries(customer)
        return found

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
        """A policy as the list sends it, its aggregates those of the live assignments (kept
        as requests change them: none is made to answer)."""
        configuration = policy.assignment_configuration_uuid
        allocated = self.assignments(configuration).allocated_cents if configuration else 0
        return policy_wire(policy, allocated, self.anchor)

    def plan_wire(self, plan: PlanRecord) -> dict[str, Any]:
        """A plan as the list sends it, its counters those of the live licenses (kept as
        requests change them: none is made to answer)."""
        return plan_wire(plan, self.license_counts(plan), self.anchor)

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
        records = self.assignments(configuration)
        for email in distinct(emails):
            existing = records.find(email, content_key)
            if existing is None:
                outcome.created.append(
                    self._create_assignment(policy, email, content_key, title, price_cents)
                )
            elif existing.state in NO_CHANGE_STATES:
                outcome.no_change.append(existing)
            else:
                with records.changing(existing):
                    self._reallocate(existing, price_cents)
                outcome.updated.append(existing)
        return outcome

    def _create_assignment(
        self, policy: PolicyRecord, email: str, content_key: str, title: str | None, price_cents: int
    ) -> AssignmentRecord:
        configuration = policy.assignment_configuration_uuid
        assert configuration is not None
        now = self.now()
        records = self.assignments(configuration)
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
            with self.assignments(configuration_uuid).changing(record):
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
            with self.assignments(configuration_uuid).changing(record):
                record.actions.append(action(self._rng, "cancelled", self.now()))
                record.state = "cancelled"
                record.learner_state = None
                record.error_reason = None
            cancelled.append(record.uuid)
        return {"cancelled": cancelled, "non_cancelable": skipped}

    def _select(
        self, configuration_uuid: str, assignment_uuids: Sequence[str]
    ) -> Iterable[tuple[AssignmentRecord | None, str]]:
        records = self.assignments(configuration_uuid)
        for wanted in distinct(assignment_uuids):
            yield records.by_uuid(wanted.lower()), wanted

    def spend_available(self, policy: PolicyRecord) -> int:
        """Cents the policy can still allocate, from the live assignments (as the policy list shows)."""
        return int(self.policy_wire(policy)["aggregates"]["spend_available_usd_cents"])

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
