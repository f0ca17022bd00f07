"""The two kinds of export job, run as a worker runs them, and the options each one brings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio

from enterprise_async import Timeout
from enterprise_async._request.options import ClientOptions
from enterprise_async.fleet._catalog_job import export_catalog
from enterprise_async.fleet._customer_queue import export_customer
from enterprise_async.fleet._customers import Customer
from enterprise_async.fleet._runs import run_key
from enterprise_async.fleet._worker_clients import WorkerClients
from enterprise_async.models import Catalog, to_dict
from enterprise_async.testing import Sandbox
from tests.cli.conftest import ENVIRONMENT
from tests.openapi_spec import required

XML = "application/xml"


RUN = {"id": "a-live-run", "lease": 30.0}
"""The run the jobs of these tests belong to: its lease is on Redis (see ``clients``)."""


@pytest.fixture
async def clients(redis_url: str) -> AsyncIterator[WorkerClients]:
    worker = WorkerClients(redis_url, rate_limit=None, options=ClientOptions(max_concurrency=4))
    yield worker
    await worker.aclose()


@pytest.fixture
async def run_redis(redis_url: str) -> AsyncIterator[Any]:
    """The worker's Redis, where the run of the jobs holds its lease."""
    client = redis.asyncio.from_url(redis_url)
    await client.set(run_key(str(RUN["id"])), b"the enqueuer", px=60_000)
    yield client
    await client.aclose()


def job_context(clients: WorkerClients, run_redis: Any, customers: dict[str, Customer]) -> dict[str, Any]:
    return {"clients": clients, "customers": customers, "job_try": 1, "redis": run_redis}


def accepted(sandbox: Sandbox) -> set[str]:
    """The formats asked for by the requests of catalog contents."""
    return {entry.headers.get("Accept", "") for entry in sandbox.requests.find(operation="catalogs.contents")}


def customer_of(sandbox: Sandbox, secret: str | None = None) -> Customer:
    return Customer(
        "acme", sandbox.client_id, sandbox.base_url, sandbox.auth_url, secret=secret or sandbox.client_secret
    )


async def test_a_customer_job_exports_into_its_directory_with_the_commands_options(
    clients: WorkerClients, run_redis: Any, tmp_path: Path
) -> None:
    async with Sandbox(seed=3) as sandbox:
        context = job_context(clients, run_redis, {"acme": customer_of(sandbox)})
        result = await export_customer(
            context, RUN, str(tmp_path), "acme", 20, False, {"response_format": "xml"}
        )
    export = result["export"]
    assert export["ok"]
    # the catalogs of the token's customer: all the catalog list holds (enterprise-catalog get_queryset)
    assert export["completed"] == len(sandbox.data.catalogs_of(sandbox.data.customers[0].uuid))
    assert export["directory"] == str(tmp_path / "acme")
    assert (tmp_path / "acme" / "manifest.json").is_file()
    assert accepted(sandbox) == {XML}


async def test_a_customer_job_reports_refused_credentials_and_unknown_customers(
    clients: WorkerClients, run_redis: Any, tmp_path: Path
) -> None:
    async with Sandbox(seed=3) as sandbox:
        context = job_context(clients, run_redis, {"acme": customer_of(sandbox, secret="not-the-secret")})
        refused = await export_customer(context, RUN, str(tmp_path), "acme", None, False, {})
        unknown = await export_customer(context, RUN, str(tmp_path), "globex", None, False, {})
    assert refused["error"].startswith("AuthenticationError")
    assert "not-the-secret" not in refused["error"]
    assert unknown == {"error": "this worker has no credentials for 'globex': not in its --customers file"}


async def test_catalog_jobs_share_a_client_per_format_and_take_the_commands_options(
    clients: WorkerClients, run_redis: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with Sandbox(seed=3) as sandbox:
        values = (sandbox.client_id, sandbox.client_secret, sandbox.base_url, sandbox.auth_url)
        for name, value in zip(ENVIRONMENT, values, strict=True):
            monkeypatch.setenv(name, value)
        async with sandbox.client() as lister:
            first, second, *_ = await lister.catalogs.list().to_list()
        context = job_context(clients, run_redis, {})
        as_xml = await export_catalog(
            context, RUN, str(tmp_path), to_dict(first), 20, {"response_format": "xml"}
        )
        as_json = await export_catalog(context, RUN, str(tmp_path), to_dict(second), 20, {"max_retries": 0})
        json_client = await clients.environment({})
        patient = await clients.environment({"timeout": 90.0})
        pacing = await clients.environment({"timeout": {"total": 30.0, "rate_wait": 90.0}})
    assert as_xml["entry"]["uuid"] == first.uuid
    assert as_json["entry"]["uuid"] == second.uuid
    assert accepted(sandbox) == {XML, "application/json"}
    assert sandbox.tokens_issued == 2  # the lister's, and one for the worker's two clients
    assert json_client is await clients.environment({"response_format": "json"})
    assert patient is not json_client
    assert pacing is not None
    assert pacing.options.timeout == Timeout(total=30.0, rate_wait=90.0)
    assert json_client is not None
    assert json_client.max_concurrency == 4


async def test_a_catalog_job_without_environment_credentials_says_so(
    clients: WorkerClients, run_redis: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    result = await export_catalog(
        job_context(clients, run_redis, {}), RUN, str(tmp_path), {**required(Catalog), "uuid": "c1"}, None, {}
    )
    assert result == {
        "error": "this worker has no ENTERPRISE_* credentials: start it with them to export catalogs"
    }
