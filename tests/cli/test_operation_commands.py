"""The commands generated from the operation table: one per operation, typed from its rules,
validated as the client validates, and built for any table, not only this SDK's."""

from __future__ import annotations

from typing import Any

import click
import orjson
import pytest

from enterprise_async._generated.operations import OPERATIONS
from enterprise_async._spec import Operation, Outcome, Param, Rule
from enterprise_async.cli import cli as command_line
from enterprise_async.cli._app import build_cli
from enterprise_async.cli._operation_options import option_name, spec_arguments
from enterprise_async.cli._presentation import Presentation
from enterprise_async.models import LearnerState, LicenseStatus
from enterprise_async.testing import PolicyRecord, Sandbox

from .conftest import CommandLine

WIDGETS_POLISH: Operation[Any] = Operation(
    name="widgets.polish_all",
    method="POST",
    path="/enterprise/v9/widgets/{widget_id}/polish",
    params=(
        Param("widget_id", "path", Rule("integer", minimum=1), required=True),
        Param("finish", "query", Rule("string", enum=LearnerState)),
    ),
    body=Rule(
        "object",
        properties={
            "coats": Rule("array", min_items=1, items=Rule("integer", minimum=1)),
            "glossy": Rule("boolean"),
            "recipe": Rule("object", properties={"wax": Rule("string")}, closed=True),
            "ratio": Rule("number", maximum=1),
        },
        required=frozenset({"coats"}),
        closed=True,
    ),
    outcomes={200: Outcome(200, None)},
    summary="Polish a widget.",
    descriptions={"coats": "How many coats, layer by layer."},
)
"""An operation this SDK does not have, as a spec edit would add it to the table."""


def lookup(root: click.Group, *names: str) -> click.Command | None:
    command: click.Command | None = root
    context = click.Context(root)
    for name in names:
        command = command.get_command(context, name) if isinstance(command, click.Group) else None
    return command


def assignable(sandbox: Sandbox) -> PolicyRecord:
    return next(policy for policy in sandbox.data.policies if policy.assignment_configuration_uuid)


def assert_one_error_line(ran_stderr: str, *fragments: str) -> None:
    (line,) = ran_stderr.splitlines()
    assert line.startswith("Error: ")
    for fragment in fragments:
        assert fragment in line


@pytest.mark.parametrize("operation", OPERATIONS.values(), ids=list(OPERATIONS))
def test_every_operation_of_the_table_has_a_command_with_every_argument(operation: Operation[Any]) -> None:
    resource, method = operation.name.split(".", 1)
    command = lookup(command_line, option_name(resource), option_name(method))
    assert command is not None, f"no command for {operation.name}"
    destinations = {parameter.name for parameter in command.params}
    assert {argument.dest for argument in spec_arguments(operation)} <= destinations


@pytest.mark.parametrize("operation", OPERATIONS.values(), ids=list(OPERATIONS))
def test_every_command_answers_to_the_spec_spelling_too(operation: Operation[Any]) -> None:
    resource, method = operation.name.split(".", 1)
    assert lookup(command_line, resource, method) is lookup(
        command_line, option_name(resource), option_name(method)
    )


def test_help_shows_the_summary_descriptions_and_the_values_a_closed_enum_accepts(cli: CommandLine) -> None:
    ran = cli("assignments", "list", "--help")
    assert ran.exit_code == 0
    assert OPERATIONS["assignments.list"].summary in " ".join(ran.stdout.split())
    for state in LearnerState:
        assert state.value in ran.stdout
    assert "others are passed on" not in ran.stdout
    assert "values the service accepts" in " ".join(ran.stdout.split())


def test_integer_options_are_sent_as_integers(cli: CommandLine, served: Sandbox) -> None:
    configuration = assignable(served).assignment_configuration_uuid or ""
    ran = cli("assignments", "list", configuration, "--lms-user-id", "7", "--page-size", "3", "--json")
    assert ran.exit_code == 0
    (request, *_) = served.requests.find("GET", f"/enterprise/v1/assignment-configurations/{configuration}/*")
    assert (request.query_value("lms_user_id"), request.query_value("page_size")) == ("7", "3")


def test_a_non_integer_is_a_usage_error_before_any_request(cli: CommandLine, served: Sandbox) -> None:
    configuration = assignable(served).assignment_configuration_uuid or ""
    ran = cli("assignments", "list", configuration, "--lms-user-id", "seven")
    assert ran.exit_code == 2
    assert "--lms-user-id" in ran.stderr
    assert served.requests.find("GET", "/enterprise/v1/*") == []


def test_boolean_flags_send_false_and_true(cli: CommandLine, served: Sandbox) -> None:
    sent = []
    for flag in ("--no-current", "--current"):
        served.requests.clear()
        cli("subscriptions", "list", flag, "--json")
        sent.append(served.requests.find("GET", "/enterprise/v1/subscriptions")[0].query_value("current"))
    assert sent == ["false", "true"]


def test_array_options_take_repeats_commas_and_the_singular_name(cli: CommandLine, served: Sandbox) -> None:
    customer = served.data.customers[0].uuid
    run_key = served.data.first(served.data.catalogs[0], "courserun")["key"]
    ran = cli(
        "enrollments", "bulk-enroll", customer,
        "--emails", "a@example.com,b@example.com", "--email", "c@example.com",
        "--course-run-keys", run_key, "--notify", "--json",
    )  # fmt: skip
    assert ran.exit_code == 0, ran.stderr
    (request,) = served.requests.find("POST", "/enterprise/v1/bulk-license-enrollment")
    assert request.json() == {
        "emails": ["a@example.com", "b@example.com", "c@example.com"],
        "course_run_keys": [run_key],
        "notify": True,
    }


@pytest.mark.parametrize(
    "option",
    [
        ("--learner-state", "waitng"),
        ("--learner-state-in", "waiting,hibernating"),
        ("--state", "canceled"),
        ("--state-in", "allocated", "--state-in", "canceled"),
        ("--ordering", "bogus"),
    ],
    ids=lambda option: option[0],
)
def test_a_value_a_closed_enum_does_not_accept_is_a_usage_error_and_nothing_is_sent(
    cli: CommandLine, served: Sandbox, option: tuple[str, ...]
) -> None:
    configuration = assignable(served).assignment_configuration_uuid or ""
    ran = cli("assignments", "list", configuration, *option, "--json")
    assert ran.exit_code == 2, ran.stdout + ran.stderr
    assert f"{option[-1].split(',')[-1]!r} is not one of" in ran.stderr
    assert served.requests.find("GET", f"/enterprise/v1/assignment-configurations/{configuration}/*") == []


def test_json_object_options_reach_the_body(cli: CommandLine, served: Sandbox) -> None:
    plan = served.data.plans[0]
    holder = next(lic.user_email for lic in served.data.licenses(plan.uuid) if lic.status == "assigned")
    ran = cli(
        "subscriptions", "bulk-revoke", plan.uuid,
        "--filter", orjson.dumps({"user_email": holder}).decode(),
        "--filters", orjson.dumps([{"status_in": [LicenseStatus.UNASSIGNED.value]}]).decode(),
        "--json",
    )  # fmt: skip
    assert ran.exit_code in (0, 3), ran.stderr
    (request,) = served.requests.find("POST", f"/enterprise/v1/subscriptions/{plan.uuid}/*")
    assert request.json() == {  # sent in the form the service reads
        "filters": [
            {"name": "user_email", "filter_value": holder},
            {"name": "status_in", "filter_value": ["unassigned"]},
        ]
    }


def test_malformed_json_is_a_usage_error_before_any_request(cli: CommandLine, served: Sandbox) -> None:
    plan = served.data.plans[0]
    ran = cli("subscriptions", "bulk-revoke", plan.uuid, "--filter", "{user_email: nobody}")
    assert ran.exit_code == 2
    assert "--filter" in ran.stderr
    assert served.requests.find("POST") == []


def test_a_rule_of_a_json_object_is_checked_before_sending(cli: CommandLine, served: Sandbox) -> None:
    plan = served.data.plans[0]
    both = orjson.dumps({"user_email": "a@example.com", "status_in": ["assigned"]}).decode()
    ran = cli("subscriptions", "bulk-revoke", plan.uuid, "--filter", both)
    assert ran.exit_code == 2
    assert_one_error_line(ran.stderr, "invalid input", "filters[0]", "--filters")
    assert served.requests.find("POST") == []


def test_a_missing_required_field_is_the_clients_error_naming_the_option(
    cli: CommandLine, served: Sandbox
) -> None:
    policy = assignable(served)
    ran = cli("policies", "allocate", policy.uuid, "--learner-email", "a@example.com", "--content-key", "k")
    assert ran.exit_code == 2
    assert_one_error_line(ran.stderr, "content_price_cents", "is required", "--content-price-cents")
    assert served.requests.find("POST") == []


def test_a_bad_path_argument_is_refused_before_sending(cli: CommandLine, served: Sandbox) -> None:
    ran = cli("subscriptions", "assign-licenses", "not-a-uuid", "--user-email", "a@example.com")
    assert ran.exit_code == 2
    assert_one_error_line(ran.stderr, "invalid input", "not-a-uuid", "SUBSCRIPTION_PLAN_UUID")
    assert served.requests.find("POST") == []


def test_a_partial_result_of_a_generated_command_exits_3(cli: CommandLine, served: Sandbox) -> None:
    plan = served.data.plans[0]
    holder = next(lic.user_email for lic in served.data.licenses(plan.uuid) if lic.status == "assigned")
    ran = cli("subscriptions", "bulk-revoke", plan.uuid, "--user-email", f"{holder},nobody@example.com")
    assert ran.exit_code == 3
    assert "partial result" in ran.stdout
    assert_one_error_line(ran.stderr, "partial result")


def test_learner_summary_list_streams_every_row(cli: CommandLine, served: Sandbox) -> None:
    customer = served.data.customers[0].uuid
    ran = cli("learner-summary", "list", customer, "--json")
    assert ran.exit_code == 0, ran.stderr
    assert len(ran.stdout.splitlines()) == len(served.data.summaries(customer))


def test_a_listing_without_a_view_is_a_generic_table(cli: CommandLine, served: Sandbox) -> None:
    without_views = build_cli(OPERATIONS.values(), presentation=Presentation())
    customer = served.data.customers[0].uuid
    ran = cli.invoke(without_views, "learner_summary", "list", customer, "--max-items", "2")
    assert ran.exit_code == 0, ran.stderr
    assert "learner_summary.list" in ran.stdout
    assert "2 items" in ran.stdout


def test_a_result_without_a_view_shows_its_fields(cli: CommandLine, served: Sandbox) -> None:
    without_views = build_cli(OPERATIONS.values(), presentation=Presentation())
    catalog = served.data.catalogs[0]
    key = str(served.data.first(catalog, "course")["key"])
    ran = cli.invoke(without_views, "catalogs", "course", catalog.uuid, key)
    assert ran.exit_code == 0, ran.stderr
    assert key in ran.stdout
    assert "course_runs" not in ran.stdout  # nested models are left to --json


def test_a_new_operation_in_a_table_gets_a_command(cli: CommandLine) -> None:
    ran = cli.invoke(build_cli([WIDGETS_POLISH]), "widgets", "polish-all", "--help")
    assert ran.exit_code == 0
    text = " ".join(ran.stdout.split())
    for fragment in (
        "WIDGET_ID",
        "--finish",
        "--coats, --coat INTEGER",
        "--glossy / --no-glossy",
        "--recipe JSON",
    ):
        assert fragment in text
    assert "Polish a widget." in text
    assert "How many coats, layer by layer" in text


def test_a_new_operations_command_sends_its_typed_arguments(cli: CommandLine, served: Sandbox) -> None:
    cli.invoke(
        build_cli([WIDGETS_POLISH]), "widgets", "polish-all", "12",
        "--finish", "waiting", "--coat", "2", "--coats", "3,4", "--no-glossy",
        "--recipe", '{"wax": "carnauba"}', "--ratio", "0.5",
    )  # fmt: skip
    (request,) = served.requests.find("POST", "/enterprise/v9/widgets/12/polish")
    assert request.query_value("finish") == "waiting"
    assert request.json() == {
        "coats": [2, 3, 4],
        "glossy": False,
        "recipe": {"wax": "carnauba"},
        "ratio": 0.5,
    }


def test_a_new_operations_rules_are_checked_before_sending(cli: CommandLine, served: Sandbox) -> None:
    ran = cli.invoke(build_cli([WIDGETS_POLISH]), "widgets", "polish-all", "12", "--coats", "0")
    assert ran.exit_code == 2
    assert_one_error_line(ran.stderr, "invalid input", "coats[0]", "--coats")
    assert served.requests.find("POST") == []


def test_a_revoke_filter_holding_neither_field_is_refused_before_sending(
    cli: CommandLine, served: Sandbox
) -> None:
    plan = served.data.plans[0]
    for option, value, place in (
        ("--filter", "{}", "filters[0]"),
        ("--filters", '[{"user_email": "al"}, {}]', "filters[1]"),
    ):
        ran = cli("subscriptions", "bulk-revoke", plan.uuid, option, value)
        assert ran.exit_code == 2
        assert_one_error_line(ran.stderr, "invalid input", place, "user_email", "status_in")
    ran = cli("subscriptions", "revoke", plan.uuid, "--status-in", "")
    assert ran.exit_code == 2, ran.stderr
    assert served.requests.find("POST") == []
