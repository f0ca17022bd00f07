"""Timeouts apart: ``Timeout(connect=, read=, total=, rate_wait=)`` sets each kind on its own; a plain
number keeps meaning the whole attempt. Each test talks to a loopback server it starts."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Iterator

import pytest
from aiohttp import web

from enterprise_async import (
    APITimeoutError,
    ClientValidationError,
    EnterpriseClient,
    OutgoingRequest,
    RawResponse,
    Send,
    Timeout,
)
from tests.conftest import CLIENT_ID, CLIENT_SECRET, Backoffs, ScriptedAPI

SLOW = "/enterprise/v1/slow/"
CHUNKS = 40
CHUNK_GAP = 0.05  # seconds between two chunks of a trickled answer
LIMIT = CHUNKS * CHUNK_GAP / 2
"""The limit of the trickle tests, 1 s: half the trickled answer, which takes at least 2 s (a sleep
never ends early), and 20 gaps between chunks, room for a loaded machine's stalls."""


def trickle(api: ScriptedAPI) -> None:
    """An answer whose headers come at once and whose body comes in chunks, CHUNK_GAP apart."""

    @api.route("GET", SLOW)
    async def slow(request: web.Request) -> web.StreamResponse:
        answer = web.StreamResponse(headers={"Content-Type": "application/json"})
        await answer.prepare(request)
        await answer.write(b'{"chunks": "')
        for _ in range(CHUNKS):
            await asyncio.sleep(CHUNK_GAP)
            await answer.write(b"x")
        await answer.write(b'"}')
        await answer.write_eof()
        return answer


def stall(api: ScriptedAPI, seconds: float) -> None:
    """An answer that starts only after ``seconds``."""

    @api.route("GET", SLOW)
    async def late(request: web.Request) -> web.Response:
        await asyncio.sleep(seconds)
        return web.json_response({})


async def test_a_plain_number_limits_the_whole_attempt(api: ScriptedAPI) -> None:
    trickle(api)
    async with api.client(timeout=LIMIT, max_retries=0) as client:
        with pytest.raises(APITimeoutError, match=r"timed out \(total\)"):
            await client.request("GET", SLOW)


async def test_a_read_limit_lets_a_steady_answer_finish(api: ScriptedAPI) -> None:
    trickle(api)
    async with api.client(timeout=Timeout(read=LIMIT), max_retries=0) as client:
        assert await client.request("GET", SLOW) == {"chunks": "x" * CHUNKS}


async def test_a_read_limit_ends_a_wait_for_an_answer_that_does_not_come(api: ScriptedAPI) -> None:
    stall(api, 2.0)
    async with api.client(max_retries=0) as client:
        with pytest.raises(APITimeoutError, match=r"timed out \(read\)"):
            await client.request("GET", SLOW, timeout=Timeout(read=0.2, total=30))


async def test_a_view_sets_its_own_timeouts(api: ScriptedAPI) -> None:
    stall(api, 2.0)
    async with api.client(max_retries=0) as client:
        hasty = client.with_options(timeout=Timeout(read=0.2))
        with pytest.raises(APITimeoutError, match=r"\(read\)"):
            await hasty.request("GET", SLOW)
    assert hasty.options.timeout == Timeout(read=0.2)
    assert client.options.timeout == Timeout(total=30.0)


@pytest.fixture
def unanswering_port() -> Iterator[int]:
    """A loopback port whose listener never accepts and whose queue is full: a connection to it
    is never established, so only the connect limit ends the wait."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = int(listener.getsockname()[1])
    fillers = []
    for _ in range(4):
        filler = socket.socket()
        filler.setblocking(False)
        with contextlib.suppress(BlockingIOError):  # the connection is left half-open on purpose
            filler.connect(("127.0.0.1", port))
        fillers.append(filler)
    try:
        yield port
    finally:
        for filler in fillers:
            filler.close()
        listener.close()


@pytest.fixture
async def unanswering(api: ScriptedAPI, unanswering_port: int) -> AsyncIterator[EnterpriseClient]:
    """A client whose tokens come from ``api`` and whose API never lets it connect."""
    async with EnterpriseClient(
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        base_url=f"http://127.0.0.1:{unanswering_port}",
        auth_url=api.base_url,
        timeout=Timeout(connect=0.2, total=30),
        max_retries=0,
    ) as client:
        yield client


async def test_a_connect_limit_ends_a_connection_that_is_never_made(unanswering: EnterpriseClient) -> None:
    with pytest.raises(APITimeoutError, match=r"timed out \(connect\)"):
        await unanswering.request("GET", SLOW)


async def test_a_post_whose_connection_was_never_made_is_retried(
    unanswering: EnterpriseClient, no_sleep: Backoffs
) -> None:
    attempts: list[int] = []

    async def count(request: OutgoingRequest, send: Send) -> RawResponse:
        attempts.append(request.trace.attempt)
        return await send(request)

    retrying = unanswering.with_options(max_retries=1, middleware=[count], retry=no_sleep.policy)
    with pytest.raises(APITimeoutError):
        await retrying.request("POST", SLOW, json={})
    assert attempts == [1, 2]


def test_a_plain_number_is_the_total(api: ScriptedAPI) -> None:
    assert api.client(timeout=12).options.timeout == Timeout(total=12.0)
    assert api.client(timeout=12).options.timeout.rate_wait is None, "the rate budget's wait unbounded"
    assert str(Timeout(connect=3, read=10)) == "connect 3 s, read 10 s"
    assert str(Timeout(total=30, rate_wait=120)) == "total 30 s, rate wait 120 s"


@pytest.mark.parametrize(
    "timeout", [Timeout(total=30, rate_wait=120), Timeout(rate_wait=5), Timeout(total=30), Timeout(read=2)]
)
def test_a_timeout_travels_whole_with_a_queued_job(timeout: Timeout) -> None:
    from enterprise_async._request.options import ClientOptions

    options = ClientOptions(timeout=timeout)
    carried = json.loads(json.dumps(options.overrides()))  # what a queued job carries to a worker
    assert ClientOptions().merged(carried) == options
    assert ClientOptions().evolve(timeout={"rate_wait": 60}).timeout == Timeout(rate_wait=60)


@pytest.mark.parametrize("bad", [0, -1, "30", True, float("nan"), {"connect": 1, "write": 2}])
def test_a_bad_timeout_is_refused_with_a_typed_error(api: ScriptedAPI, bad: object) -> None:
    with pytest.raises(ClientValidationError, match="timeout"):
        api.client(timeout=bad)


@pytest.mark.parametrize("kind", ["connect", "read", "total", "rate_wait"])
def test_a_bad_limit_of_one_kind_is_refused(kind: str) -> None:
    with pytest.raises(ClientValidationError, match="timeout"):
        Timeout(**{kind: 0})  # type: ignore[arg-type]
