"""Shared fixtures: a scripted loopback API for runtime tests, mocked aiohttp (``mocked_aiohttp``), and the
leak watch (tests/_leak_watch.py) that fails any test whose log records, output or failure
report carry a client secret or a token."""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest
from aiohttp import ClientResponse, web
from aiohttp.test_utils import TestServer
from aioresponses import aioresponses
from attrs import define, field

from enterprise_async import EnterpriseClient, OutgoingRequest, RawResponse, RetryPolicy, Send

# --------------------------------------------------------------------------- leak watch
# Every test of every pytest process (each xdist worker too) is checked for secrets and tokens in
# what it made the SDK say: tests/_leak_watch.py. This module imports it inside functions only:
# pytest must import a plugin first (it warns, an error here, of one already imported).
pytest_plugins = ["tests._leak_watch"]


def watch_for(secret: str) -> None:
    """Have the leak watch look for ``secret`` in every later test of this process."""
    from tests._leak_watch import watch_for as watch

    watch(secret)


def pytest_configure(config: pytest.Config) -> None:
    """The scripted API's client secret is watched for in every test (its tokens as it issues them)."""
    watch_for(CLIENT_SECRET)


# --------------------------------------------------------------------------- terminal size
# The command-line tests read output as a pipe gets it: no COLUMNS or LINES, so tables take the
# CLI's width for pipes. pytest-xdist's workers are given COLUMNS=80 and LINES=24, and a developer's
# shell may export them: neither is what the tests describe.
for _terminal_size in ("COLUMNS", "LINES"):
    os.environ.pop(_terminal_size, None)


# --------------------------------------------------------------------------- scripted API

CLIENT_ID = "test-client"
CLIENT_SECRET = "s3cr3t-value-never-shown"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@define
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    connection: int = 0
    """Which of the server's connections the request came on (0 for the first)."""


@define
class ScriptedAPI:
    """A real HTTP server on loopback whose routes each test scripts; it records every request."""

    server: TestServer
    routes: dict[tuple[str, str], Handler] = field(factory=dict)
    requests: list[Recorded] = field(factory=list)
    token_lifetime: str = "3600"
    tokens_issued: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    connections: list[asyncio.BaseTransport] = field(factory=list)
    """The connections clients opened to the server, in the order of their first request."""

    @property
    def base_url(self) -> str:
        return str(self.server.make_url("")).rstrip("/")

    def route(self, method: str, path: str) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            self.routes[(method, path)] = handler
            return handler

        return register

    def json(self, method: str, path: str, body: Any, status: int = 200, **headers: str) -> None:
        async def respond(request: web.Request) -> web.StreamResponse:
            return web.json_response(body, status=status, headers=headers)

        self.routes[(method, path)] = respond

    def calls(self, method: str, path: str) -> list[Recorded]:
        return [request for request in self.requests if (request.method, request.path) == (method, path)]

    def open_connections(self) -> int:
        """Connections a client opened that neither side has closed yet."""
        return sum(not connection.is_closing() for connection in self.connections)

    async def connections_closed(self) -> None:
        """Return once every connection a client opened is closed (the server read its end)."""
        while self.open_connections():  # noqa: ASYNC110 - aiohttp's server tells no event when one closes
            await asyncio.sleep(0.01)

    def client(self, **kwargs: Any) -> EnterpriseClient:
        settings: dict[str, Any] = {
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "base_url": self.base_url,
        }
        settings.update(kwargs)
        return EnterpriseClient(**settings)

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        transport = request.transport
        if transport is not None and transport not in self.connections:
            self.connections.append(transport)
        connection = self.connections.index(transport) if transport is not None else 0
        query, headers = dict(request.query), dict(request.headers)
        self.requests.append(Recorded(request.method, request.path, query, headers, body, connection))
        key = (request.method, request.path)
        if key == ("POST", "/oauth2/v1/access_token") and key not in self.routes:
            self.tokens_issued += 1
            token = f"token-{self.tokens_issued}"
            watch_for(token)
            return web.json_response(
                {"access_token": token, "token_type": "JWT", "expires_in": self.token_lifetime}
            )
        handler = self.routes.get(key)  # a test may script the issuer too
        if handler is None:
            return web.json_response({"detail": "no such route in this test"}, status=404)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await handler(request)
        finally:
            self.in_flight -= 1


@pytest.fixture
async def api() -> AsyncIterator[ScriptedAPI]:
    holder: list[ScriptedAPI] = []

    async def dispatch(request: web.Request) -> web.StreamResponse:
        return await holder[0].dispatch(request)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", dispatch)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    holder.append(ScriptedAPI(server))
    try:
        yield holder[0]
    finally:
        await server.close()


class Backoffs(list[float]):
    """The waits a client's retries chose, kept here instead of waited: a client (a view, a call)
    given ``retry=backoffs.policy``, or ``retry=backoffs.of(RetryPolicy(...))``, retries as that
    policy says, but its ``delay`` records the wait the policy chose and answers 0."""

    def __init__(self) -> None:
        super().__init__()
        chosen = self

        class Recorded(RetryPolicy):
            def delay(self, retry: int, retry_after: float | None = None) -> float:
                chosen.append(super().delay(retry, retry_after))
                return 0.0

        self._recorded = Recorded
        self.policy = self.of(RetryPolicy())

    def of(self, policy: RetryPolicy) -> RetryPolicy:
        """``policy``, its waits recorded here instead of waited."""
        return self._recorded(**policy.to_json())


@pytest.fixture
def no_sleep() -> Backoffs:
    """Retry backoffs recorded instead of slept, so retry tests take no wall-clock time."""
    return Backoffs()


class InFlight:
    """A middleware counting the attempts on the wire at once, and the most there ever were:
    what the server would see."""

    def __init__(self) -> None:
        self.now = 0
        self.most = 0

    async def __call__(self, request: OutgoingRequest, send: Send) -> RawResponse:
        self.now += 1
        self.most = max(self.most, self.now)
        try:
            return await send(request)
        finally:
            self.now -= 1


# --------------------------------------------------------------------------- mocked aiohttp
# aioresponses 0.7.9 builds ClientResponse without `stream_writer`, which aiohttp 3.14 requires
# (aioresponses issue #289, still open). Until a release fixes it, the fixture gives the
# constructor, for the test's duration only, the one thing it reads from a request that was
# already sent: the number of bytes written.


class _SentRequestWriter:
    output_size = 0


class _ClientResponseWithWriter(ClientResponse):
    def __init__(self, method: str, url: Any, **kwargs: Any) -> None:
        kwargs.setdefault("stream_writer", _SentRequestWriter())
        super().__init__(method, url, **kwargs)


@pytest.fixture
def mocked_aiohttp(monkeypatch: pytest.MonkeyPatch) -> Iterator[aioresponses]:
    """aiohttp's requests answered by ``aioresponses`` within the test (no socket opened)."""
    if "stream_writer" in inspect.signature(ClientResponse.__init__).parameters:
        monkeypatch.setattr("aioresponses.core.ClientResponse", _ClientResponseWithWriter)
    with aioresponses() as mocked:
        yield mocked
