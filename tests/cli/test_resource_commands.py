"""``policies``, ``assignments``, ``subscriptions`` and ``enroll`` against a served sandbox."""

from __future__ import annotations

import orjson

from enterprise_async.models import AllocationResult, Assignment, BulkRevokeResult, from_dict
from enterprise_async.testing import PolicyRecord, Sandbox

from .conftest import CommandLine


def assignable(sandbox: Sandbox) -> PolicyRecord:
    return next(policy for policy in sandbox.data.policies if policy.assignment_configuration_uuid)


def course_key(sandbox: Sandbox, policy: PolicyRecord) -> str:
    return str(sandbox.data.first(policy.catalog_uuid, "course")["key"])


def test_policies_list_json_has_every_policy_of_the_customer(cli: CommandLine, served: Sandbox) -> None:
    customer = served.data.customers[0].uuid
    ran = cli("policies", "list", customer, "--json")
    assert ran.exit_code == 0
    uuids = [orjson.loads(line)["uuid"] for line in ran.stdout.splitlines()]
    assert uuids == [policy.uuid for policy in served.data.policies_of(customer)]


def test_policies_list_table_shows_names_and_assignment_configurations(
    cli: CommandLine, served: Sandbox
) -> None:
    customer = served.data.customers[0].uuid
    ran = cli("policies", "list", customer)
    for policy in served.data.policies_of(customer):
        assert policy.uuid in ran.stdout
        assert (policy.assignment_configuration_uuid or "-") in ran.stdout


def test_policies_list_sends_the_active_filter(cli: CommandLine, served: Sandbox) -> None:
    cli("policies", "list", served.data.customers[0].uuid, "--inactive", "--page-size", "2")
    (request,) = served.requests.find("GET", "/enterprise/v1/subsidy-access-policies/")
    assert request.query_value("active") == "false"
    assert request.query_value("page_size") == "2"


def test_allocating_twice_creates_then_changes_nothing(cli: CommandLine, served: Sandbox) -> None:
    policy = assignable(served)
    args = (
        *("policies", "allocate", policy.uuid, "--learner-email", "a@example.com,b@example.com"),
        *("--content-key", course_key(served, policy), "--content-price-cents", "4900", "--json"),
    )
    first: AllocationResult = from_dict(AllocationResult, orjson.loads(cli(*args).stdout))
    second: AllocationResult = from_dict(AllocationResult, orjson.loads(cli(*args).stdout))
    assert isinstance(first.created, list)
    assert sorted(assignment.learner_email or "" for assignment in first.created) == [
        "a@example.com",
        "b@example.com",
    ]
    assert second.created == []
    assert [assignment.uuid for assignment in second.no_change] == [
        assignment.uuid for assignment in first.created
    ]


def test_allocation_table_counts_each_outcome(cli: CommandLine, served: Sandbox) -> None:
    policy = assignable(served)
    ran = cli(
        "policies",
        "allocate",
        policy.uuid,
        "--learner-email",
        "c@example.com",
        "--content-key",
        course_key(served, policy),
        "--content-price-cents",
        "100",
    )
    assert "created: 1, updated: 0, no_change: 0" in ran.stdout
    assert "c@example.com" in ran.stdout


def test_assignments_list_json_has_every_assignment(cli: CommandLine, served: Sandbox) -> None:
    configuration = assignable(served).assignment_configuration_uuid or ""
    ran = cli("assignments", "list", configuration, "--json", "--page-size", "7")
    uuids = [orjson.loads(line)["uuid"] for line in ran.stdout.splitlines()]
    assert uuids == [assignment.uuid for assignment in served.data.assignments(configuration)]


def test_assignments_table_shows_the_learner_state_counts(cli: CommandLine, served: Sandbox) -> None:
    configuration = assignable(served).assignment_configuration_uuid or ""
    ran = cli("assignments", "list", configuration, "--max-items", "3")
    assert "Learner state counts" in ran.stdout
    assert "3 assignments" in ran.stdout
    for state in {assignment.learner_state for assignment in served.data.assignments(configuration)} - {None}:
        assert str(state) in ran.stdout


def test_assignment_filters_take_commas_and_repeats(cli: CommandLine, served: Sandbox) -> None:
    configuration = assignable(served).assignment_configuration_uuid or ""
    ran = cli(
        "assignments",
        "list",
        configuration,
        "--json",
        "--state-in",
        "allocated,errored",
        "--state-in",
        "expired",
    )
    request = served.requests.find("GET", f"/enterprise/v1/assignment-configurations/{configuration}/*")[0]
    assert request.query_value("state__in") == "allocated,errored,expired"
    listed: list[Assignment] = [from_dict(Assignment, orjson.loads(line)) for line in ran.stdout.splitlines()]
    states = {assignment.state for assignment in listed}
    assert states == {"allocated", "errored", "expired"}


def test_remind_reminds_the_assignments(cli: CommandLine, served: Sandbox) -> None:
    configuration = assignable(served).assignment_configuration_uuid or ""
    allocated = next(a for a in served.data.assignments(configuration) if a.state == "allocated")
    ran = cli("assignments", "remind", configuration, "--assignment-uuid", allocated.uuid, "--json")
    assert ran.exit_code == 0
    assert allocated.actions[-1]["action_type"] == "reminded"


def test_cancel_cancels_the_assignments(cli: CommandLine, served: Sandbox) -> None:
    configuration = assignable(served).assignment_configuration_uuid or ""
    allocated = [a for a in served.data.assignments(configuration) if a.state == "allocated"][:2]
    ran = cli(
        "assignments", "cancel", configuration, "--assignment-uuid", ",".join(a.uuid for a in allocated)
    )
    assert ran.exit_code == 0
    assert [assignment.state for assignment in allocated] == ["cancelled", "cancelled"]


def test_subscriptions_list_filters_by_customer(cli: CommandLine, served: Sandbox) -> None:
    customer = served.data.customers[1].uuid
    ran = cli("subscriptions", "list", "--enterprise-customer-uuid", customer, "--json")
    uuids = {orjson.loads(line)["uuid"] for line in ran.stdout.splitlines()}
    assert uuids == {plan.uuid for plan in served.data.plans if plan.customer_uuid == customer}


def test_assign_licenses_reports_each_assignment(cli: CommandLine, served: Sandbox) -> None:
    plan = served.data.plans[0]
    ran = cli(
        "subscriptions", "assign", plan.uuid, "--user-email", "x@example.com", "--user-email", "y@example.com"
    )
    assert ran.exit_code == 0
    assert "2 assigned, 0 already associated" in ran.stdout
    holders = {
        license.user_email for license in served.data.licenses(plan.uuid) if license.status == "assigned"
    }
    assert {"x@example.com", "y@example.com"} <= holders


def test_a_partial_revocation_is_shown_and_exits_3(cli: CommandLine, served: Sandbox) -> None:
    plan = served.data.plans[0]
    cli("subscriptions", "assign", plan.uuid, "--user-email", "r@example.com")
    ran = cli(
        "subscriptions", "revoke", plan.uuid, "--user-email", "r@example.com,nobody@example.com", "--json"
    )
    assert ran.exit_code == 3
    result: BulkRevokeResult = from_dict(BulkRevokeResult, orjson.loads(ran.stdout))
    assert result.partial
    assert [failure.user_email for failure in result.unsuccessful_revocations] == ["nobody@example.com"]
    assert ran.error_lines == ["Error: partial result: 1 revocation failed"]


def test_a_complete_revocation_exits_0(cli: CommandLine, served: Sandbox) -> None:
    plan = served.data.plans[0]
    cli("subscriptions", "assign", plan.uuid, "--user-email", "s@example.com")
    ran = cli("subscriptions", "revoke", plan.uuid, "--filter-email", "s@example.com")
    assert ran.exit_code == 0
    assert "all revocations succeeded" in ran.stdout
    (request,) = served.requests.find(
        "POST", f"/enterprise/v1/subscriptions/{plan.uuid}/licenses/bulk-revoke"
    )
    assert request.json() == {"filters": [{"name": "user_email", "filter_value": "s@example.com"}]}


def test_enroll_prints_the_job_the_server_created(cli: CommandLine, served: Sandbox) -> None:
    customer = served.data.customers[0].uuid
    run_key = served.data.first(served.data.catalogs[0], "courserun")["key"]
    ran = cli(
        "enroll", customer, "--email", "e@example.com", "--course-run-key", run_key, "--no-notify", "--json"
    )
    (job,) = served.data.enrollment_jobs
    assert orjson.loads(ran.stdout)["job_id"] == job.job_id
    assert (job.emails, job.course_run_keys, job.notify) == (("e@example.com",), (run_key,), False)
