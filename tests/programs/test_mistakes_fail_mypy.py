"""Mistakes a user makes in calling the SDK fail ``mypy --strict``, before anything runs: a misspelt
or mistyped setting of ``from_env``, a value a request parameter does not accept, using the result
of a call that gives none, treating raw JSON as a model. The lines right beside them pass: each
mistake is caught by the type it breaks, not by a checker that refuses everything."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]

PROGRAM = """\
from __future__ import annotations

from enterprise_async import EnterpriseClient, JSONValue
from enterprise_async.models import Catalog, LearnerState


async def main(configuration: str, assignment: str) -> None:
    EnterpriseClient.from_env(max_concurrency=16, timeout=5.0)
    EnterpriseClient.from_env(max_concurency=16)  # error
    EnterpriseClient.from_env(max_retries="2")  # error
    async with EnterpriseClient.from_env() as client:
        await client.assignments.remind(configuration, assignment_uuids=[assignment])
        reminded = await client.assignments.remind(configuration, assignment_uuids=[assignment])  # error
        data: JSONValue = await client.request("GET", "/enterprise/v2/enterprise-catalogs")
        catalog: Catalog = await client.request("GET", "/enterprise/v2/enterprise-catalogs")  # error
        catalog = await client.request("GET", "/enterprise/v2/enterprise-catalogs", cast_to=Catalog)
        client.assignments.list(configuration, learner_state="waiting")
        client.assignments.list(configuration, learner_state=LearnerState.WAITING)
        client.assignments.list(configuration, learner_state="waitng")  # error
        client.assignments.list(configuration, state__in=["allocated", "cancelled"])
        client.assignments.list(configuration, state__in=["allocated", "canceled"])  # error
        client.learner_summary.list(configuration, ordering="-last_activity_date")
        client.learner_summary.list(configuration, ordering="bogus")  # error
        print(reminded, data, catalog)
"""


def test_each_mistake_fails_mypy_strict_and_nothing_else_does(tmp_path: Path) -> None:
    program = tmp_path / "mistakes.py"
    program.write_text(PROGRAM, encoding="utf-8")
    finished = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--no-error-summary", str(program)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    reported = sorted({int(line) for line in re.findall(r"mistakes\.py:(\d+): error", finished.stdout)})
    marked = [number for number, line in enumerate(PROGRAM.splitlines(), 1) if line.endswith("# error")]
    assert reported == marked, finished.stdout + finished.stderr
