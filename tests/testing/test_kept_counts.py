"""What a page shows of records it does not hold (a policy's spend allocated, an assignment
list's learner states, a plan's license counts) is counted from the seed without making the
records, and kept right as requests change them: against a count of every record made, over
generated sizes and sequences of changes."""

from __future__ import annotations

import collections
import datetime
from typing import Any

import aiohttp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from enterprise_async.testing import DataSize, Sandbox
from enterprise_async.testing._assignment_data import STATE_MIX, AssignmentLayout
from enterprise_async.testing._license_state import NotEnoughLicensesError
from enterprise_async.testing._state import SandboxData

from .conftest import RawAPI

ANCHOR = datetime.datetime(2026, 3, 1, tzinfo=datetime.timezone.utc)


@settings(max_examples=300, deadline=None)
@given(
    count=st.integers(0, 400),
    learners=st.integers(1, 30),
    prices=st.lists(st.integers(0, 200_000), min_size=1, max_size=40),
)
def test_the_spend_allocated_and_the_learner_states_of_a_layout_are_those_of_every_assignment(
    count: int, learners: int, prices: list[int]
) -> None:
    layout = AssignmentLayout(count, learners, tuple(range(len(prices))), tuple(prices))
    mix = [STATE_MIX[number % len(STATE_MIX)] for number in range(count)]
    allocated = sum(
        prices[layout.place(number)] for number, (state, _) in enumerate(mix) if state == "allocated"
    )
    learner_states = collections.Counter(learner_state for _, learner_state in mix if learner_state)
    assert layout.allocated_cents() == allocated
    assert layout.learner_states() == dict(learner_states)


def _counted(data: SandboxData, configuration: str) -> tuple[int, dict[str, int]]:
    """A configuration's spend allocated and learner states, as a page shows them (kept)."""
    records = data.assignments(configuration)
    return records.allocated_cents, records.learner_state_counts()


def _brute(data: SandboxData, configuration: str) -> tuple[int, dict[str, int]]:
    """The same, counted over every assignment made."""
    records = list(data.assignments(configuration))
    allocated = sum(-record.content_quantity for record in records if record.state == "allocated")
    states = collections.Counter(record.learner_state for record in records if record.learner_state)
    return allocated, dict(states)


def _license_brute(data: SandboxData, plan_uuid: str) -> dict[str, int]:
    counts = dict.fromkeys(("activated", "assigned", "unassigned", "revoked"), 0)
    for license in data.licenses(plan_uuid):
        counts[license.status] += 1
    return counts


sizes = st.builds(
    DataSize,
    customers=st.just(1),
    catalogs_per_customer=st.integers(1, 2),
    catalog_items=st.integers(0, 60),
    policies_per_customer=st.integers(1, 4),
    assignments_per_configuration=st.integers(0, 60),
    plans_per_customer=st.integers(1, 4),
    licenses_per_plan=st.integers(0, 25),
    learners_per_customer=st.integers(1, 8),
)


class KeptCounts(RuleBasedStateMachine):
    """Two sandboxes' data of one seed and size take the same changes: ``lazy`` is only ever
    asked what a page shows, ``every`` has every record made and counted."""

    lazy: SandboxData
    every: SandboxData

    @initialize(size=sizes, seed=st.integers(0, 3))
    def start(self, size: DataSize, seed: int) -> None:
        self.lazy, self.every = SandboxData(seed, size, ANCHOR), SandboxData(seed, size, ANCHOR)
        for configuration in self.every.assignment_configurations:
            list(self.every.assignments(configuration))
        for plan in self.every.plans:
            self.every.licenses(plan.uuid)

    # ------------------------------------------------------------------ the changes

    @rule(data=st.data())
    def allocate(self, data: st.DataObject) -> None:
        policies = [policy for policy in self.every.policies if policy.assignment_configuration_uuid]
        if not policies:
            return
        policy = data.draw(st.sampled_from(policies))
        records = list(self.every.assignments(str(policy.assignment_configuration_uuid)))
        known = [record.learner_email for record in records if record.learner_email]
        learners = [learner.email for learner in self.every.learners(policy.customer_uuid)]
        emails = data.draw(
            st.lists(
                st.sampled_from(known + learners) | st.sampled_from(("new@example.com", "Other@Example.com")),
                min_size=1,
                max_size=4,
            )
        )
        keys = [record.content_key for record in records] or ["MITx+CS.0.0x"]
        key = data.draw(st.sampled_from(keys) | st.just("MITx+CS.99.99x"))
        if data.draw(st.booleans()):
            emails = [email.upper() for email in emails]
        price = data.draw(st.integers(0, 50_000))
        for side in (self.lazy, self.every):
            side.allocate(side.policy(policy.uuid), emails, key, price)  # type: ignore[arg-type]

    @rule(data=st.data(), cancel=st.booleans())
    def remind_or_cancel(self, data: st.DataObject, cancel: bool) -> None:
        configurations = self.every.assignment_configurations
        if not configurations:
            return
        configuration = data.draw(st.sampled_from(configurations))
        uuids = [record.uuid for record in self.every.assignments(configuration)]
        chosen = data.draw(
            st.lists(st.sampled_from(uuids) | st.just("00000000-0000-4000-8000-000000000000"), max_size=5)
            if uuids
            else st.just([])
        )
        for side in (self.lazy, self.every):
            (side.cancel if cancel else side.remind)(configuration, chosen)

    @rule(data=st.data())
    def assign_licenses(self, data: st.DataObject) -> None:
        plan = data.draw(st.sampled_from(self.every.plans))
        learners = [learner.email for learner in self.every.learners(plan.customer_uuid)]
        emails = data.draw(st.lists(st.sampled_from([*learners, "someone@example.com"]), max_size=4))
        outcomes = []
        for side in (self.lazy, self.every):
            try:
                outcomes.append(side.assign_licenses(side.plan(plan.uuid), emails))  # type: ignore[arg-type]
            except NotEnoughLicensesError as error:
                outcomes.append(str(error))
        assert outcomes[0] == outcomes[1]

    @rule(data=st.data())
    def revoke(self, data: st.DataObject) -> None:
        plan = data.draw(st.sampled_from(self.every.plans))
        held = [license.user_email for license in self.every.licenses(plan.uuid) if license.user_email]
        emails = data.draw(st.lists(st.sampled_from([*held, "nobody@example.com"]), max_size=4))
        lazy, every = (
            side.revoke_emails(side.plan(plan.uuid), emails)  # type: ignore[arg-type]
            for side in (self.lazy, self.every)
        )
        assert (len(lazy.successful), len(lazy.unsuccessful)) == (
            len(every.successful),
            len(every.unsuccessful),
        )

    @rule(data=st.data())
    def enroll(self, data: st.DataObject) -> None:
        customer = self.every.customers[0]
        learners = [learner.email for learner in self.every.learners(customer.uuid)]
        emails = data.draw(st.lists(st.sampled_from(learners), min_size=1, max_size=3))
        for side in (self.lazy, self.every):
            side.enroll(customer.uuid, emails, ["course-v1:MITx+CS.0.0x+1T2026"], True)

    # ------------------------------------------------------------------ what a page shows

    @invariant()
    def pages_show_what_every_record_counts(self) -> None:
        if not hasattr(self, "lazy"):
            return
        for policy in self.every.policies:
            assert self.lazy.policy_wire(policy) == self.every.policy_wire(policy)
            configuration = policy.assignment_configuration_uuid
            if configuration:
                brute = _brute(self.every, configuration)
                assert _counted(self.lazy, configuration) == brute
                assert _counted(self.every, configuration) == brute
                allocated = self.every.policy_wire(policy)["aggregates"]["amount_allocated_usd_cents"]
                assert allocated == brute[0]
        for plan in self.every.plans:
            brute_licenses = _license_brute(self.every, plan.uuid)
            for side in (self.lazy, self.every):
                shown: dict[str, Any] = side.plan_wire(plan)["licenses"]
                assert {status: shown[status] for status in brute_licenses} == brute_licenses
                assert shown["total"] == sum(brute_licenses.values())


KeptCounts.TestCase.settings = settings(
    max_examples=60, stateful_step_count=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
test_kept_counts_follow_every_change = KeptCounts.TestCase


# ---------------------------------------------------------------------------------- through pages

LARGEST = DataSize(
    plans_per_customer=1000,
    policies_per_customer=100,
    assignments_per_configuration=5000,
    catalog_items=100_000,
    summary_rows_per_customer=100_000,
)


async def test_a_policy_page_at_the_largest_size_makes_no_assignment(session: aiohttp.ClientSession) -> None:
    async with Sandbox(seed=0, size=LARGEST) as sandbox:
        api = RawAPI(sandbox, session)
        customer = sandbox.data.customers[0].uuid
        page = await api.get(
            "/enterprise/v1/subsidy-access-policies/", params={"enterprise_customer_uuid": customer}
        )
        configurations = [
            policy.assignment_configuration_uuid
            for policy in sandbox.data.policies_of(customer)
            if policy.assignment_configuration_uuid
        ]
        made = {sandbox.data.assignments(configuration).made for configuration in configurations}
        shown = {policy["aggregates"]["amount_allocated_usd_cents"] for policy in page.data["results"]}
    assert (page.status, len(page.data["results"]), len(configurations)) == (200, 100, 50)
    assert made == {0}
    assert len(shown) > 1  # each configuration's own spend, none made to count it


async def test_an_assignment_page_makes_its_own_assignments_alone(session: aiohttp.ClientSession) -> None:
    async with Sandbox(seed=0, size=LARGEST) as sandbox:
        api = RawAPI(sandbox, session)
        configuration = sandbox.data.assignment_configurations[0]
        path = f"/enterprise/v1/assignment-configurations/{configuration}/admin/assignments/"
        first = await api.get(path)
        made = sandbox.data.assignments(configuration).made
        counts = first.data["learner_state_counts"]
    assert (first.data["count"], len(first.data["results"]), made) == (5000, 100, 100)
    assert sum(entry["count"] for entry in counts) == 5000 * 6 // 10  # six turns of ten have one


async def test_a_plan_page_makes_its_own_plans_alone(session: aiohttp.ClientSession) -> None:
    async with Sandbox(seed=0, size=LARGEST) as sandbox:
        api = RawAPI(sandbox, session)
        customer = sandbox.data.customers[0].uuid
        first = await api.get("/enterprise/v1/subscriptions", params={"enterprise_customer_uuid": customer})
        made = [plans.made for plans in map(sandbox.data.plans_of, [c.uuid for c in sandbox.data.customers])]
    assert (first.data["count"], len(first.data["results"])) == (1000, 100)
    assert made == [100, 0, 0]
