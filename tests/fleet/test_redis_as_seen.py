"""Redis as the user sees it: a Redis never reached fails at once, in one line naming it; one that
went away is waited for, and stderr says so and for how long; an enqueuer that fails because of
Redis names Redis; a job's task that failed on Redis is told in one line, never a traceback."""

from __future__ import annotations

import asyncio
import gc
import logging
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from enterprise_async.fleet._worker import quiet_lost_redis_tasks
from enterprise_async.testing import Sandbox
from tests.cli.conftest import CommandLine, cli, issued_tokens, served  # noqa: F401 (fixtures)

from ._fleet import wait_until_enqueued
from ._redis_server import RedisProcess

NOTHING_LISTENS = "redis://127.0.0.1:1/0"
PATIENT = ("--retry-window", "3600")
"""A window an hour long: a command that waited for it would never end within the test."""


@pytest.mark.parametrize(
    "arguments",
    [
        ("worker", "--queue", NOTHING_LISTENS, "--burst", *PATIENT),
        ("catalogs", "export", "--queue", NOTHING_LISTENS, "--out", "out", *PATIENT),
    ],
    ids=["worker", "export"],
)
def test_a_refused_first_connection_fails_in_one_line_naming_the_redis(
    served: Sandbox,  # noqa: F811
    tmp_path: Path,
    arguments: tuple[str, ...],
) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "enterprise_async", *arguments],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,  # far less than the window: only a command that does not wait for it ends
    )
    assert ran.returncode == 1
    assert "Traceback" not in ran.stderr
    (line,) = ran.stderr.strip().splitlines()
    assert line.startswith("Error: RedisUnavailableError: Redis at 127.0.0.1:1 ")


def test_an_export_whose_redis_went_away_says_it_waits_and_names_redis_as_the_cause(
    cli: CommandLine,  # noqa: F811
    served: Sandbox,  # noqa: F811
    faulty_redis: RedisProcess,
    tmp_path: Path,
) -> None:
    def kill_once_enqueued() -> None:
        wait_until_enqueued(faulty_redis.url, 1)
        faulty_redis.kill()

    killer = threading.Thread(target=kill_once_enqueued, daemon=True)
    killer.start()
    ran = cli(
        *("catalogs", "export", "--queue", faulty_redis.url, "--out", str(tmp_path / "out")),
        *("--retry-window", "2"),
    )
    killer.join(timeout=60)
    location = f"Redis at 127.0.0.1:{faulty_redis.port}"
    assert "Traceback" not in ran.stderr
    assert any(f"{location} went away" in line and "waiting up to 2 s" in line for line in ran.error_lines), (
        ran.stderr
    )
    last = ran.error_lines[-1]
    assert last.startswith(f"Error: RedisUnavailableError: {location}"), last
    assert "catalogs failed" not in last


def test_a_task_that_failed_on_redis_and_was_never_awaited_is_told_in_one_line(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    async def finish_job() -> None:
        raise RedisConnectionError("Connection closed by server.")

    async def worker() -> None:
        quiet_lost_redis_tasks(asyncio.get_running_loop())
        task = asyncio.ensure_future(finish_job())  # as arq's shielded finish_job: never awaited
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert task.done()
        del task
        gc.collect()

    with caplog.at_level(logging.WARNING, logger="enterprise_async.fleet"):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(worker())
        finally:
            loop.close()
    messages = [record.getMessage() for record in caplog.records]
    assert not any("never retrieved" in message for message in messages)
    assert any("could not reach Redis" in message for message in messages)
    assert "Traceback" not in capsys.readouterr().err


def test_other_unretrieved_task_errors_still_reach_the_loops_handler() -> None:
    seen: list[object] = []

    async def bug() -> None:
        raise ZeroDivisionError

    async def worker() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _, context: seen.append(context.get("exception")))
        quiet_lost_redis_tasks(loop)
        task = asyncio.ensure_future(bug())
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        del task
        gc.collect()

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(worker())
    finally:
        loop.close()
    assert [type(error) for error in seen] == [ZeroDivisionError]
