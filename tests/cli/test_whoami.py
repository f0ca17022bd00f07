"""``enterprise-async whoami``: the customer uuid the token serves, the one the other commands take."""

from __future__ import annotations

import json

from enterprise_async.testing import Sandbox
from tests.cli.conftest import CommandLine


def test_whoami_names_the_customer_of_the_token(cli: CommandLine, served: Sandbox) -> None:
    ran = cli("whoami")
    assert ran.exit_code == 0, ran.stderr
    assert ran.stdout == f"{served.tokens.customer_uuid}  enterprise_admin\n"


def test_whoami_json_and_the_uuid_it_gives_lists_policies(cli: CommandLine, served: Sandbox) -> None:
    ran = cli("whoami", "--json")
    assert ran.exit_code == 0, ran.stderr
    customers = json.loads(ran.stdout)["customers"]
    assert customers == {served.tokens.customer_uuid: ["enterprise_admin"]}
    (customer,) = customers
    listed = cli("policies", "list", customer, "--json")
    assert listed.exit_code == 0, listed.stderr
    assert {json.loads(line)["enterprise_customer_uuid"] for line in listed.stdout.splitlines()} == {customer}


def test_whoami_against_an_embedded_sandbox(cli: CommandLine, no_credentials: None) -> None:
    ran = cli("whoami", "--sandbox")
    assert ran.exit_code == 0, ran.stderr
    assert ran.stdout.endswith("  enterprise_admin\n")


def test_whoami_without_credentials_says_what_to_set(cli: CommandLine, no_credentials: None) -> None:
    ran = cli("whoami")
    assert ran.exit_code == 2
    assert "ENTERPRISE_CLIENT_ID" in ran.stderr
