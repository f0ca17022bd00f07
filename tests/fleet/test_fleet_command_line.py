"""The fleet's commands fail in one line with an exit code, never a traceback; a worker says what
it serves and stops cleanly on a signal; an enqueuer says it waits for workers, and gives up when
told to."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from enterprise_async.testing import Sandbox
from tests.cli.conftest import CommandLine, cli, issued_tokens, served  # noqa: F401 (fixtures)
from tests.cli.test_hints import hint_in

from ._fleet import ROOT
from ._redis_server import RedisProcess

WITHOUT_ARQ = "import sys; sys.modules['arq'] = None; from enterprise_async.cli import main; main()"
"""The command line as it runs where the [redis] extra is not installed."""
START_DEADLINE = 60.0


def assert_one_line(text: str) -> None:
    assert "Traceback" not in text
    assert len(text.strip().splitlines()) == 1, text


@pytest.mark.parametrize(
    "arguments",
    [
        ("worker", "--queue", "redis://127.0.0.1:9/0", "--burst"),
        ("catalogs", "export", "--queue", "redis://127.0.0.1:9/0", "--out", "out", "--sandbox"),
    ],
)
def test_a_fleet_command_without_the_redis_extra_names_the_install_command(
    arguments: tuple[str, ...], tmp_path: Path
) -> None:
    ran = subprocess.run(
        [sys.executable, "-c", WITHOUT_ARQ, *arguments],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 2
    assert "pip install 'enterprise-async[redis]'" in ran.stderr
    assert_one_line(ran.stderr)


@pytest.mark.parametrize(
    "url", ["notaurl", "http://127.0.0.1:6379/0", "redis://127.0.0.1:port/0", "redis:///0"]
)
def test_a_worker_refuses_a_queue_that_is_not_a_redis_url(cli: CommandLine, url: str) -> None:  # noqa: F811
    ran = cli("worker", "--queue", url, "--burst")
    assert ran.exit_code == 2
    assert "--queue" in ran.stderr
    assert_one_line(ran.stderr)


def test_an_export_refuses_a_queue_that_is_not_a_redis_url(cli: CommandLine, tmp_path: Path) -> None:  # noqa: F811
    ran = cli("catalogs", "export", "--sandbox", "--queue", "notaurl", "--out", str(tmp_path))
    assert ran.exit_code == 2
    assert "--queue: must be a redis://" in ran.stderr
    assert_one_line(ran.stderr)


def test_a_worker_refuses_an_unreadable_rate_limit_before_it_starts(
    cli: CommandLine,  # noqa: F811
    served: Sandbox,  # noqa: F811
    redis_url: str,
) -> None:
    ran = cli("worker", "--queue", redis_url, "--burst", "--rate-limit", "bogus")
    assert ran.exit_code == 2
    assert "--rate-limit: cannot read 'bogus'" in ran.stderr
    assert "serves" not in ran.stderr  # it never started
    assert_one_line(ran.stderr)


def test_a_worker_on_a_redis_that_is_down_fails_in_one_line_after_the_retry_window(
    cli: CommandLine,  # noqa: F811
    served: Sandbox,  # noqa: F811
    faulty_redis: RedisProcess,
) -> None:
    faulty_redis.kill()
    ran = cli("worker", "--queue", faulty_redis.url, "--burst", "--retry-window", "0.5")
    assert ran.exit_code == 1
    assert f"RedisUnavailableError: Redis at 127.0.0.1:{faulty_redis.port} did not answer" in ran.stderr
    assert_one_line(ran.stderr)


def test_an_export_on_a_redis_that_is_down_fails_in_one_line_after_the_retry_window(
    cli: CommandLine,  # noqa: F811
    served: Sandbox,  # noqa: F811
    faulty_redis: RedisProcess,
    tmp_path: Path,
) -> None:
    faulty_redis.kill()
    ran = cli(
        "catalogs", "export", "--queue", faulty_redis.url, "--out", str(tmp_path), "--retry-window", "0.5"
    )
    assert ran.exit_code == 1
    assert "RedisUnavailableError: Redis at 127.0.0.1" in ran.stderr
    assert_one_line(ran.stderr)


def test_an_export_says_it_waits_for_a_worker_and_gives_up_after_the_wait_timeout(
    cli: CommandLine,  # noqa: F811
    served: Sandbox,  # noqa: F811
    redis_url: str,
    tmp_path: Path,
) -> None:
    given = ["--queue", redis_url]
    # long enough that the first look for a worker comes before it, on a loaded machine too
    ran = cli("catalogs", "export", "--out", str(tmp_path), "--wait-timeout", "4", *given)
    assert ran.exit_code == 1
    lines = ran.stderr.strip().splitlines()
    assert lines[0].startswith("waiting for a worker: none serves the queue on 127.0.0.1")
    assert "up to 4 s" in lines[0]
    assert lines[-1].startswith("Error: NoWorkerError: no worker took a job within 4 s (--wait-timeout)")
    assert hint_in(lines[-1]) == ["worker", *given]  # the options the worker takes too
    assert "Traceback" not in ran.stderr


@pytest.mark.parametrize(("stop", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_worker_says_what_it_serves_and_a_signal_stops_it_in_one_line(
    redis_url: str, stop: signal.Signals, code: int
) -> None:
    environment = {
        **os.environ,
        "ENTERPRISE_CLIENT_ID": "acme-sync",
        "ENTERPRISE_CLIENT_SECRET": "not-used",
        "ENTERPRISE_BASE_URL": "http://127.0.0.1:9",
    }
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "enterprise_async",
            "worker",
            "--queue",
            redis_url,
            "--rate-limit",
            "5/second",
        ],
        cwd=ROOT,
        env=environment,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stderr is not None
        started = worker.stderr.readline()
        worker.send_signal(stop)
        rest = worker.stderr.read()
        assert worker.wait(timeout=START_DEADLINE) == code
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        if worker.stderr is not None:
            worker.stderr.close()
    assert started.startswith(f"worker {worker.pid}@")
    assert "serves catalog exports as client acme-sync from the queue enterprise-async:exports" in started
    assert "(2 jobs at a time, job timeout 300 s, rate limit 5/second)" in started
    assert (
        rest.strip()
        == f"interrupted by {stop.name}: the worker stopped; its running jobs went back to the queue"
    )
