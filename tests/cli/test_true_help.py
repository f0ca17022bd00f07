"""Help that is true: what ``policies list --help`` says of ``--active`` left out is what the
sandbox (answering as the services do) does."""

from __future__ import annotations

import orjson

from enterprise_async.testing import Sandbox

from .conftest import CommandLine


def test_active_left_out_lists_both_active_and_inactive_policies(cli: CommandLine, served: Sandbox) -> None:
    shown = " ".join(cli("policies", "list", "--help").stdout.split())
    assert "left out, both are listed" in shown
    assert "default is False" not in shown
    customer = next(
        customer.uuid
        for customer in served.data.customers
        if {policy.active for policy in served.data.policies if policy.customer_uuid == customer.uuid}
        == {True, False}
    )
    ran = cli("policies", "list", customer, "--json")
    assert ran.exit_code == 0, ran.stderr
    listed = [orjson.loads(line)["active"] for line in ran.stdout.splitlines()]
    assert set(listed) == {True, False}
    only = cli("policies", "list", customer, "--active", "--json")
    assert {orjson.loads(line)["active"] for line in only.stdout.splitlines()} == {True}
