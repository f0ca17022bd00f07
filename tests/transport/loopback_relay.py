"""An HTTP relay on loopback, the part every relay of the tests shares: a server that takes any
request, an upstream session (which ignores the environment: a relay never proxies to itself) that
sends it on, and the answer sent back, hop-by-hop headers (RFC 9110 section 7.6.1) dropped both ways.

A relay says where a request goes (``destination``), and may refuse it (``admit``) or delay it
(``delay``) first: ``tests.transport.loopback_proxy.LoopbackProxy`` (a forward proxy) and
``tests.fleet.loaded_network.DelayingRelay`` (a network's jitter) are the two.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer
from attrs import define, field
from multidict import CIMultiDict
from yarl import URL

__all__ = ["Handler", "Relay"]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)


@define
class Relay:
    """``async with SomeRelay(...) as relay:`` then ``relay.url``; every request it takes goes on
    to ``destination(request)``, unless ``admit`` answers it, after ``delay``."""

    _server: TestServer | None = field(default=None, init=False)
    _upstream: aiohttp.ClientSession | None = field(default=None, init=False)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``, the relay's address."""
        assert self._server is not None, "the relay is not running"
        return str(self._server.make_url("")).rstrip("/")

    def destination(self, request: web.Request) -> str | URL:
        """Where ``request`` goes on to."""
        raise NotImplementedError

    def admit(self, request: web.Request) -> web.StreamResponse | None:
        """An answer that refuses ``request`` here, or None to relay it (the default)."""
        return None

    async def delay(self, request: web.Request) -> None:
        """What holds ``request`` before it goes on (its body read): nothing by default."""

    def middlewares(self) -> list[Any]:
        """The server's middlewares (for requests no route takes): none by default."""
        return []

    async def __aenter__(self) -> Relay:
        self._upstream = aiohttp.ClientSession(
            trust_env=False, auto_decompress=False, connector=aiohttp.TCPConnector(limit=0)
        )
        app = web.Application(middlewares=self.middlewares())
        app.router.add_route("*", "/{tail:.*}", self._relay)
        self._server = TestServer(app, host="127.0.0.1")
        await self._server.start_server()
        return self

    async def __aexit__(self, *_: object) -> None:
        if self._server is not None:
            await self._server.close()
        if self._upstream is not None:
            await self._upstream.close()

    async def _relay(self, request: web.Request) -> web.StreamResponse:
        refused = self.admit(request)
        if refused is not None:
            return refused
        body = await request.read()
        await self.delay(request)
        assert self._upstream is not None
        async with self._upstream.request(
            request.method,
            self.destination(request),
            headers=end_to_end(request.headers),
            data=body,
            allow_redirects=False,
        ) as answer:
            answered = await answer.read()
            return web.Response(status=answer.status, body=answered, headers=end_to_end(answer.headers))


def end_to_end(headers: Mapping[str, str]) -> CIMultiDict[str]:
    """``headers`` without the hop-by-hop ones (and a proxy's own)."""
    return CIMultiDict((name, value) for name, value in headers.items() if name.lower() not in _HOP_BY_HOP)
