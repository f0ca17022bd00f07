"""Every ``enterprise-async`` command of the guides' shell blocks runs as written against a sandbox
served as the services answer, with the ids the guides name (``$CUSTOMER``, ``$CONFIG``, ``$PLAN``,
``$RUN``) set to the sandbox's, and exits 0.

The commands left out say why in ``NOT_RUN``: each needs something a sandbox is not (a Redis
server, a package index, a shell that stays in the foreground) and another test covers it.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from attrs import frozen

from enterprise_async.testing import Sandbox
from tests.docs._markdown import ROOT

GUIDES = (
    "README.md",
    "enterprise_async/README.md",
    "enterprise_async/cli/README.md",
    "enterprise_async/exports/README.md",
)
NOT_RUN = {
    "enterprise-async sandbox --port 8000": "stays in the foreground: tests/cli/test_demo_and_sandbox.py "
    "runs it and sources what it prints",
    "export ENTERPRISE_BASE_URL=": "the values are the sandbox's, printed by the line above",
    "python3 -m venv": "installs from a package index into a new environment: CI's .ci/run does it",
    "git clone": "installs from the repository, whose URL is the reader's",
    "pip install": "installs from a package index or the repository; `nox -s dist` checks the wheel",
}
LEARNERS = ("ada@acme.example", "grace@acme.example")
"""The learners the guides name: they hold licenses of ``$PLAN`` before the commands run."""


@frozen
class Command:
    guide: str
    line: str


def commands() -> list[Command]:
    found = []
    for guide in GUIDES:
        text = (ROOT / guide).read_text(encoding="utf-8")
        for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
            for line in block.splitlines():
                code = line.split("  #", 1)[0].strip()
                if "enterprise-async" in code and not any(code.startswith(skip) for skip in NOT_RUN):
                    found.append(Command(guide, code))
    return found


@pytest.fixture(scope="module")
def served() -> Iterator[Sandbox]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="guide-sandbox", daemon=True)
    thread.start()
    sandbox = Sandbox(seed=0)
    try:
        asyncio.run_coroutine_threadsafe(sandbox.start(), loop).result(timeout=30)
        yield sandbox
    finally:
        asyncio.run_coroutine_threadsafe(sandbox.stop(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()


def _environment(sandbox: Sandbox) -> dict[str, str]:
    data = sandbox.data
    customer = data.customers[0].uuid
    policy = next(p for p in data.policies if p.assignment_configuration_uuid and p.customer_uuid == customer)
    plan = next(plan for plan in data.plans if plan.customer_uuid == customer)
    return {
        **os.environ,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "ENTERPRISE_BASE_URL": sandbox.base_url,
        "ENTERPRISE_AUTH_URL": sandbox.auth_url,
        "ENTERPRISE_CLIENT_ID": sandbox.client_id,
        "ENTERPRISE_CLIENT_SECRET": sandbox.client_secret,
        "CUSTOMER": customer,
        "CONFIG": str(policy.assignment_configuration_uuid),
        "PLAN": plan.uuid,
        "CATALOG": next(catalog.uuid for catalog in data.catalogs if catalog.customer_uuid == customer),
        "RUN": data.first(data.catalogs[0], "courserun")["key"],
    }


def test_the_guides_have_commands_to_run() -> None:
    assert len(commands()) >= 15


@pytest.mark.parametrize("command", commands(), ids=lambda command: f"{command.guide}: {command.line[:60]}")
def test_the_command_runs_as_written(command: Command, served: Sandbox, tmp_path: Path) -> None:
    environment = _environment(served)
    (tmp_path / "learners.txt").write_text("".join(f"{email}\n" for email in LEARNERS), encoding="utf-8")
    assign = ["enterprise-async", "subscriptions", "assign-licenses", environment["PLAN"]]
    held = subprocess.run(
        [*assign, "--user-email", ",".join(LEARNERS)],
        env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert held.returncode == 0, held.stderr
    finished = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command.line],
        env=environment,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert finished.returncode == 0, finished.stdout[-2000:] + finished.stderr[-2000:]
    assert "Traceback" not in finished.stderr
