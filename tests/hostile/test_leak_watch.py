"""The suite's leak watch (tests/_leak_watch.py) catches what it is there to catch: a secret or a
token in an SDK log record, in captured output or in a failure report, on every xdist worker,
without showing the value again in its own report."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from tests._leak_watch import SDK_LOGGER, LeakWatch, hidden, leaks, watch_for

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
SANDBOX_SECRET = "0123456789abcdef0123456789abcdef01234567"
TEST_SECRET = "watched-secret-of-this-module"

LEAKING_TESTS = f'''
import logging
import sys

logger = logging.getLogger("enterprise_async")

def test_a_debug_record_with_a_token():
    logger.debug("sent %s", "JWT {JWT}")

def test_a_record_with_the_token_in_an_extra():
    logger.info("retrying", extra={{"authorization": "JWT {JWT}"}})

def test_stdout_with_a_sandbox_secret():
    print("secret is {SANDBOX_SECRET}")

def test_stderr_with_a_token():
    print("{JWT}", file=sys.stderr)

def test_a_failure_showing_a_sandbox_secret():
    assert "{SANDBOX_SECRET}" == "something else"

def test_saying_nothing_secret():
    logger.debug("GET /enterprise/v2/enterprise-catalogs -> 200")
    print("fingerprint 0123456789ab")
'''


def test_a_registered_secret_a_jwt_and_a_sandbox_secret_are_each_found() -> None:
    watch_for(TEST_SECRET)
    said = [("a", f"oops {TEST_SECRET}"), ("b", f"Bearer {JWT}"), ("c", f"secret={SANDBOX_SECRET}")]
    assert [found.split(":")[0] for found in leaks(said)] == ["a", "b", "c"]


def test_text_without_a_secret_is_not_a_leak() -> None:
    said = [("log", "GET /x -> 401 (request id 3f2a9c1e-77aa-4b1e-9c3d-2b1f0e9d8c7b), 0.01 s")]
    assert leaks(said) == []


def test_a_leaks_report_shows_neither_the_secret_nor_the_token() -> None:
    watch_for(TEST_SECRET)
    text = hidden(f"{TEST_SECRET} {JWT} {SANDBOX_SECRET}")
    assert text == "<secret> <jwt> <secret>"
    found = " ".join(leaks([("x", f"{TEST_SECRET} {JWT}")]))
    assert TEST_SECRET not in found
    assert JWT not in found


def test_every_worker_fails_each_test_that_leaks_and_reports_it_hidden(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(test_leaking=LEAKING_TESTS)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # xdist and the watch only: a quicker start
    ran = pytester.runpytest_subprocess("-p", "xdist", "-p", "tests._leak_watch", "-n", "2", "-v")
    ran.assert_outcomes(failed=5, passed=1)
    shown = ran.stdout.str() + ran.stderr.str()
    # each failure says so in its report (and again in the summary line, where the width allows)
    assert shown.count("the SDK showed a secret or a token") >= 5
    assert JWT not in shown
    assert SANDBOX_SECRET not in shown
    failed_on = {line.split()[0] for line in ran.stdout.lines if line.startswith("[gw") and "FAILED" in line}
    assert failed_on == {"[gw0]", "[gw1]"}


def test_this_run_is_watched_down_to_the_debug_records(pytestconfig: pytest.Config) -> None:
    watch = pytestconfig.pluginmanager.get_plugin("leak-watch")
    logger = logging.getLogger(SDK_LOGGER)
    assert isinstance(watch, LeakWatch)
    assert watch.collector in logger.handlers
    assert logger.isEnabledFor(logging.DEBUG)
