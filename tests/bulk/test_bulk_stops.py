"""Bulk calls in chunks that stop early account for every item: a user's middleware raising its own
exception still ends in ``IncompleteBulkError``; a cancellation stays a ``CancelledError`` while
``bulk_progress()`` says what was applied; ``extra_body`` may not replace the items the call cuts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from enterprise_async import (
    ClientValidationError,
    IncompleteBulkError,
    OutgoingRequest,
    Send,
    bulk_progress,
)
from enterprise_async._response.responses import RawResponse
from enterprise_async.testing import DataSize, Sandbox

ASSIGN = "/enterprise/v1/subscriptions/{}/licenses/assign"
REVOKE = "/enterprise/v1/subscriptions/{}/licenses/bulk-revoke"


class CircuitOpenError(Exception):
    """A user's circuit breaker's own exception: not the SDK's."""


@pytest.fixture
async def roomy() -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=0, size=DataSize(licenses_per_plan=1000)) as sandbox:
        yield sandbox


def _emails(count: int) -> list[str]:
    return [f"learner{number}@example.com" for number in range(count)]


def _breaker_opening_at(attempt: int) -> tuple[list[int], object]:
    seen: list[int] = []

    async def breaker(request: OutgoingRequest, send: Send) -> RawResponse:
        seen.append(len(seen) + 1)
        if len(seen) == attempt:
            raise CircuitOpenError("circuit open")
        return await send(request)

    return seen, breaker


async def test_a_middlewares_own_exception_on_chunk_2_ends_in_incomplete_bulk_error_accounting_for_every_item(
    roomy: Sandbox,
) -> None:
    plan = roomy.data.plans[0].uuid
    emails = _emails(350)
    _, breaker = _breaker_opening_at(2)
    async with roomy.client(middleware=[breaker]) as client:
        with pytest.raises(IncompleteBulkError) as caught:
            await client.subscriptions.assign_licenses_in_chunks(plan, user_emails=emails)
    error, result = caught.value, caught.value.result
    assert isinstance(error.__cause__, CircuitOpenError)
    assert error.chunk == 2
    states = [outcome.state for outcome in result.chunks]
    assert states == ["succeeded", "maybe_applied", "not_sent", "not_sent"]
    assert isinstance(result.maybe_applied[0].error, CircuitOpenError)
    assert result.items("succeeded") == emails[:100]
    assert result.items("maybe_applied") == emails[100:200]
    assert result.items("not_sent") == emails[200:]
    assert len(roomy.requests.find("POST", ASSIGN.format(plan))) == 1


async def test_a_cancelled_bulk_call_stays_cancelled_and_its_progress_says_what_was_applied(
    roomy: Sandbox,
) -> None:
    plan = roomy.data.plans[0].uuid
    emails = _emails(300)
    second = asyncio.Event()

    async def hold_chunk_2(request: OutgoingRequest, send: Send) -> RawResponse:
        if len(roomy.requests.find("POST", ASSIGN.format(plan))) == 1:
            second.set()
            await asyncio.Event().wait()  # in flight until cancelled
        return await send(request)

    async with roomy.client(middleware=[hold_chunk_2]) as client:
        with bulk_progress() as progress:
            assigning = client.subscriptions.assign_licenses_in_chunks(plan, user_emails=emails)
            call = asyncio.ensure_future(assigning)
            await second.wait()
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
    result = progress.result
    assert result is not None
    assert [outcome.state for outcome in result.chunks] == ["succeeded", "maybe_applied", "not_sent"]
    assert result.items("succeeded") == emails[:100]
    assert result.items("maybe_applied") == emails[100:200]
    assert result.items("not_sent") == emails[200:]


async def test_extra_body_naming_the_items_a_chunked_call_cuts_is_refused_before_anything_is_sent(
    roomy: Sandbox,
) -> None:
    plan = roomy.data.plans[0].uuid
    async with roomy.client() as client:
        with pytest.raises(ClientValidationError) as caught:
            await client.subscriptions.bulk_revoke_in_chunks(
                plan, user_emails=_emails(250), extra_body={"user_emails": ["intruder@example.com"]}
            )
    assert caught.value.field == "extra_body"
    assert "user_emails" in str(caught.value)
    assert roomy.requests.find("POST", REVOKE.format(plan)) == []


async def test_extra_body_naming_other_fields_still_reaches_every_chunk(roomy: Sandbox) -> None:
    plan = roomy.data.plans[0].uuid
    async with roomy.client() as client:
        await client.subscriptions.assign_licenses_in_chunks(
            plan, user_emails=_emails(150), extra_body={"notify_users": False}
        )
    bodies = [request.json() for request in roomy.requests.find("POST", ASSIGN.format(plan))]
    assert [body["notify_users"] for body in bodies] == [False, False]
