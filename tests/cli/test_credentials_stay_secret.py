"""No command prints the client secret or a token: every command, against the embedded sandbox.

(Every other test of this package checks the same through the ``cli`` fixture; this one makes sure
each command is covered, on its success path, with tokens actually issued.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from enterprise_async.testing import Sandbox

from .conftest import CommandLine

WORLD = Sandbox(seed=0).data
CUSTOMER = WORLD.customers[0].uuid
POLICY = next(policy for policy in WORLD.policies if policy.assignment_configuration_uuid)
CONFIGURATION = POLICY.assignment_configuration_uuid or ""
ASSIGNMENT = next(a.uuid for a in WORLD.assignments(CONFIGURATION) if a.state == "allocated")
PLAN = WORLD.plans[0].uuid
HOLDER = next(lic.user_email for lic in WORLD.licenses(PLAN) if lic.status == "assigned" and lic.user_email)
CATALOG = WORLD.catalogs[0].uuid
COURSE = str(WORLD.first(CATALOG, "course")["key"])
RUN = str(WORLD.first(CATALOG, "courserun")["key"])
PROGRAM = str(WORLD.first(CATALOG, "program")["uuid"])
# The course's own price, and notify given: the services refuse another price (enterprise-access
# validate_requested_allocation_price) and an enrollment without notify (license-manager's serializer).
PRICE = str(int(WORLD.first(CATALOG, "course")["course_runs"][0]["first_enrollable_paid_seat_price"]) * 100)

COMMANDS: list[tuple[tuple[str, ...], int]] = [
    (("policies", "list", CUSTOMER), 0),
    (("policies", "list", CUSTOMER, "--json"), 0),
    (("policies", "allocate", POLICY.uuid, "--learner-email", "z@example.com", "--content-key", COURSE,
      "--content-price-cents", PRICE), 0),
    (("assignments", "list", CONFIGURATION), 0),
    (("assignments", "list", CONFIGURATION, "--json"), 0),
    (("assignments", "remind", CONFIGURATION, "--assignment-uuid", ASSIGNMENT), 0),
    (("assignments", "cancel", CONFIGURATION, "--assignment-uuid", ASSIGNMENT, "--json"), 0),
    (("subscriptions", "list"), 0),
    (("subscriptions", "assign", PLAN, "--user-email", "z@example.com"), 0),
    (("subscriptions", "revoke", PLAN, "--user-email", f"{HOLDER},nobody@example.com"), 3),
    (("enroll", CUSTOMER, "--email", "z@example.com", "--course-run-key", RUN, "--no-notify"), 0),
    (("catalogs", "list"), 0),
    (("catalogs", "contents", CATALOG, "--json"), 0),
    (("catalogs", "course", CATALOG, COURSE), 0),
    (("catalogs", "course-run", CATALOG, RUN, "--json"), 0),
    (("catalogs", "program", CATALOG, PROGRAM), 0),
    (("learners", "export", CUSTOMER), 0),
    (("learners", "export", CUSTOMER, "--format", "jsonl"), 0),
    (("catalogs", "course", CATALOG, "NoSuch+Course"), 1),
    (("learner-summary", "list", CUSTOMER), 0),
    (("learner-summary", "list", CUSTOMER, "--json"), 0),
    (("subscriptions", "assign-licenses", PLAN, "--user-email", "z@example.com", "--json"), 0),
    (("subscriptions", "bulk-revoke", PLAN, "--filter", '{"status_in": ["assigned"]}'), 0),
    (("enrollments", "bulk-enroll", CUSTOMER, "--email", "z@example.com", "--course-run-key", RUN,
      "--no-notify"), 0),
]  # fmt: skip


@pytest.mark.usefixtures("no_credentials")
@pytest.mark.parametrize(("args", "exit_code"), COMMANDS, ids=[" ".join(args[:2]) for args, _ in COMMANDS])
def test_no_output_carries_the_secret_or_a_token(
    cli: CommandLine, issued_tokens: list[str], args: tuple[str, ...], exit_code: int
) -> None:
    ran = cli(*args, "--sandbox")
    assert ran.exit_code == exit_code, ran.stderr
    assert issued_tokens, "no token was issued, so the check below would prove nothing"
    cli.assert_no_credentials(ran.stdout + ran.stderr)


@pytest.mark.usefixtures("no_credentials")
def test_no_export_output_carries_the_secret_or_a_token(
    cli: CommandLine, issued_tokens: list[str], tmp_path: Path
) -> None:
    ran = cli("catalogs", "export", "--out", str(tmp_path), "--sandbox")
    assert ran.exit_code == 0
    assert issued_tokens
    cli.assert_no_credentials(ran.stdout + ran.stderr)
