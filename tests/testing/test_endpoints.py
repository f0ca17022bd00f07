"""The endpoints' states, transitions, filters and validation, over raw HTTP."""

from __future__ import annotations

import uuid

import aiohttp

from enterprise_async.testing import AssignmentRecord, Sandbox

from .conftest import RawAPI

POLICIES = "/enterprise/v1/subsidy-access-policies/"
SUBSCRIPTIONS = "/enterprise/v1/subscriptions"
ENROLL = "/enterprise/v1/bulk-license-enrollment"
CATALOGS = "/enterprise/v2/enterprise-catalogs"


def _allocate(policy: str) -> str:
    return f"/enterprise/v1/policy-allocation/{policy}/allocate/"


def _assignments(configuration: str, action: str = "") -> str:
    return f"/enterprise/v1/assignment-configurations/{configuration}/admin/assignments/{action}"


def _licenses(plan: str, action: str) -> str:
    return f"/enterprise/v1/subscriptions/{plan}/licenses/{action}"


def _assignable(sandbox: Sandbox) -> tuple[str, str]:
    policy = next(policy for policy in sandbox.data.policies if policy.assignment_configuration_uuid)
    assert policy.assignment_configuration_uuid is not None
    return policy.uuid, policy.assignment_configuration_uuid


def _in_state(sandbox: Sandbox, configuration: str, state: str) -> AssignmentRecord:
    return next(record for record in sandbox.data.assignments(configuration) if record.state == state)


# ---------------------------------------------------------------------------------- allocate


async def test_allocate_creates_an_assignment_for_a_new_learner(api: RawAPI, sandbox: Sandbox) -> None:
    policy, configuration = _assignable(sandbox)
    course = sandbox.data.first(sandbox.data.policy(policy).catalog_uuid, "course")  # type: ignore[union-attr]
    body = {
        "learner_emails": ["new.learner@example.com"],
        "content_key": course["key"],
        "content_price_cents": 14900,
    }
    answer = await api.post(_allocate(policy), json=body)
    assert answer.status == 202
    (created,) = answer.data["created"]
    assert (answer.data["updated"], answer.data["no_change"]) == ([], [])
    assert created["state"] == "allocated"
    assert created["learner_state"] == "notifying"
    assert created["content_quantity"] == -14900
    assert created["content_title"] == course["title"]
    assert created["lms_user_id"] is None
    assert created["assignment_configuration"] == configuration


async def test_allocate_reports_an_already_allocated_learner_under_no_change(
    api: RawAPI, sandbox: Sandbox
) -> None:
    policy, configuration = _assignable(sandbox)
    existing = _in_state(sandbox, configuration, "allocated")
    body = {
        "learner_emails": [existing.learner_email],
        "content_key": existing.content_key,
        "content_price_cents": 100,
    }
    answer = await api.post(_allocate(policy), json=body)
    assert answer.status == 202
    assert [record["uuid"] for record in answer.data["no_change"]] == [existing.uuid]
    assert answer.data["created"] == answer.data["updated"] == []


async def test_allocate_updates_a_cancelled_assignment_back_to_allocated(
    api: RawAPI, sandbox: Sandbox
) -> None:
    policy, configuration = _assignable(sandbox)
    cancelled = _in_state(sandbox, configuration, "cancelled")
    body = {
        "learner_emails": [cancelled.learner_email],
        "content_key": cancelled.content_key,
        "content_price_cents": 500,
    }
    answer = await api.post(_allocate(policy), json=body)
    (updated,) = answer.data["updated"]
    assert updated["uuid"] == cancelled.uuid
    assert updated["state"] == "allocated"
    assert updated["content_quantity"] == -500


async def test_allocate_sorts_a_mixed_request_into_its_three_outcomes(api: RawAPI, sandbox: Sandbox) -> None:
    policy, configuration = _assignable(sandbox)
    expired = _in_state(sandbox, configuration, "cancelled")
    key = expired.content_key
    first = {"learner_emails": ["already@example.com"], "content_key": key, "content_price_cents": 100}
    await api.post(_allocate(policy), json=first)
    emails = [expired.learner_email, "already@example.com", "fresh@example.com"]
    body = {"learner_emails": emails, "content_key": key, "content_price_cents": 100}
    data = (await api.post(_allocate(policy), json=body)).data
    assert [record["learner_email"] for record in data["updated"]] == [expired.learner_email]
    assert [record["learner_email"] for record in data["no_change"]] == ["already@example.com"]
    assert [record["learner_email"] for record in data["created"]] == ["fresh@example.com"]


async def test_allocate_refuses_a_negative_price(api: RawAPI, sandbox: Sandbox) -> None:
    policy, _ = _assignable(sandbox)
    body = {"learner_emails": ["a@example.com"], "content_key": "MITx+CS.0.0x", "content_price_cents": -1}
    answer = await api.post(_allocate(policy), json=body)
    assert answer.status == 400
    assert answer.data == {"content_price_cents": ["Ensure this value is greater than or equal to 0."]}


async def test_allocate_refuses_a_price_sent_as_a_string(api: RawAPI, sandbox: Sandbox) -> None:
    policy, _ = _assignable(sandbox)
    body = {"learner_emails": ["a@example.com"], "content_key": "MITx+CS.0.0x", "content_price_cents": "100"}
    assert (await api.post(_allocate(policy), json=body)).status == 400


async def test_allocate_refuses_unknown_fields(api: RawAPI, sandbox: Sandbox) -> None:
    policy, _ = _assignable(sandbox)
    body = {"learner_emails": ["a@example.com"], "content_key": "k", "content_price_cents": 1, "note": "x"}
    answer = await api.post(_allocate(policy), json=body)
    assert answer.status == 400
    assert "note" in answer.data


async def test_allocate_to_an_unknown_policy_answers_404(api: RawAPI) -> None:
    body = {"learner_emails": ["a@example.com"], "content_key": "k", "content_price_cents": 1}
    assert (await api.post(_allocate(str(uuid.uuid4())), json=body)).status == 404


async def test_allocate_to_a_policy_without_assignments_answers_400(api: RawAPI, sandbox: Sandbox) -> None:
    direct = next(policy for policy in sandbox.data.policies if policy.assignment_configuration_uuid is None)
    body = {"learner_emails": ["a@example.com"], "content_key": "k", "content_price_cents": 1}
    assert (await api.post(_allocate(direct.uuid), json=body)).status == 400


async def test_allocated_spend_shows_in_the_policy_aggregates(api: RawAPI, sandbox: Sandbox) -> None:
    policy, _ = _assignable(sandbox)
    customer = sandbox.data.policy(policy).customer_uuid  # type: ignore[union-attr]

    async def allocated_cents() -> int:
        body = (await api.get(POLICIES, params={"enterprise_customer_uuid": customer})).data
        found = next(item for item in body["results"] if item["uuid"] == policy)
        return int(found["aggregates"]["amount_allocated_usd_cents"])

    before = await allocated_cents()
    body = {
        "learner_emails": ["spender@example.com"],
        "content_key": "MITx+CS.0.1x",
        "content_price_cents": 2500,
    }
    await api.post(_allocate(policy), json=body)
    assert await allocated_cents() == before + 2500


# ---------------------------------------------------------------------------------- policies


async def test_policy_list_requires_the_customer(api: RawAPI) -> None:
    answer = await api.get(POLICIES)
    assert answer.status == 400
    assert "enterprise_customer_uuid" in answer.data


async def test_policy_list_refuses_a_blank_customer(api: RawAPI) -> None:
    answer = await api.get(POLICIES, params={"enterprise_customer_uuid": ""})
    assert answer.status == 400
    assert answer.data == {"enterprise_customer_uuid": ["This field may not be blank."]}


async def test_policy_list_holds_only_the_customers_policies(api: RawAPI, sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[1].uuid
    body = (await api.get(POLICIES, params={"enterprise_customer_uuid": customer})).data
    assert {policy["enterprise_customer_uuid"] for policy in body["results"]} == {customer}


async def test_policy_list_filters_by_active(api: RawAPI, sandbox: Sandbox) -> None:
    params = {"enterprise_customer_uuid": sandbox.data.customers[0].uuid, "active": "false"}
    body = (await api.get(POLICIES, params=params)).data
    assert body["count"] == 1
    assert body["results"][0]["active"] is False


async def test_policy_list_filters_by_policy_type(api: RawAPI, sandbox: Sandbox) -> None:
    params = {
        "enterprise_customer_uuid": sandbox.data.customers[0].uuid,
        "policy_type": "PerLearnerSpendCreditAccessPolicy",
    }
    body = (await api.get(POLICIES, params=params)).data
    assert [policy["policy_type"] for policy in body["results"]] == ["PerLearnerSpendCreditAccessPolicy"]


# ---------------------------------------------------------------------------------- assignments


async def test_assignments_come_in_every_state_and_learner_state(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    body = (await api.get(_assignments(configuration), params={"page_size": "100"})).data
    states = {record["state"] for record in body["results"]}
    learner_states = {record["learner_state"] for record in body["results"]} - {None}
    assert states == {"allocated", "accepted", "cancelled", "errored", "expired", "reversed"}
    assert learner_states == {"notifying", "waiting", "failed", "expired"}


async def test_learner_state_counts_count_the_filtered_assignments(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    body = (await api.get(_assignments(configuration), params={"state": "allocated"})).data
    expected = {"notifying": 0, "waiting": 0}
    for record in sandbox.data.assignments(configuration):
        if record.state == "allocated" and record.learner_state:
            expected[record.learner_state] += 1
    assert {row["learner_state"]: row["count"] for row in body["learner_state_counts"]} == expected


async def test_in_filters_arrive_as_one_comma_separated_value(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    params = {"state__in": "cancelled,reversed", "page_size": "100"}
    body = (await api.get(_assignments(configuration), params=params)).data
    assert {record["state"] for record in body["results"]} == {"cancelled", "reversed"}
    expected = sum(
        record.state in ("cancelled", "reversed") for record in sandbox.data.assignments(configuration)
    )
    assert body["count"] == expected


async def test_learner_email_in_filter_selects_those_learners(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    emails = sorted({r.learner_email for r in sandbox.data.assignments(configuration) if r.learner_email})[:2]
    body = (await api.get(_assignments(configuration), params={"learner_email__in": ",".join(emails)})).data
    assert {record["learner_email"] for record in body["results"]} == set(emails)


async def test_lms_user_id_filter_selects_one_learner(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    target = next(record for record in sandbox.data.assignments(configuration) if record.lms_user_id)
    body = (await api.get(_assignments(configuration), params={"lms_user_id": str(target.lms_user_id)})).data
    assert body["count"] >= 1
    assert {record["lms_user_id"] for record in body["results"]} == {target.lms_user_id}


async def test_lms_user_id_filter_refuses_text(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    assert (await api.get(_assignments(configuration), params={"lms_user_id": "abc"})).status == 400


async def test_content_key_in_and_learner_state_in_combine(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    keys = sorted({record.content_key for record in sandbox.data.assignments(configuration)})[:3]
    params = {"content_key__in": ",".join(keys), "learner_state__in": "failed,waiting", "page_size": "100"}
    body = (await api.get(_assignments(configuration), params=params)).data
    for record in body["results"]:
        assert record["content_key"] in keys
        assert record["learner_state"] in ("failed", "waiting")


async def test_search_matches_the_learner_email(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    target = next(record for record in sandbox.data.assignments(configuration) if record.learner_email)
    assert target.learner_email is not None
    needle = target.learner_email.split("@")[0].upper()
    body = (await api.get(_assignments(configuration), params={"search": needle, "page_size": "100"})).data
    assert target.uuid in {record["uuid"] for record in body["results"]}
    assert all(needle.lower() in (record["learner_email"] or "") for record in body["results"])


async def test_ordering_sorts_by_a_field_descending(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    body = (
        await api.get(
            _assignments(configuration), params={"ordering": "-content_quantity", "page_size": "100"}
        )
    ).data
    quantities = [record["content_quantity"] for record in body["results"]]
    assert quantities == sorted(quantities, reverse=True)


async def test_assignments_of_an_unknown_configuration_answer_404(api: RawAPI) -> None:
    assert (await api.get(_assignments(str(uuid.uuid4())))).status == 404


async def test_remind_moves_an_allocated_assignment_to_waiting(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    notifying = next(r for r in sandbox.data.assignments(configuration) if r.learner_state == "notifying")
    answer = await api.post(
        _assignments(configuration, "remind/"), json={"assignment_uuids": [notifying.uuid]}
    )
    assert (answer.status, answer.raw) == (200, b"")
    assert notifying.learner_state == "waiting"
    assert notifying.actions[-1]["action_type"] == "reminded"


async def test_remind_of_an_accepted_assignment_answers_an_empty_422(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    accepted = _in_state(sandbox, configuration, "accepted")
    actions = len(accepted.actions)
    answer = await api.post(
        _assignments(configuration, "remind/"), json={"assignment_uuids": [accepted.uuid]}
    )
    assert (answer.status, answer.raw) == (422, b"")
    assert len(accepted.actions) == actions


async def test_cancel_cancels_allocated_and_errored_assignments(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    allocated = _in_state(sandbox, configuration, "allocated")
    errored = _in_state(sandbox, configuration, "errored")
    uuids = [allocated.uuid, errored.uuid]
    answer = await api.post(_assignments(configuration, "cancel/"), json={"assignment_uuids": uuids})
    assert (answer.status, answer.raw) == (200, b"")
    assert (allocated.state, allocated.learner_state) == ("cancelled", None)
    assert errored.state == "cancelled"


async def test_cancel_of_accepted_and_foreign_assignments_answers_422(api: RawAPI, sandbox: Sandbox) -> None:
    first, second = sandbox.data.assignment_configurations[:2]
    accepted = _in_state(sandbox, first, "accepted")
    foreign = _in_state(sandbox, second, "allocated")
    answer = await api.post(
        _assignments(first, "cancel/"), json={"assignment_uuids": [accepted.uuid, foreign.uuid]}
    )
    assert (answer.status, answer.raw) == (422, b"")
    assert (accepted.state, foreign.state) == ("accepted", "allocated")


async def test_cancel_refuses_a_malformed_uuid(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    answer = await api.post(_assignments(configuration, "cancel/"), json={"assignment_uuids": ["nope"]})
    assert answer.status == 400


async def test_cancel_refuses_an_empty_list(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    assert (
        await api.post(_assignments(configuration, "cancel/"), json={"assignment_uuids": []})
    ).status == 400


# ---------------------------------------------------------------------------------- subscriptions


async def test_subscription_list_filters_by_customer(api: RawAPI, sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[2].uuid
    body = (await api.get(SUBSCRIPTIONS, params={"enterprise_customer_uuid": customer})).data
    assert body["count"] == 2
    assert {plan["enterprise_customer_uuid"] for plan in body["results"]} == {customer}


async def test_current_filter_returns_the_active_plan(api: RawAPI, sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[0].uuid
    body = (
        await api.get(SUBSCRIPTIONS, params={"enterprise_customer_uuid": customer, "current": "true"})
    ).data
    (plan,) = body["results"]
    assert plan["is_active"] is True
    assert plan["days_until_expiration"] > 0


async def test_plans_carry_both_revocation_shapes(api: RawAPI, sandbox: Sandbox) -> None:
    """The reference's counters (total, used) beside the service's (applied, remaining), which every
    plan carries: license-manager's get_revocations always sends them."""
    body = (await api.get(SUBSCRIPTIONS, params={"page_size": "10"})).data
    shapes = {tuple(sorted(plan["revocations"])) for plan in body["results"]}
    assert shapes == {("applied", "remaining", "total", "used"), ("applied", "remaining")}


async def test_licenses_come_in_every_status(sandbox: Sandbox) -> None:
    statuses = {license.status for license in sandbox.data.licenses(sandbox.data.plans[0].uuid)}
    assert statuses == {"activated", "assigned", "unassigned", "revoked"}


async def test_assign_licenses_counts_users_already_associated(api: RawAPI, sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[0]
    holder = next(license for license in sandbox.data.licenses(plan.uuid) if license.status == "activated")
    body = {"user_emails": [holder.user_email, "newcomer@example.com"], "notify_users": False}
    answer = await api.post(_licenses(plan.uuid, "assign"), json=body)
    assert answer.status == 200
    assert (answer.data["num_successful_assignments"], answer.data["num_already_associated"]) == (1, 1)
    (assignment,) = answer.data["license_assignments"]
    assert assignment["user_email"] == "newcomer@example.com"
    license = next(item for item in sandbox.data.licenses(plan.uuid) if item.uuid == assignment["license"])
    assert license.status == "assigned"


async def test_assign_licenses_shows_in_the_plan_counters(api: RawAPI, sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[0]
    before = sandbox.data.plan_wire(plan)["licenses"]
    await api.post(_licenses(plan.uuid, "assign"), json={"user_emails": ["x1@example.com", "x2@example.com"]})
    after = sandbox.data.plan_wire(plan)["licenses"]
    assert after["assigned"] == before["assigned"] + 2
    assert after["unassigned"] == before["unassigned"] - 2


async def test_assign_licenses_beyond_the_unassigned_ones_answers_400(api: RawAPI, sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[0]
    free = sum(license.status == "unassigned" for license in sandbox.data.licenses(plan.uuid))
    emails = [f"many{number}@example.com" for number in range(free + 1)]
    answer = await api.post(_licenses(plan.uuid, "assign"), json={"user_emails": emails})
    assert answer.status == 400
    assert sum(license.status == "unassigned" for license in sandbox.data.licenses(plan.uuid)) == free


async def test_bulk_revoke_by_email_answers_200_with_original_status(api: RawAPI, sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[0]
    license = next(item for item in sandbox.data.licenses(plan.uuid) if item.status == "assigned")
    answer = await api.post(_licenses(plan.uuid, "bulk-revoke"), json={"user_emails": [license.user_email]})
    assert answer.status == 200
    assert answer.data == {
        "successful_revocations": [
            {"license_uuid": license.uuid, "original_status": "assigned", "user_email": license.user_email}
        ],
        "unsuccessful_revocations": [],
    }
    assert license.status == "revoked"


async def test_bulk_revoke_partly_failing_answers_207(api: RawAPI, sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[0]
    license = next(item for item in sandbox.data.licenses(plan.uuid) if item.status == "activated")
    emails = [license.user_email, "stranger@example.com"]
    answer = await api.post(_licenses(plan.uuid, "bulk-revoke"), json={"user_emails": emails})
    assert answer.status == 207
    assert [item["original_status"] for item in answer.data["successful_revocations"]] == ["activated"]
    (failure,) = answer.data["unsuccessful_revocations"]
    assert (failure["user_email"], failure["error_response_status"]) == ("stranger@example.com", 404)


async def test_bulk_revoke_of_an_unknown_email_answers_404_with_the_result(
    api: RawAPI, sandbox: Sandbox
) -> None:
    plan = sandbox.data.plans[0]
    answer = await api.post(_licenses(plan.uuid, "bulk-revoke"), json={"user_emails": ["nobody@example.com"]})
    assert answer.status == 404
    # license-manager's bulk_revoke answers only the errors when nothing was revoked
    assert "successful_revocations" not in answer.data
    assert "nobody@example.com" in answer.data["unsuccessful_revocations"][0]["error"]


async def test_bulk_revoke_of_a_revoked_license_answers_404(api: RawAPI, sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[0]
    revoked = next(item for item in sandbox.data.licenses(plan.uuid) if item.status == "revoked")
    answer = await api.post(_licenses(plan.uuid, "bulk-revoke"), json={"user_emails": [revoked.user_email]})
    assert answer.status == 404


async def test_bulk_revoke_with_emails_and_filters_answers_400(api: RawAPI, sandbox: Sandbox) -> None:
    body = {
        "user_emails": ["a@example.com"],
        "filters": [{"name": "status_in", "filter_value": ["assigned"]}],
    }
    answer = await api.post(_licenses(sandbox.data.plans[0].uuid, "bulk-revoke"), json=body)
    assert answer.status == 400


async def test_bulk_revoke_filters_in_the_reference_form_answer_400_malformed(
    api: RawAPI, sandbox: Sandbox
) -> None:
    body = {"filters": [{"status_in": ["assigned"]}]}
    answer = await api.post(_licenses(sandbox.data.plans[1].uuid, "bulk-revoke"), json=body)
    assert answer.status == 400
    assert answer.data == {
        "non_field_errors": ["Malformed filters, supported filters are ['user_email', 'status_in']."]
    }


async def test_bulk_revoke_with_neither_answers_400(api: RawAPI, sandbox: Sandbox) -> None:
    assert (await api.post(_licenses(sandbox.data.plans[0].uuid, "bulk-revoke"), json={})).status == 400


async def test_bulk_revoke_by_status_filter_revokes_those_licenses(api: RawAPI, sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[1]  # no revocation cap
    assigned = [item.uuid for item in sandbox.data.licenses(plan.uuid) if item.status == "assigned"]
    answer = await api.post(
        _licenses(plan.uuid, "bulk-revoke"),
        json={"filters": [{"name": "status_in", "filter_value": ["assigned"]}]},
    )
    assert answer.status == 200
    assert [item["license_uuid"] for item in answer.data["successful_revocations"]] == assigned


async def test_bulk_revoke_beyond_the_revocation_cap_revokes_nothing(api: RawAPI, sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[0]
    wire = sandbox.data.plan_wire(plan)
    remaining = wire["revocations"]["remaining"]
    holders = [
        item.user_email
        for item in sandbox.data.licenses(plan.uuid)
        if item.status in ("assigned", "activated")
    ]
    emails = holders[: remaining + 1]
    assert len(emails) == remaining + 1
    answer = await api.post(_licenses(plan.uuid, "bulk-revoke"), json={"user_emails": emails})
    assert answer.status == 400
    assert answer.data == {
        "unsuccessful_revocations": [{"error": "Plan does not have enough revocations remaining."}]
    }
    assert sandbox.data.plan_wire(plan)["revocations"]["remaining"] == remaining


async def test_bulk_revoke_on_an_unknown_plan_answers_404(api: RawAPI) -> None:
    answer = await api.post(
        _licenses(str(uuid.uuid4()), "bulk-revoke"), json={"user_emails": ["a@example.com"]}
    )
    assert answer.status == 404


# ---------------------------------------------------------------------------------- enrollment


async def test_bulk_enrollment_answers_201_with_a_uuid4_job(api: RawAPI, sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[0].uuid
    body = {"emails": ["a@example.com"], "course_run_keys": ["course-v1:MITx+CS.0.0x+1T2026"], "notify": True}
    answer = await api.post(ENROLL, params={"enterprise_customer_uuid": customer}, json=body)
    assert answer.status == 201
    assert uuid.UUID(answer.data["job_id"]).version == 4
    assert sandbox.data.enrollment_jobs[-1].job_id == answer.data["job_id"]


async def test_bulk_enrollment_of_exactly_1000_enrollments_is_accepted(api: RawAPI, sandbox: Sandbox) -> None:
    body = {"emails": [f"l{number}@example.com" for number in range(500)], "course_run_keys": ["k1", "k2"]}
    params = {"enterprise_customer_uuid": sandbox.data.customers[0].uuid}
    assert (await api.post(ENROLL, params=params, json=body)).status == 201


async def test_bulk_enrollment_over_1000_enrollments_answers_400(api: RawAPI, sandbox: Sandbox) -> None:
    body = {"emails": [f"l{number}@example.com" for number in range(101)], "course_run_keys": ["k"] * 10}
    params = {"enterprise_customer_uuid": sandbox.data.customers[0].uuid}
    answer = await api.post(ENROLL, params=params, json=body)
    assert answer.status == 400
    assert answer.data == "Too many provided enrollments, please try a smaller request."


async def test_bulk_enrollment_needs_the_customer(api: RawAPI) -> None:
    body = {"emails": ["a@example.com"], "course_run_keys": ["k"]}
    assert (await api.post(ENROLL, json=body)).status == 400


# ---------------------------------------------------------------------------------- catalogs


async def test_catalog_item_of_another_catalog_answers_404(api: RawAPI, sandbox: Sandbox) -> None:
    first, second = sandbox.data.catalogs[:2]
    course = sandbox.data.first(first, "course")
    assert (await api.get(f"{CATALOGS}/{first.uuid}/courses/{course['key']}")).status == 200
    assert (await api.get(f"{CATALOGS}/{second.uuid}/courses/{course['key']}")).status == 404


async def test_course_run_is_found_standalone_and_nested(api: RawAPI, sandbox: Sandbox) -> None:
    catalog = sandbox.data.catalogs[0]
    standalone = sandbox.data.first(catalog, "courserun")
    nested = sandbox.data.first(catalog, "course")["course_runs"][1]
    for run in (standalone, nested):
        answer = await api.get(f"{CATALOGS}/{catalog.uuid}/course-runs/{run['key']}")
        assert answer.data == run


async def test_program_is_found_by_uuid_in_its_catalog_only(api: RawAPI, sandbox: Sandbox) -> None:
    first, second = sandbox.data.catalogs[:2]
    program = sandbox.data.first(first, "program")
    assert (await api.get(f"{CATALOGS}/{first.uuid}/programs/{program['uuid']}")).data == program
    assert (await api.get(f"{CATALOGS}/{second.uuid}/programs/{program['uuid']}")).status == 404


async def test_unknown_catalog_answers_404(api: RawAPI) -> None:
    assert (await api.get(f"{CATALOGS}/{uuid.uuid4()}")).status == 404


async def test_flat_shape_names_the_catalog_and_types_each_item(session: aiohttp.ClientSession) -> None:
    async with Sandbox(catalog_shape="flat") as sandbox:
        catalog = sandbox.data.catalogs[0]
        body = (await RawAPI(sandbox, session).get(f"{CATALOGS}/{catalog.uuid}")).data
    assert (body["uuid"], body["title"], body["enterprise_customer"]) == (
        catalog.uuid,
        catalog.title,
        catalog.customer_uuid,
    )
    assert [item["content_type"] for item in body["results"][:10]] == ["course"] * 7 + ["courserun"] * 2 + [
        "program"
    ]


# ---------------------------------------------------------------------------------- learner summary


async def test_learner_summary_is_sorted_by_last_activity_by_default(api: RawAPI, sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[0].uuid
    body = (
        await api.get(
            f"/enterprise/v3/enterprise-customer/{customer}/learner-summary", params={"page_size": "100"}
        )
    ).data
    dates = [row["last_activity_date"] for row in body["results"]]
    assert dates == sorted(dates)


async def test_learner_summary_orders_by_another_field(api: RawAPI, sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[0].uuid
    path = f"/enterprise/v3/enterprise-customer/{customer}/learner-summary"
    body = (await api.get(path, params={"ordering": "-enrollment_id", "page_size": "100"})).data
    ids = [row["enrollment_id"] for row in body["results"]]
    assert ids == sorted(ids, reverse=True)


async def test_learner_summary_ignores_an_unknown_ordering(api: RawAPI, sandbox: Sandbox) -> None:
    path = f"/enterprise/v3/enterprise-customer/{sandbox.data.customers[0].uuid}/learner-summary"
    body = (await api.get(path, params={"ordering": "shoe_size", "page_size": "100"})).data
    dates = [row["last_activity_date"] for row in body["results"]]
    assert dates == sorted(dates)


async def test_learner_summary_can_be_a_plain_list(session: aiohttp.ClientSession) -> None:
    async with Sandbox(learner_summary="list") as sandbox:
        customer = sandbox.data.customers[0].uuid
        body = (
            await RawAPI(sandbox, session).get(
                f"/enterprise/v3/enterprise-customer/{customer}/learner-summary"
            )
        ).data
    assert isinstance(body, list)
    assert len(body) == 30


async def test_learner_summary_of_an_unknown_customer_answers_404(api: RawAPI) -> None:
    assert (await api.get(f"/enterprise/v3/enterprise-customer/{uuid.uuid4()}/learner-summary")).status == 404
