"""``ENTERPRISE_LOG=info|debug`` turns on the ``enterprise_async`` logger, on stderr, with tokens and
secrets kept out. Each test runs a fresh interpreter, as a user's program would start."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from enterprise_async._utils.logs import RedactingFilter

ROOT = Path(__file__).resolve().parents[2]

# Calls the sandbox; with a fault injected first so that a retry happens. Prints the secret, so
# that the test can check that stderr does not.
PROGRAM = """
import asyncio
from enterprise_async.testing import Fault, Sandbox

async def main():
    async with Sandbox(seed=0) as sandbox:
        sandbox.faults.inject("/enterprise/v2/enterprise-catalogs*", Fault.server_error(503))
        async with sandbox.client() as client:
            await client.catalogs.list().to_list()
        print(sandbox.client_secret)

asyncio.run(main())
"""

STATE = """
import logging, enterprise_async
logger = logging.getLogger("enterprise_async")
print(logging.getLevelName(logger.level), len(logger.handlers))
"""


def run(code: str, value: str | None) -> subprocess.CompletedProcess[str]:
    env = {key: item for key, item in os.environ.items() if key != "ENTERPRISE_LOG"}
    if value is not None:
        env["ENTERPRISE_LOG"] = value
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_debug_writes_every_answer_and_every_retry_to_stderr() -> None:
    finished = run(PROGRAM, "debug")
    assert finished.returncode == 0, finished.stderr
    assert "DEBUG enterprise_async: GET /enterprise/v2/enterprise-catalogs -> 503" in finished.stderr
    assert "DEBUG enterprise_async: GET /enterprise/v2/enterprise-catalogs -> 200" in finished.stderr
    assert "INFO enterprise_async: GET /enterprise/v2/enterprise-catalogs: retry 1 of 2" in finished.stderr


def test_debug_output_carries_no_token_and_no_secret() -> None:
    finished = run(PROGRAM, "debug")
    secret = finished.stdout.strip()
    assert secret
    assert secret not in finished.stderr
    assert "eyJ" not in finished.stderr
    assert "JWT " not in finished.stderr


def test_info_writes_retries_but_not_every_answer() -> None:
    finished = run(PROGRAM, "INFO")
    assert finished.returncode == 0, finished.stderr
    assert "retry 1 of 2" in finished.stderr
    assert "-> 200" not in finished.stderr


@pytest.mark.parametrize(("value", "state"), [("debug", "DEBUG 1"), ("info", "INFO 1"), (None, "NOTSET 0")])
def test_the_variable_sets_the_loggers_level_and_handler(value: str | None, state: str) -> None:
    finished = run(STATE, value)
    assert finished.stdout.strip() == state


def test_an_unknown_value_is_reported_and_ignored() -> None:
    finished = run(STATE, "verbose")
    assert finished.returncode == 0
    assert finished.stdout.strip() == "NOTSET 0"
    assert "ENTERPRISE_LOG='verbose' is not 'info' or 'debug'" in finished.stderr


def test_the_handler_scrubs_token_shaped_text() -> None:
    token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
    record = logging.LogRecord(
        "enterprise_async",
        logging.DEBUG,
        __file__,
        1,
        "sent %s with client_secret=%s",
        (f"JWT {token}", "abc"),
        None,
    )
    RedactingFilter().filter(record)
    assert record.getMessage() == "sent JWT <redacted> with client_secret=<redacted>"
