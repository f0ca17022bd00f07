"""A loopback API that loses data on purpose, serving from its own thread.

Each catalog's contents are served by a ``Listing`` that says how the server misbehaves: links
that end early, a count that lies, a page in the middle that fails however often it is asked,
or nothing wrong at all. A bulk revoke may answer ``204 No Content``, as older license-manager
versions (and the gateway's own route) do. The server runs on a loop of its own, as a real peer
would, so the same server serves an async test and a command run by click's runner (which runs
``asyncio.run`` itself) or by a child process.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from aiohttp import web
from attrs import define, field

from enterprise_async import EnterpriseClient

TOKEN_PATH = "/oauth2/v1/access_token"
CATALOGS = "/enterprise/v2/enterprise-catalogs"
CLIENT_ID = "lost-client"
CLIENT_SECRET = "lost-secret"
INVALID_PAGE = {"detail": "Invalid page."}
"""Django REST framework's answer to a page past the last one."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def items(count: int, prefix: str = "course") -> list[dict[str, Any]]:
    """``count`` catalog items (courses), numbered in server order."""
    return [
        {"content_type": "course", "key": f"{prefix}+{number:04d}", "title": f"Course {number}"}
        for number in range(count)
    ]


@define
class Listing:
    """One catalog's contents, pages of ``size`` items, and how the server misbehaves.

    ``count`` is what every envelope claims (the truth when None); ``last_link`` is the last page
    whose envelope links to another (all but the last when None); ``failing`` answers
    ``failure`` (status, body) on that page, every time; ``latency`` holds each page.
    """

    contents: list[dict[str, Any]]
    size: int = 10
    count: int | None = None
    last_link: int | None = None
    failing: int | None = None
    failure: tuple[int, Any] = (404, {"detail": "Not found."})
    latency: float = 0.0
    requested: list[int] = field(factory=list)

    @property
    def pages(self) -> int:
        return max(1, math.ceil(len(self.contents) / self.size))

    def page(self, number: int, link_base: str) -> tuple[int, Any]:
        """The status and body of page ``number``."""
        self.requested.append(number)
        if number == self.failing:
            return self.failure
        if number > self.pages:
            return 404, INVALID_PAGE
        linked = self.last_link if self.last_link is not None else self.pages - 1
        start = (number - 1) * self.size
        return 200, {
            "count": len(self.contents) if self.count is None else self.count,
            "next": f"{link_base}?page={number + 1}" if number <= linked else None,
            "previous": None,
            "results": self.contents[start : start + self.size],
        }


@define
class LostServer:
    """Catalogs whose listings lose data as scripted; other routes as a test scripts them."""

    listings: dict[str, Listing] = field(factory=dict)
    routes: dict[tuple[str, str], Handler] = field(factory=dict)
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _runner: web.AppRunner | None = None
    _port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    @property
    def environment(self) -> dict[str, str]:
        """The variables a command reads its credentials from."""
        return {
            "ENTERPRISE_CLIENT_ID": CLIENT_ID,
            "ENTERPRISE_CLIENT_SECRET": CLIENT_SECRET,
            "ENTERPRISE_BASE_URL": self.base_url,
            "ENTERPRISE_AUTH_URL": self.base_url,
        }

    def client(self, **settings: Any) -> EnterpriseClient:
        options: dict[str, Any] = {
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "base_url": self.base_url,
            "max_retries": 0,
        }
        return EnterpriseClient(**(options | settings))

    def catalog(self, uuid: str, listing: Listing) -> Listing:
        """Serve ``listing`` as the contents of catalog ``uuid`` (listed by ``catalogs.list``)."""
        self.listings[uuid] = listing
        return listing

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        if request.path == TOKEN_PATH:
            return web.json_response({"access_token": "lost-token", "token_type": "JWT", "expires_in": 3600})
        handler = self.routes.get((request.method, request.path))
        if handler is not None:
            return await handler(request)
        if request.path.rstrip("/") == CATALOGS:
            return web.json_response(self._catalog_list())
        uuid = request.path.removeprefix(CATALOGS + "/")
        listing = self.listings.get(uuid)
        if listing is None:
            return web.json_response({"detail": "Not found."}, status=404)
        await asyncio.sleep(listing.latency)
        status, body = listing.page(int(request.query.get("page", "1")), f"{self.base_url}{request.path}")
        return web.json_response(body, status=status)

    def _catalog_list(self) -> dict[str, Any]:
        results = [
            {
                "uuid": uuid,
                "title": f"Catalog {uuid}",
                "enterprise_customer": "4f2ad1b8-9c6e-4c1a-8f0e-3b7d2e5a9c11",
            }
            for uuid in self.listings
        ]
        return {"count": len(results), "next": None, "previous": None, "results": results}

    def start(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="lost-server", daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=30)

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = self._runner.addresses[0][1]

    def stop(self) -> None:
        if self._loop is None or self._thread is None:
            return
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()


@contextmanager
def serving() -> Iterator[LostServer]:
    """A started ``LostServer``, stopped afterwards."""
    server = LostServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
