"""Each request carries a ``RequestTrace`` (operation, page, attempt) as aiohttp's ``trace_request_ctx``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import aiohttp

from enterprise_async import EnterpriseClient, RequestTrace, current_trace
from enterprise_async.testing import Fault, Sandbox
from tests.conftest import Backoffs


def recording_trace_config(seen: list[Any]) -> aiohttp.TraceConfig:
    """A plain TraceConfig, as an application would add to its own session."""
    config = aiohttp.TraceConfig()

    async def on_request_start(
        session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestStartParams
    ) -> None:
        seen.append((context.trace_request_ctx, current_trace()))

    config.on_request_start.append(on_request_start)
    return config


@asynccontextmanager
async def traced_client(seen: list[Any]) -> AsyncIterator[tuple[Sandbox, EnterpriseClient]]:
    """A sandbox, and a client whose session records every request's trace in ``seen``."""
    async with (
        Sandbox() as sandbox,
        aiohttp.ClientSession(trace_configs=[recording_trace_config(seen)]) as session,
        sandbox.client(session=session) as client,
    ):
        yield sandbox, client


async def test_each_request_names_its_operation_page_and_attempt(no_sleep: Backoffs) -> None:
    seen: list[Any] = []
    async with Sandbox(page_sizes={"contents": 7}) as sandbox:
        catalog = max(sandbox.data.catalogs, key=lambda catalog: catalog.item_count)
        sandbox.faults.inject(
            f"/enterprise/v2/enterprise-catalogs/{catalog.uuid}", Fault.server_error(503), skip=1
        )
        async with (
            aiohttp.ClientSession(trace_configs=[recording_trace_config(seen)]) as session,
            sandbox.client(retry=no_sleep.policy, session=session, max_concurrency=1) as client,
        ):
            await client.catalogs.contents(catalog.uuid).to_list()
    traces = [str(trace) for trace, _ in seen]
    assert traces[:4] == [
        "auth.token, attempt 1",
        "catalogs.contents page 1, attempt 1",
        "catalogs.contents page 2, attempt 1",
        "catalogs.contents page 2, attempt 2",
    ]
    assert traces[4] == "catalogs.contents page 3, attempt 1"


async def test_the_trace_context_is_a_typed_object_also_current_in_the_task() -> None:
    seen: list[Any] = []
    async with traced_client(seen) as (_, client):
        await client.catalogs.list().first_page()
    assert all(isinstance(trace, RequestTrace) for trace, _ in seen)
    assert [trace for trace, _ in seen] == [current for _, current in seen]
    assert current_trace() is None


async def test_a_token_refresh_is_traced_as_auth_token() -> None:
    seen: list[Any] = []
    async with traced_client(seen) as (sandbox, client):
        await client.catalogs.list().first_page()
        sandbox.tokens.expire_all()
        await client.catalogs.list().first_page()
    operations = [trace.operation for trace, _ in seen]
    assert operations.count("auth.token") == 2
