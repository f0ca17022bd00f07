"""A forward HTTP proxy on loopback for the proxy tests: it relays each request it is given to the
absolute URL the client named and records what it saw, so a test can tell which requests went
through a proxy and which went straight to the server.

Only plain HTTP is relayed (the sandbox and the scripted API speak HTTP); a CONNECT (a tunnel for
HTTPS) is only checked for the proxy's credentials, then refused: no tunnel is needed on loopback.
"""

from __future__ import annotations

import base64
from typing import Any

from aiohttp import web
from attrs import define, field
from yarl import URL

from .loopback_relay import Handler, Relay


@define(frozen=True)
class Relayed:
    """One request the proxy relayed: its method, the absolute URL it was asked for, the
    proxy credentials it carried (user, password) and the request's own Authorization header."""

    method: str
    url: URL
    proxy_credentials: tuple[str, str] | None
    authorization: str | None = field(repr=False)


@define
class LoopbackProxy(Relay):
    """``async with LoopbackProxy() as proxy:`` then ``proxy.url``; ``proxy.relayed`` lists what went through.

    With ``credentials=("user", "password")`` a request without them is answered 407.
    """

    credentials: tuple[str, str] | None = None
    relayed: list[Relayed] = field(factory=list)

    def url_with_credentials(self, user: str, password: str) -> str:
        """The proxy's address with credentials in it, as ``HTTP_PROXY`` or ``proxy=`` take them."""
        return str(URL(self.url).with_user(user).with_password(password))

    def paths(self) -> list[str]:
        """The paths of every relayed request, in order."""
        return [request.url.path for request in self.relayed]

    async def __aenter__(self) -> LoopbackProxy:
        await super().__aenter__()
        return self

    def middlewares(self) -> list[Any]:
        return [self._connect]

    @web.middleware
    async def _connect(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """A CONNECT names a host, not a path, so no route takes it: it is answered here."""
        if request.method != "CONNECT":
            return await handler(request)
        given = _basic_credentials(request.headers.get("Proxy-Authorization"))
        if self.credentials is not None and given != self.credentials:
            return web.Response(status=407, headers={"Proxy-Authenticate": 'Basic realm="loopback"'})
        return web.Response(status=501, text="this proxy opens no tunnel")

    def admit(self, request: web.Request) -> web.StreamResponse | None:
        if request.raw_path.startswith("/"):
            return web.Response(status=400, text="a forward proxy is asked for absolute URLs")
        given = _basic_credentials(request.headers.get("Proxy-Authorization"))
        if self.credentials is not None and given != self.credentials:
            return web.Response(status=407, headers={"Proxy-Authenticate": 'Basic realm="loopback"'})
        self.relayed.append(Relayed(request.method, request.url, given, request.headers.get("Authorization")))
        return None

    def destination(self, request: web.Request) -> URL:
        return request.url


def _basic_credentials(header: str | None) -> tuple[str, str] | None:
    if not header or not header.startswith("Basic "):
        return None
    user, _, password = base64.b64decode(header[len("Basic ") :]).decode().partition(":")
    return user, password
