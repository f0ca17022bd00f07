"""A forward HTTP proxy on loopback for the proxy tests: it relays each request it is given to the
absolute URL the client named and records what it saw, so a test can tell which requests went
through a proxy and which went straight to the server.

Only plain HTTP is relayed (the sandbox and the scripted API speak HTTP); a CONNECT (a tunnel for
HTTPS) is only checked for the proxy's credentials, then refused: no tunnel is needed on loopback.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Mapping

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer
from attrs import define, field
from multidict import CIMultiDict
from yarl import URL

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# Hop-by-hop headers (RFC 9110 section 7.6.1) and the proxy's own: never relayed.
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


@define(frozen=True)
class Relayed:
    """One request the proxy relayed: its method, the absolute URL it was asked for, the
    proxy credentials it carried (user, password) and the request's own Authorization header."""

    method: str
    url: URL
    proxy_credentials: tuple[str, str] | None
    authorization: str | None = field(repr=False)


@define
class LoopbackProxy:
    """``async with LoopbackProxy() as proxy:`` then ``proxy.url``; ``proxy.relayed`` lists what went through.

    With ``credentials=("user", "password")`` a request without them is answered 407.
    """

    credentials: tuple[str, str] | None = None
    relayed: list[Relayed] = field(factory=list)
    _server: TestServer | None = None
    _upstream: aiohttp.ClientSession | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``, the address to give as a proxy."""
        assert self._server is not None, "the proxy is not running"
        return str(self._server.make_url("")).rstrip("/")

    def url_with_credentials(self, user: str, password: str) -> str:
        """The proxy's address with credentials in it, as ``HTTP_PROXY`` or ``proxy=`` take them."""
        return str(URL(self.url).with_user(user).with_password(password))

    def paths(self) -> list[str]:
        """The paths of every relayed request, in order."""
        return [request.url.path for request in self.relayed]

    async def __aenter__(self) -> LoopbackProxy:
        # The proxy's own upstream session ignores the environment: it must never proxy to itself.
        self._upstream = aiohttp.ClientSession(trust_env=False, auto_decompress=False)
        app = web.Application(middlewares=[self._connect])
        app.router.add_route("*", "/{tail:.*}", self._relay)
        self._server = TestServer(app, host="127.0.0.1")
        await self._server.start_server()
        return self

    async def __aexit__(self, *_: object) -> None:
        if self._server is not None:
            await self._server.close()
        if self._upstream is not None:
            await self._upstream.close()

    @web.middleware
    async def _connect(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """A CONNECT names a host, not a path, so no route takes it: it is answered here."""
        if request.method != "CONNECT":
            return await handler(request)
        given = _basic_credentials(request.headers.get("Proxy-Authorization"))
        if self.credentials is not None and given != self.credentials:
            return web.Response(status=407, headers={"Proxy-Authenticate": 'Basic realm="loopback"'})
        return web.Response(status=501, text="this proxy opens no tunnel")

    async def _relay(self, request: web.Request) -> web.StreamResponse:
        if request.raw_path.startswith("/"):
            return web.Response(status=400, text="a forward proxy is asked for absolute URLs")
        given = _basic_credentials(request.headers.get("Proxy-Authorization"))
        if self.credentials is not None and given != self.credentials:
            return web.Response(status=407, headers={"Proxy-Authenticate": 'Basic realm="loopback"'})
        self.relayed.append(Relayed(request.method, request.url, given, request.headers.get("Authorization")))
        assert self._upstream is not None
        async with self._upstream.request(
            request.method,
            request.url,
            headers=_end_to_end(request.headers),
            data=await request.read(),
            allow_redirects=False,
        ) as answer:
            body = await answer.read()
            return web.Response(status=answer.status, body=body, headers=_end_to_end(answer.headers))


def _end_to_end(headers: Mapping[str, str]) -> CIMultiDict[str]:
    return CIMultiDict((name, value) for name, value in headers.items() if name.lower() not in _HOP_BY_HOP)


def _basic_credentials(header: str | None) -> tuple[str, str] | None:
    if not header or not header.startswith("Basic "):
        return None
    user, _, password = base64.b64decode(header[len("Basic ") :]).decode().partition(":")
    return user, password
