"""The queued export against a real redis-server that fails: killed and restarted (with and
without an append-only file), frozen past the retry window, a slow job, two runs on one folder, a
worker killed together with Redis, a dead run's jobs, tampered jobs, a worker stopped mid-job.

Each ends with every item exactly once in the final output (the same files and manifest as a
local export), or with the failed catalogs named. Windows are small (a retry window of seconds, a
lease of 3 s) so the suite stays short; nothing asserts on how long anything took.
"""

from __future__ import annotations

import asyncio
import pickle
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import redis

from enterprise_async.exports import Manifest
from enterprise_async.exports._catalogs import export_catalogs
from enterprise_async.exports._lock import DirectoryLockedError
from enterprise_async.fleet._queue import QUEUE_NAME, QueueOptions, export_via_queue
from enterprise_async.fleet._redis import RedisPolicy
from enterprise_async.fleet._runs import folder_key
from enterprise_async.testing import DataSize, Fault, Sandbox

from ._fleet import ROOT, enqueued, reaped, sandbox_environment
from ._redis_server import RedisProcess, redis_process
from .test_export_queue import files, manifest_without_times

ITEMS = 120
LEASE = 3.0
WINDOW = "20"
"""Seconds the workers retry Redis: longer than any outage of these tests but the freeze."""
DEADLINE = 240.0
"""Seconds an export of these tests may take at most before the test fails (a hang is a failure)."""
WAIT_STEPS = 3000


def options(window: float = float(WINDOW), **extra: float) -> QueueOptions:
    policy = RedisPolicy(retry_window=window, connect_timeout=1.0, read_timeout=2.0)
    return QueueOptions(policy=policy, lease=LEASE, **extra)  # type: ignore[arg-type]


@pytest.fixture(params=[False, True], ids=["no-persistence", "append-only"])
def restartable_redis(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RedisProcess]:
    with redis_process(Path(tmp_path_factory.mktemp("redis")), append_only=request.param) as server:
        yield server


class Workers:
    """Worker processes (not in burst: they outlive a Redis restart), stopped with SIGTERM."""

    def __init__(self, sandbox: Sandbox, url: str, directory: Path) -> None:
        self.sandbox = sandbox
        self.url = url
        self.logs = directory
        self.processes: list[asyncio.subprocess.Process] = []

    async def start(self, count: int, *arguments: str) -> None:
        """Start ``count`` workers, and return once each has said it serves (signals stop it cleanly then)."""
        for _ in range(count):
            path = self.logs / f"worker-{len(self.processes)}.log"
            with path.open("wb") as log:
                self.processes.append(await self._spawn(log, arguments))
            await until(lambda path=path: "serves" in path.read_text(), "ready")  # type: ignore[misc]

    async def _spawn(self, log: object, arguments: tuple[str, ...]) -> asyncio.subprocess.Process:
        command = ["worker", "--queue", self.url, "--retry-window", WINDOW, "--job-timeout", "30", *arguments]
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "enterprise_async",
            *command,
            cwd=ROOT,
            env=sandbox_environment(self.sandbox),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=log,  # type: ignore[arg-type]
        )

    async def stop(self) -> list[int]:
        """SIGTERM to every worker still running; every exit code."""
        for process in self.processes:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
        return [await asyncio.wait_for(process.wait(), DEADLINE) for process in self.processes]

    def kill(self) -> None:
        for process in self.processes:
            if process.returncode is None:
                process.kill()

    def stderr(self) -> str:
        return "".join(path.read_text() for path in sorted(self.logs.glob("worker-*.log")))


@asynccontextmanager
async def fleet(sandbox: Sandbox, url: str, directory: Path) -> AsyncIterator[Workers]:
    workers = Workers(sandbox, url, directory)
    async with reaped(workers.processes):
        yield workers


async def until(condition: object, what: str) -> None:
    for _ in range(WAIT_STEPS):
        if condition():  # type: ignore[operator]
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"never {what}")


def outage_seen(log: str) -> bool:
    """Whether a worker's log says it met Redis away: its queue's connections (retried within
    the window) or a shared piece doing without Redis for a while (the budget, the token)."""
    return " went away (" in log or " is away (" in log


def writing(directory: Path) -> bool:
    return bool(list(directory.glob("*.part")))


async def assert_same_as_local(sandbox: Sandbox, queued: Path, local: Path) -> None:
    async with sandbox.client() as client:
        await export_catalogs(client, local, page_size=20)
    assert files(queued) == files(local)  # no .part, no lock left behind either
    assert manifest_without_times(queued) == manifest_without_times(local)
    assert_every_item_once(queued)


def assert_every_item_once(directory: Path) -> None:
    for path in directory.glob("*.jsonl"):
        lines = path.read_bytes().splitlines()
        assert len(lines) == len(set(lines)) == ITEMS


async def test_redis_killed_and_restarted_mid_export_goes_unnoticed(
    restartable_redis: RedisProcess, tmp_path: Path
) -> None:
    queued = tmp_path / "queued"
    async with (
        Sandbox(seed=0, size=DataSize(catalog_items=ITEMS), profile="reference") as sandbox,
        sandbox.client() as client,
    ):
        async with fleet(sandbox, restartable_redis.url, tmp_path) as workers:
            # both workers serve before the export is queued: on a loaded machine the first one
            # could otherwise export every catalog while the second is still starting
            await workers.start(2, "--rate-limit", "30/second", "--max-jobs", "1")
            export = asyncio.ensure_future(
                export_via_queue(client, queued, restartable_redis.url, page_size=20, options=options())
            )
            await until(lambda: writing(queued), "mid-catalog")
            restartable_redis.kill()
            # the outage lasts until a worker has met it (a request's draw on the budget, a job's
            # heartbeat), not a time that a loaded machine could let pass with no call to Redis
            await until(lambda: outage_seen(workers.stderr()), "met the outage")
            restartable_redis.start()
            summary = await asyncio.wait_for(export, DEADLINE)
            assert await workers.stop() == [143, 143]
        assert summary.ok, [outcome.error for outcome in summary.failed]
        assert "Traceback" not in workers.stderr()
        await assert_same_as_local(sandbox, queued, tmp_path / "local")


async def test_redis_frozen_past_the_window_names_every_unfinished_catalog_and_a_resume_completes(
    faulty_redis: RedisProcess, tmp_path: Path
) -> None:
    queued = tmp_path / "queued"
    async with (
        Sandbox(seed=0, size=DataSize(catalog_items=ITEMS), profile="reference") as sandbox,
        sandbox.client() as client,
    ):
        async with fleet(sandbox, faulty_redis.url, tmp_path) as workers:
            export = asyncio.ensure_future(
                export_via_queue(client, queued, faulty_redis.url, page_size=20, options=options(window=2.0))
            )
            await workers.start(1, "--rate-limit", "20/second", "--max-jobs", "1", "--retry-window", "2")
            await until(lambda: writing(queued), "mid-catalog")
            faulty_redis.freeze()
            summary = await asyncio.wait_for(export, DEADLINE)
            codes = [await asyncio.wait_for(process.wait(), DEADLINE) for process in workers.processes]
            faulty_redis.thaw()
        assert summary.failed
        for outcome in summary.failed:
            assert outcome.error is not None
            assert outcome.error.startswith("RedisUnavailableError: Redis at 127.0.0.1")
        assert codes == [1]  # the worker gave up on Redis after its window, in one line
        assert "Traceback" not in workers.stderr()
        assert "Error: RedisUnavailableError" in workers.stderr()
        resumed = await asyncio.wait_for(
            _resume_with_a_worker(sandbox, client, faulty_redis.url, queued, tmp_path), DEADLINE
        )
        assert resumed.ok
        await assert_same_as_local(sandbox, queued, tmp_path / "local")


async def _resume_with_a_worker(
    sandbox: Sandbox, client: object, url: str, queued: Path, tmp_path: Path
) -> object:
    logs = tmp_path / "resume"
    logs.mkdir()
    # The run that lost Redis could not release its claim there: the resume waits for it to
    # expire (``--wait``), as the refusal tells a user to; the freeze may have been shorter than it.
    waiting = options(wait=2 * LEASE)
    async with fleet(sandbox, url, logs) as workers:
        export = asyncio.ensure_future(
            export_via_queue(client, queued, url, resume=True, page_size=20, options=waiting)  # type: ignore[arg-type]
        )
        await workers.start(1)
        summary = await export
        await workers.stop()
    return summary


async def test_a_job_past_its_timeout_fails_its_catalog_alone(redis_url: str, tmp_path: Path) -> None:
    queued = tmp_path / "queued"
    async with (
        Sandbox(seed=0, size=DataSize(catalog_items=ITEMS), profile="reference") as sandbox,
        sandbox.client() as client,
    ):
        slow = (await client.catalogs.list().to_list())[0].uuid
        sandbox.faults.inject(f"*{slow}*", Fault.latency(120), times=None)
        async with fleet(sandbox, redis_url, tmp_path) as workers:
            export = asyncio.ensure_future(
                export_via_queue(client, queued, redis_url, page_size=20, options=options())
            )
            # the usual --job-timeout (30 s): ample for the other catalogs (6 pages each) on a
            # loaded machine, and a quarter of the slow one's latency, which it never outlives
            await workers.start(2)
            summary = await asyncio.wait_for(export, DEADLINE)
            await workers.stop()
    assert [outcome.uuid for outcome in summary.failed] == [slow]
    assert summary.failed[0].error is not None
    assert "ran past its worker's --job-timeout" in summary.failed[0].error
    assert len(summary.completed) == len(summary.outcomes) - 1
    assert not list(queued.glob(f"{slow}*"))
    assert list(Manifest(queued).failed) == [slow]  # named in the manifest too, for the next resume


async def test_a_second_run_on_the_same_folder_is_refused_naming_the_first_or_waits_for_it(
    redis_url: str, tmp_path: Path
) -> None:
    queued = tmp_path / "queued"
    async with (
        Sandbox(seed=0, size=DataSize(catalog_items=ITEMS), profile="reference") as sandbox,
        sandbox.client() as client,
    ):
        first = asyncio.ensure_future(
            export_via_queue(client, queued, redis_url, page_size=20, options=options())
        )
        with redis.Redis.from_url(redis_url) as raw:
            await until(lambda: raw.exists(folder_key(queued.resolve())), "claimed")
            holder = raw.get(folder_key(queued.resolve()))
        with pytest.raises(DirectoryLockedError) as refused:
            await export_via_queue(client, queued, redis_url, page_size=20, options=options())
        second = asyncio.ensure_future(
            export_via_queue(
                client, queued, redis_url, resume=True, page_size=20, options=options(wait=DEADLINE)
            )
        )
        async with fleet(sandbox, redis_url, tmp_path) as workers:
            await workers.start(2)
            summaries = await asyncio.wait_for(asyncio.gather(first, second), DEADLINE)
            await workers.stop()
        assert refused.value.holder is not None
        assert refused.value.holder.run_id in holder.decode()
        assert f"run {refused.value.holder.run_id}" in str(refused.value)
        assert all(summary.ok for summary in summaries)
        assert len(summaries[1].skipped) == len(summaries[1].outcomes)  # the first wrote everything once
        contents = sandbox.requests.find(operation="catalogs.contents")
        await assert_same_as_local(sandbox, queued, tmp_path / "local")
    assert len({entry.path for entry in contents}) == len(
        summaries[0].outcomes
    )  # each catalog fetched by one run


async def test_a_worker_killed_together_with_redis_loses_nothing(
    persistent_redis: RedisProcess, tmp_path: Path
) -> None:
    queued = tmp_path / "queued"
    async with (
        Sandbox(seed=0, size=DataSize(catalog_items=ITEMS), profile="reference") as sandbox,
        sandbox.client() as client,
    ):
        async with fleet(sandbox, persistent_redis.url, tmp_path) as workers:
            export = asyncio.ensure_future(
                export_via_queue(client, queued, persistent_redis.url, page_size=20, options=options())
            )
            # the killed worker's job stays taken for its --job-timeout and 10 s (arq's mark of a
            # job in progress, kept by Redis's append-only file): a short one brings it back soon,
            # and 8 s is still ample to write a first page (the kill comes then) on a loaded machine
            await workers.start(1, "--rate-limit", "20/second", "--job-timeout", "8")
            await until(lambda: writing(queued), "mid-catalog")
            workers.kill()
            persistent_redis.kill()
            persistent_redis.start()
            # the workers after it have the usual --job-timeout (30 s): a catalog may take several
            # seconds on a loaded machine, and must not fail on its time here, only on a fault
            await workers.start(2)
            summary = await asyncio.wait_for(export, DEADLINE)
            await workers.stop()
        assert summary.ok, [outcome.error for outcome in summary.failed]
        await assert_same_as_local(sandbox, queued, tmp_path / "local")


ENQUEUER = """
import asyncio, sys
from pathlib import Path
from enterprise_async import EnterpriseClient
from enterprise_async.fleet._queue import QueueOptions, export_via_queue

async def main():
    async with EnterpriseClient.from_env() as client:
        await export_via_queue(client, Path(sys.argv[1]), sys.argv[2], options=QueueOptions(lease=3.0))

asyncio.run(main())
"""


async def test_the_jobs_of_a_dead_run_are_dropped_not_run(redis_url: str, tmp_path: Path) -> None:
    queued = tmp_path / "queued"
    async with Sandbox(seed=0, size=DataSize(catalog_items=ITEMS), profile="reference") as sandbox:
        enqueuer = await asyncio.create_subprocess_exec(
            sys.executable, "-c", ENQUEUER, str(queued), redis_url, cwd=ROOT, env=sandbox_environment(sandbox)
        )
        async with reaped([enqueuer]):  # a crash: its lease is not renewed any more
            await enqueued(redis_url, len(sandbox.data.catalogs))
        with redis.Redis.from_url(redis_url) as raw:  # workers come after the lease ran out
            await until(lambda: not any(raw.scan_iter("enterprise-async:run:*")), "the lease expired")
        async with fleet(sandbox, redis_url, tmp_path) as workers:
            await workers.start(1)
            with redis.Redis.from_url(redis_url) as raw:
                await until(lambda: raw.zcard(QUEUE_NAME) == 0, "taken from the queue")
                await until(lambda: not any(raw.scan_iter("arq:in-progress:*")), "done with")
            await workers.stop()
        contents = sandbox.requests.find(operation="catalogs.contents")
    assert contents == []
    assert not list(queued.glob("*.jsonl*"))


async def test_a_tampered_job_is_refused_and_fails_its_catalog_alone(redis_url: str, tmp_path: Path) -> None:
    queued = tmp_path / "queued"
    async with (
        Sandbox(seed=0, size=DataSize(catalog_items=ITEMS), profile="reference") as sandbox,
        sandbox.client() as client,
    ):
        export = asyncio.ensure_future(
            export_via_queue(client, queued, redis_url, page_size=20, options=options())
        )
        await enqueued(redis_url, len(sandbox.data.catalogs))
        with redis.Redis.from_url(redis_url) as raw:
            job_id = raw.zrange(QUEUE_NAME, 0, 0)[0].decode()
            raw.set(
                f"arq:job:{job_id}", pickle.dumps({"f": "export_catalog", "a": [], "k": {}, "t": 1, "et": 0})
            )
        async with fleet(sandbox, redis_url, tmp_path) as workers:
            await workers.start(1)
            summary = await asyncio.wait_for(export, DEADLINE)
            await workers.stop()
    assert [outcome.uuid for outcome in summary.failed] == [job_id.rsplit(":", 1)[1]]
    assert "refused a payload in Redis that is not JSON" in (summary.failed[0].error or "")
    assert len(summary.completed) == len(summary.outcomes) - 1


async def test_a_worker_stopped_mid_job_hands_it_back_and_exits_143(redis_url: str, tmp_path: Path) -> None:
    queued = tmp_path / "queued"
    async with (
        Sandbox(seed=0, size=DataSize(catalog_items=ITEMS), profile="reference") as sandbox,
        sandbox.client() as client,
    ):
        async with fleet(sandbox, redis_url, tmp_path) as workers:
            export = asyncio.ensure_future(
                export_via_queue(client, queued, redis_url, page_size=20, options=options())
            )
            await workers.start(1, "--rate-limit", "20/second")
            await until(lambda: writing(queued), "mid-catalog")
            assert await workers.stop() == [143]
            await workers.start(1)
            summary = await asyncio.wait_for(export, DEADLINE)
            await workers.stop()
        assert summary.ok, [outcome.error for outcome in summary.failed]
        first_worker = (tmp_path / "worker-0.log").read_text().strip().splitlines()
        assert (
            first_worker[-1]
            == "interrupted by SIGTERM: the worker stopped; its running jobs went back to the queue"
        )
        await assert_same_as_local(sandbox, queued, tmp_path / "local")
