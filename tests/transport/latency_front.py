"""A sandbox served on loopback behind latency of a chosen shape, for the adaptive concurrency
tests and benchmark: latency that grows with the page asked for (a deep page is slow, nothing is
congested), or latency that grows with the requests the server holds at once (a server whose
capacity is spent).

The front is an aiohttp server of its own whose one route is the sandbox's handler, behind a
middleware that waits first; the token issuer's requests wait for nothing. The sandbox itself must
be running (its clients are built from it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestServer
from attrs import define, field

from enterprise_async import EnterpriseClient
from enterprise_async.testing import Sandbox

__all__ = ["Crowded", "LatencyFront", "PageDepth"]

TOKEN_PATH = "/oauth2/v1/access_token"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@define
class PageDepth:
    """Each answer after ``first`` seconds plus ``per_page`` for each page past the first: the
    latency of a service whose deep pages cost more (an offset scan), however many are in flight."""

    first: float
    per_page: float

    async def __call__(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        page = int(request.query.get("page", "1"))
        await asyncio.sleep(self.first + self.per_page * (page - 1))
        return await handler(request)


@define
class Crowded:
    """Each answer after ``per_request`` seconds for every request the server holds when it
    arrives, itself included: a server whose capacity is spent, so that latency rises with the
    requests in flight, and with nothing else (twice as many in flight, twice as slow)."""

    per_request: float
    holding: int = 0

    async def __call__(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        self.holding += 1
        try:
            await asyncio.sleep(self.per_request * self.holding)
            return await handler(request)
        finally:
            self.holding -= 1


@define
class LatencyFront:
    """``async with LatencyFront(sandbox, PageDepth(0.005, 0.001)) as front:`` then ``front.client()``."""

    sandbox: Sandbox
    latency: Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]
    _server: TestServer | None = field(default=None, init=False)

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the front is not running")
        return str(self._server.make_url("")).rstrip("/")

    def client(self, **settings: Any) -> EnterpriseClient:
        """A client of the sandbox whose every request goes through the front."""
        return self.sandbox.client(base_url=self.url, auth_url=self.url, **settings)

    async def __aenter__(self) -> LatencyFront:
        @web.middleware
        async def wait(request: web.Request, handler: Handler) -> web.StreamResponse:
            if request.path == TOKEN_PATH:
                return await handler(request)
            return await self.latency(request, handler)

        app = web.Application(middlewares=[wait])
        app.router.add_route("*", "/{tail:.*}", self.sandbox.server.handle)
        self._server = TestServer(app, host="127.0.0.1")
        await self._server.start_server()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            await self._server.close()
            self._server = None
