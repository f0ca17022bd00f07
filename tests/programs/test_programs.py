"""Three programs written as a service would write them (tests/programs/*.py) pass ``mypy --strict``
without an ``assert`` or a ``cast`` to narrow what the services guarantee, and run against the
sandbox in both of its profiles."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from enterprise_async.testing import Sandbox
from tests.programs import catalog_report, collect_ids, license_desk

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
PROGRAMS = [HERE / "catalog_report.py", HERE / "license_desk.py", HERE / "collect_ids.py"]


@pytest.fixture(params=["services", "reference"])
async def sandbox(request: pytest.FixtureRequest) -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=0, profile=request.param) as running:
        yield running


def test_the_programs_pass_mypy_strict() -> None:
    finished = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *map(str, PROGRAMS)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda path: path.name)
def test_the_programs_narrow_nothing_by_assert_or_cast(program: Path) -> None:
    tree = ast.parse(program.read_text(encoding="utf-8"))
    asserts = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]
    casts = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "cast"
    ]
    assert (asserts, casts) == ([], [])


async def test_the_catalog_report_runs(sandbox: Sandbox) -> None:
    async with sandbox.client() as client:
        lines = await catalog_report.report(client)
    assert " items, " in lines[0]  # a catalog,
    assert lines[1].startswith("  ")  # then its first course, read again by its key
    assert lines[-1].startswith("edX+NoSuchCourse: not in ")


async def test_the_license_desk_runs(sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[0].uuid
    async with sandbox.client() as client:
        lines = await license_desk.morning(
            client, customer, ["ada@example.com", "grace@example.com"], leavers=["grace@example.com"]
        )
    assert any("reminded" in line for line in lines)
    assert "1 licenses of leavers revoked" in lines
    assert any("licenses assigned" in line for line in lines)
    assert any(line.startswith("enrollment job ") for line in lines)


async def test_the_inventory_collects_every_id_of_the_customer(sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[0].uuid
    async with sandbox.client() as client:
        found = await collect_ids.inventory(client, customer)
        every_policy = await client.policies.list(customer).to_list()
        every_plan = await client.subscriptions.list(enterprise_customer_uuid=customer).to_list()
    assert found.policy_ids == [policy.uuid for policy in every_policy]
    assert found.plan_ids == [plan.uuid for plan in every_plan]
    assert all(
        isinstance(uuid, str) and uuid for uuid in found.policy_ids + found.plan_ids + found.assignment_ids
    )
    assert found.assignment_ids  # the customer's assignment-based policies hold assignments
    assert len(set(found.assignment_ids)) == len(found.assignment_ids)
    lines = collect_ids.rows(found)
    assert len(lines) == len(found.policy_ids) + len(found.plan_ids) + len(found.assignment_ids)
    assert lines[0] == f"policy {found.policy_ids[0]}"
