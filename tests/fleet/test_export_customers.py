"""Exports by customer: one job per customer, each customer's credentials on the workers alone.

Two sandboxes stand for two customers' accounts, each accepting only its own credentials. The
workers get a customers file (one secret named by an environment variable, one written in the
file) and no ``ENTERPRISE_*`` credentials; the enqueuing side gets only the customers' names.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import orjson
import redis

from enterprise_async.exports._catalogs import export_catalogs
from enterprise_async.fleet._customer_queue import export_customers_via_queue
from enterprise_async.testing import DataSize, Sandbox
from tests.cli.conftest import ENVIRONMENT
from tests.cli.test_hints import hint_in

from ._fleet import ROOT, enqueued, reaped
from ._fleet import start_workers as fleet_workers
from .test_export_queue import files, manifest_without_times

ACME_VARIABLE = "ACME_CLIENT_SECRET"
JOB_TIMEOUT = "30"
"""Seconds a customer may take; the killed worker's customer is taken up 10 seconds after that."""
MID_CUSTOMER_DEADLINE = 60.0
"""Seconds the first worker may take to be writing a catalog of each customer."""
COMMAND_DEADLINE = 120.0
"""Seconds the enqueuing command may take, once a worker runs its jobs."""


def customers_file(directory: Path, acme: Sandbox, globex: Sandbox) -> Path:
    """acme's secret from the workers' environment, globex's in the file."""
    path = directory / "customers.json"
    document = {
        "acme": {
            "client_id": acme.client_id,
            "client_secret_env": ACME_VARIABLE,
            "base_url": acme.base_url,
            "auth_url": acme.auth_url,
        },
        "globex": {
            "client_id": globex.client_id,
            "client_secret": globex.client_secret,
            "base_url": globex.base_url,
            "auth_url": globex.auth_url,
        },
    }
    path.write_bytes(orjson.dumps(document))
    return path


def worker_environment(acme: Sandbox) -> dict[str, str]:
    """No ENTERPRISE_* credentials: a customer job uses the customer's."""
    environment = {name: value for name, value in os.environ.items() if name not in ENVIRONMENT}
    return {**environment, ACME_VARIABLE: acme.client_secret}


async def start_workers(
    count: int, redis_url: str, customers: Path, acme: Sandbox, *options: str
) -> list[asyncio.subprocess.Process]:
    arguments = ("--customers", str(customers), "--job-timeout", JOB_TIMEOUT, *options)
    return await fleet_workers(count, redis_url, worker_environment(acme), *arguments)


def everything_stored(redis_url: str) -> bytes:
    """Every key and value in Redis, whatever its type."""
    stored = []
    with redis.Redis.from_url(redis_url) as client:
        for key in client.scan_iter():
            kind = client.type(key)
            if kind == b"string":
                value = client.get(key)
            elif kind == b"hash":
                value = client.hgetall(key)
            elif kind == b"list":
                value = client.lrange(key, 0, -1)
            elif kind == b"set":
                value = client.smembers(key)
            else:
                assert kind == b"zset", f"a {kind!r} in Redis"
                value = client.zrange(key, 0, -1)
            stored.append(key + b"=" + repr(value).encode())
    return b"\n".join(stored)


async def local_exports(directory: Path, **sandboxes: Sandbox) -> None:
    for name, sandbox in sandboxes.items():
        async with sandbox.client() as client:
            await export_catalogs(client, directory / name, page_size=20)


def assert_same_as_local(queued: Path, local: Path) -> None:
    for name in ("acme", "globex"):
        assert files(queued / name) == files(local / name)
        assert manifest_without_times(queued / name) == manifest_without_times(local / name)


async def test_each_customer_is_exported_with_its_own_credentials_and_one_token(
    redis_url: str, tmp_path: Path
) -> None:
    queued, local = tmp_path / "queued", tmp_path / "local"
    async with Sandbox(seed=1) as acme, Sandbox(seed=2) as globex:
        customers = customers_file(tmp_path, acme, globex)
        export = asyncio.ensure_future(
            export_customers_via_queue(queued, redis_url, ["acme", "globex"], page_size=20)
        )
        await enqueued(redis_url, 2)
        workers = await start_workers(2, redis_url, customers, acme, "--rate-limit", "60/second")
        async with reaped(workers):
            summary = await export
            assert [await worker.wait() for worker in workers] == [0, 0]
        tokens = (acme.tokens_issued, globex.tokens_issued)
        stored = everything_stored(redis_url)
        await local_exports(local, acme=acme, globex=globex)
    assert summary.ok
    assert [outcome.name for outcome in summary.outcomes] == ["acme", "globex"]
    assert tokens == (1, 1)
    assert_same_as_local(queued, local)
    for secret in (acme.client_secret, globex.client_secret):
        assert secret.encode() not in stored
    assert b"acme" in stored  # what the jobs carry: the names


async def test_a_worker_killed_mid_customer_loses_nothing_and_the_retry_resumes(
    redis_url: str, tmp_path: Path
) -> None:
    queued, local = tmp_path / "queued", tmp_path / "local"
    size = DataSize(catalog_items=150)
    async with Sandbox(seed=1, size=size) as acme, Sandbox(seed=2, size=size) as globex:
        customers = customers_file(tmp_path, acme, globex)
        export = asyncio.ensure_future(
            export_customers_via_queue(queued, redis_url, ["acme", "globex"], page_size=20)
        )
        await enqueued(redis_url, 2)
        workers = await start_workers(
            1, redis_url, customers, acme, "--max-jobs", "2", "--max-concurrency", "1"
        )
        try:
            async with reaped(workers):
                complete_at_kill = await kill_mid_customer(workers[0], queued)
                workers += await start_workers(2, redis_url, customers, acme)
                summary = await export
                assert [await worker.wait() for worker in workers[1:]] == [0, 0]
        finally:
            export.cancel()
        await local_exports(local, acme=acme, globex=globex)
    assert summary.ok
    assert not list(queued.glob("*/*.part"))
    assert_same_as_local(queued, local)
    for outcome in summary.outcomes:
        assert outcome.summary is not None
        statuses = {catalog.uuid: catalog.status for catalog in outcome.summary.outcomes}
        assert all(statuses[uuid] == "skipped" for uuid in complete_at_kill[outcome.name])
        for path in (queued / outcome.name).glob("*.jsonl"):
            lines = path.read_bytes().splitlines()
            assert len(lines) == len(set(lines)) == 150


async def kill_mid_customer(worker: asyncio.subprocess.Process, directory: Path) -> dict[str, set[str]]:
    """Kill the worker once it is writing a catalog of each customer; the catalogs each customer's
    manifest recorded as complete by then."""
    deadline = time.monotonic() + MID_CUSTOMER_DEADLINE
    while time.monotonic() < deadline:
        if all(list((directory / name).glob("*.part")) for name in ("acme", "globex")):
            break
        await asyncio.sleep(0.01)
    worker.kill()
    await worker.wait()
    assert all(list((directory / name).glob("*.part")) for name in ("acme", "globex")), "never mid-customer"
    complete = {}
    for name in ("acme", "globex"):
        manifest = directory / name / "manifest.json"
        complete[name] = set(orjson.loads(manifest.read_bytes())["catalogs"]) if manifest.exists() else set()
    return complete


def test_export_by_customer_from_the_command_line_reports_each_customer(
    redis_url: str, tmp_path: Path
) -> None:
    """The CLI end to end: one customer complete, one whose credentials the service refuses (exit 3)."""

    async def scenario() -> subprocess.CompletedProcess[bytes]:
        async with Sandbox(seed=1) as acme, Sandbox(seed=2) as globex:
            document = orjson.loads(customers_file(tmp_path, acme, globex).read_bytes())
            document["globex"]["client_secret"] = "revoked-long-ago"
            (tmp_path / "customers.json").write_bytes(orjson.dumps(document))
            command = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "enterprise_async",
                "catalogs",
                "export",
                "--queue",
                redis_url,
                "--customers",
                str(tmp_path / "customers.json"),
                "--out",
                str(tmp_path / "out"),
                "--format",
                "xml",
                cwd=ROOT,
                env={name: value for name, value in os.environ.items() if name not in ENVIRONMENT},
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            async with reaped([command]):
                await enqueued(redis_url, 2)
                workers = await start_workers(1, redis_url, tmp_path / "customers.json", acme)
                async with reaped(workers):
                    out, err = await asyncio.wait_for(command.communicate(), COMMAND_DEADLINE)
                    assert [await worker.wait() for worker in workers] == [0]
            contents = acme.requests.find(operation="catalogs.contents")
            assert {entry.headers["Accept"] for entry in contents} == {"application/xml"}
        return subprocess.CompletedProcess([], command.returncode or 0, out, err)

    ran = asyncio.run(scenario())
    assert ran.returncode == 3
    table = ran.stdout.decode()
    rows = {name: next(line for line in table.splitlines() if name in line) for name in ("acme", "globex")}
    assert "complete" in rows["acme"]
    assert "failed" in rows["globex"]
    assert "globex  failed: the token request was refused with 401 Unauthorized" in table
    assert "1 of 2 customers are incomplete (globex)" in ran.stderr.decode()
    assert hint_in(ran.stderr.decode()) == [
        *("catalogs", "export", "--out", str(tmp_path / "out"), "--queue", redis_url),
        *("--customers", str(tmp_path / "customers.json"), "--response-format", "xml", "--resume"),
    ]
    assert (tmp_path / "out" / "acme" / "manifest.json").is_file()
    assert not list((tmp_path / "out" / "globex").glob("*.jsonl"))
