"""Request ids: every call sends ``X-Request-ID`` (the spec's ``x-sdk-request-id-header``), a fresh
UUID per call and the same on each of its retries; errors, DEBUG records and traces carry it, and a
caller's own value (``extra_headers``) wins."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest

from enterprise_async import APIConnectionError, APIStatusError, current_trace
from enterprise_async._generated.operations import SPEC
from enterprise_async._transport.middleware import OutgoingRequest
from enterprise_async.testing import Fault, Sandbox
from tests.conftest import Backoffs

CATALOGS = "/enterprise/v2/enterprise-catalogs"
UNKNOWN = "00000000-0000-4000-8000-000000000000"
HEADER = "X-Request-ID"


def sent_ids(sandbox: Sandbox, path: str = CATALOGS) -> list[str]:
    return [
        next(value for name, value in entry.headers.items() if name.lower() == HEADER.lower())
        for entry in sandbox.requests.find(path=path)
    ]


def test_the_header_comes_from_the_spec() -> None:
    assert SPEC.request_id_header == HEADER


async def test_each_call_sends_a_fresh_uuid() -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client() as client:
        await client.catalogs.list().first_page()
        await client.catalogs.list().first_page()
    first, second = sent_ids(sandbox)
    assert first != second
    assert str(uuid.UUID(first)) == first


async def test_every_retry_of_a_call_sends_the_same_id(no_sleep: Backoffs) -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client(retry=no_sleep.policy) as client:
        sandbox.faults.inject(CATALOGS, Fault.server_error(503), times=2)
        await client.catalogs.list().first_page()
    ids = sent_ids(sandbox)
    assert len(ids) == 3
    assert len(set(ids)) == 1


async def test_a_callers_own_id_wins() -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client() as client:
        await client.catalogs.list(extra_headers={"x-request-id": "mine-1"}).first_page()
    assert sent_ids(sandbox) == ["mine-1"]


async def test_a_status_error_carries_the_id_it_was_sent_with_and_ends_with_it() -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client() as client:
        with pytest.raises(APIStatusError) as raised:
            await client.catalogs.course(UNKNOWN, "edX+DemoX")
    (sent,) = sent_ids(sandbox, f"{CATALOGS}/{UNKNOWN}/courses/edX+DemoX")
    assert raised.value.request_id == sent
    assert str(raised.value).endswith(f"(request id {sent})")
    assert raised.value.response_request_id == raised.value.headers["x-amzn-RequestId"]


async def test_a_request_that_got_no_answer_carries_the_id_it_was_sent_with() -> None:
    async with Sandbox(seed=0) as sandbox:
        client = sandbox.client(max_retries=0)
    async with client:
        with pytest.raises(APIConnectionError) as raised:
            await client.catalogs.list().first_page()
    assert raised.value.request_id
    assert str(uuid.UUID(raised.value.request_id)) == raised.value.request_id
    assert str(raised.value).endswith(f"(request id {raised.value.request_id})")


async def test_debug_records_and_traces_carry_the_id(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="enterprise_async")
    traced: list[Any] = []

    async def trace(request: OutgoingRequest, send: Any) -> Any:
        now = current_trace()
        traced.append((request.trace.request_id, now.request_id if now else None))
        return await send(request)

    async with Sandbox(seed=0) as sandbox, sandbox.client(middleware=[trace]) as client:
        await client.catalogs.list().first_page()
    (sent,) = sent_ids(sandbox)
    assert traced == [(sent, sent)]
    answers = [record for record in caplog.records if getattr(record, "path", None) == CATALOGS]
    assert [getattr(record, "request_id", None) for record in answers] == [sent]
    assert sent in answers[0].getMessage()


async def test_a_views_own_id_in_any_case_wins_and_a_calls_own_wins_over_it() -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client() as client:
        view = client.with_options(headers={"x-REQUEST-id": "view-1"})
        await view.catalogs.list().first_page()
        await view.catalogs.list(extra_headers={"X-Request-Id": "call-1"}).first_page()
        await view.catalogs.list(extra_headers={"X-Other": "o"}).first_page()
        await client.catalogs.list().first_page()
    view_id, call_id, other_id, fresh = sent_ids(sandbox)
    assert (view_id, call_id, other_id) == ("view-1", "call-1", "view-1")
    assert uuid.UUID(fresh).version == 4


async def test_ids_are_random_uuids_each_call_its_own() -> None:
    seen: list[str] = []

    async def record(request: OutgoingRequest, send: Any) -> Any:
        seen.append(request.trace.request_id or "")
        return await send(request)

    async with Sandbox(seed=0) as sandbox, sandbox.client(middleware=[record]) as client:
        for _ in range(200):
            await client.catalogs.list().first_page()
    assert len(set(seen)) == 200
    for sent in seen:
        parsed = uuid.UUID(sent)
        assert (str(parsed), parsed.version, parsed.variant) == (sent, 4, uuid.RFC_4122)
