"""Errors: one line on standard error, the right exit code, never a traceback or a credential."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from enterprise_async.testing import Sandbox

from .conftest import CommandLine


def assert_one_error_line(stderr: str, *fragments: str) -> None:
    (line,) = stderr.splitlines()
    assert line.startswith("Error: ")
    assert "Traceback" not in stderr
    for fragment in fragments:
        assert fragment in line


@pytest.mark.usefixtures("no_credentials")
def test_missing_credentials_name_the_variables_and_exit_2(cli: CommandLine) -> None:
    ran = cli("catalogs", "list")
    assert ran.exit_code == 2
    assert_one_error_line(ran.stderr, "ENTERPRISE_CLIENT_ID", "ENTERPRISE_BASE_URL", "--sandbox")


def test_bad_input_is_refused_before_any_request(cli: CommandLine, served: Sandbox) -> None:
    policy = next(policy for policy in served.data.policies if policy.assignment_configuration_uuid)
    ran = cli(
        "policies", "allocate", policy.uuid, "--learner-email", "a@example.com", "--content-key", "k",
        "--content-price-cents", "-1",
    )  # fmt: skip
    assert ran.exit_code == 2
    assert_one_error_line(ran.stderr, "invalid input", "content_price_cents")
    assert served.requests.find("POST") == []


def test_revoking_by_emails_and_filters_at_once_is_bad_input(cli: CommandLine, served: Sandbox) -> None:
    plan = served.data.plans[0]
    ran = cli(
        "subscriptions", "revoke", plan.uuid, "--user-email", "a@example.com", "--status-in", "assigned"
    )
    assert ran.exit_code == 2
    assert_one_error_line(ran.stderr, "invalid input")


def test_not_found_is_one_line_and_exits_1(cli: CommandLine, served: Sandbox) -> None:
    ran = cli("catalogs", "course", served.data.catalogs[0].uuid, "NoSuch+Course")
    assert ran.exit_code == 1
    assert_one_error_line(ran.stderr, "NotFoundError", "404")


def test_wrong_credentials_are_one_line_without_the_secret(
    cli: CommandLine, served: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "not-the-secret-0123456789"
    monkeypatch.setenv("ENTERPRISE_CLIENT_SECRET", wrong)
    cli.secrets.add(wrong)
    ran = cli("subscriptions", "list")
    assert ran.exit_code == 1
    assert_one_error_line(ran.stderr, "AuthenticationError", "401")


def test_an_unreachable_api_is_one_line(
    cli: CommandLine, served: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    monkeypatch.setenv("ENTERPRISE_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("ENTERPRISE_AUTH_URL", f"http://127.0.0.1:{port}")
    ran = cli("catalogs", "list", "--max-retries", "0")
    assert ran.exit_code == 1
    assert_one_error_line(ran.stderr, "APIConnectionError")


def test_an_invalid_list_value_is_a_usage_error(cli: CommandLine, served: Sandbox) -> None:
    configuration = next(
        p.assignment_configuration_uuid for p in served.data.policies if p.assignment_configuration_uuid
    )
    ran = cli("assignments", "list", configuration or "", "--lms-user-id-in", "12,twelve")
    assert ran.exit_code == 2
    assert "--lms-user-id-in" in ran.stderr


def test_a_real_process_prints_one_line_and_no_traceback() -> None:
    catalog = Sandbox(seed=0).data.catalogs[0].uuid
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "enterprise_async",
            "catalogs",
            "program",
            catalog,
            "00000000-0000-4000-8000-000000000000",
            "--sandbox",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert finished.returncode == 1
    assert finished.stdout == ""
    assert_one_error_line(finished.stderr, "NotFoundError")
