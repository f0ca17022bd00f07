"""A hostile HTTP server on loopback, serving from its own thread.

It runs on a loop of its own, as a real peer would, so a test may talk to it from an async test
or from a command run by click's runner (which runs ``asyncio.run`` itself). Each test scripts the
routes it needs; the token issuer hands out opaque tokens by default (not shaped like JWTs, so a
test sees that the SDK hides the tokens it was given, not only what looks like a token).
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import secrets
import threading
import zlib
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote, quote_plus

from aiohttp import web
from attrs import define, field

from enterprise_async import EnterpriseClient
from enterprise_async._utils.redaction import SHORT_SECRET_LENGTH
from tests._leak_watch import watch_for

TOKEN_PATH = "/oauth2/v1/access_token"
CATALOGS = "/enterprise/v2/enterprise-catalogs"
EMPTY_PAGE = {"count": 0, "next": None, "previous": None, "results": []}
CLIENT_ID = "hostile-client"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@define
class HostileServer:
    """A loopback API whose routes echo, stall, bomb or lie as a test scripts them."""

    client_secret: str = "p@ss+w/rd=1&x~é"
    routes: dict[tuple[str, str], Handler] = field(factory=dict)
    tokens: list[str] = field(factory=list)
    forms: list[bytes] = field(factory=list)
    """Bodies the token issuer received."""
    received: list[tuple[str, str, bytes]] = field(factory=list)
    """Every request but the token's: method, path and body."""
    fallback: Handler | None = None
    """Answers the requests no route is scripted for (a 404 otherwise)."""
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _runner: web.AppRunner | None = None
    _port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    def client(self, **settings: Any) -> EnterpriseClient:
        options: dict[str, Any] = {
            "client_id": CLIENT_ID,
            "client_secret": self.client_secret,
            "base_url": self.base_url,
            "max_retries": 0,
            "timeout": 5.0,
        }
        options.update(settings)
        return EnterpriseClient(**options)

    def route(self, method: str, path: str) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            self.routes[(method, path)] = handler
            return handler

        return register

    def shown_forms(self) -> list[str]:
        """Every form the secret and the tokens could take in what the SDK shows."""
        return [text for value in [self.client_secret, *self.tokens] for text in _encodings(value)]

    # ------------------------------------------------------------------ serving

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        if request.path != TOKEN_PATH:
            self.received.append((request.method, request.path, await request.read()))
        handler = self.routes.get((request.method, request.path))
        if handler is not None:
            return await handler(request)
        if (request.method, request.path) == ("POST", TOKEN_PATH):
            return await self._issue(request)
        if (request.method, request.path) == ("GET", CATALOGS):
            return web.json_response(EMPTY_PAGE)  # an honest answer, for the tests that need one
        if self.fallback is not None:
            return await self.fallback(request)
        return web.json_response({"detail": "Not found."}, status=404)

    async def _issue(self, request: web.Request) -> web.StreamResponse:
        self.forms.append(await request.read())
        token = f"opaque-{secrets.token_hex(12)}"
        self.tokens.append(token)
        watch_for(token)  # the suite's leak watch looks for it in every test's output too
        return web.json_response({"access_token": token, "token_type": "JWT", "expires_in": 3600})

    def start(self) -> None:
        if len(self.client_secret) >= SHORT_SECRET_LENGTH:  # a one-letter one is in every message
            watch_for(self.client_secret)
        loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=loop.run_forever, name="hostile-server", daemon=True)
        self._thread.start()
        self._loop = loop
        asyncio.run_coroutine_threadsafe(self._serve(), loop).result(timeout=30)

    async def _serve(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        self._runner = web.AppRunner(app, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = self._runner.addresses[0][1]

    def stop(self) -> None:
        loop = self._loop
        if loop is None:
            return
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=30)
        loop.close()


@contextmanager
def serving(**settings: Any) -> Iterator[HostileServer]:
    """A started ``HostileServer``, stopped on the way out."""
    server = HostileServer(**settings)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _encodings(value: str) -> Iterator[str]:
    """The forms a careless server echoes a value in."""
    raw = value.encode()
    yield value
    yield quote(value, safe="")
    yield quote_plus(value)
    yield quote_plus(value).lower()
    yield base64.b64encode(raw).decode()
    yield base64.urlsafe_b64encode(raw).decode().rstrip("=")
    yield json.dumps(value)[1:-1]
    yield json.dumps(value)[1:-1].replace("/", "\\/")


# ---------------------------------------------------------------------------- echoes


async def echo_form(request: web.Request) -> web.StreamResponse:
    """A token endpoint refusing with its form echoed in the body and a header."""
    form = (await request.read()).decode()
    return web.Response(status=400, text=f"invalid_client: {form}", headers={"X-Echo": form})


async def echo_authorization(request: web.Request) -> web.StreamResponse:
    """An API refusing with the Authorization header echoed in its body, a header and its request id."""
    sent = request.headers["Authorization"]
    echoed = {"detail": f"you sent {sent}", "headers": dict(request.headers), "raw": [sent.encode().hex()]}
    return web.json_response(echoed, status=403, headers={"X-Echo": sent, "X-Request-ID": sent})


# ---------------------------------------------------------------------------- bad bodies


def gzip_bomb(inflated: int) -> bytes:
    """A gzip body of ``inflated`` zero bytes; a few kilobytes on the wire per megabyte inflated."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = bytes(1 << 20)
    parts = [compressor.compress(chunk) for _ in range(inflated // len(chunk))]
    parts.append(compressor.compress(bytes(inflated % len(chunk))))
    parts.append(compressor.flush())
    return b"".join(parts)


def gzipped_json(text: str) -> bytes:
    return gzip.compress(text.encode())


async def endless(request: web.Request) -> web.StreamResponse:
    """A 200 JSON body that never ends: ``[0,0,0,...`` as fast as the client reads."""
    response = web.StreamResponse(headers={"Content-Type": "application/json"})
    await response.prepare(request)
    await response.write(b"[")
    chunk = b"0," * 32768
    while True:
        await response.write(chunk)


async def trickle(request: web.Request) -> web.StreamResponse:
    """A 200 JSON body that arrives one byte at a time, slower than any timeout allows."""
    response = web.StreamResponse(headers={"Content-Type": "application/json"})
    await response.prepare(request)
    while True:
        await response.write(b" ")
        await asyncio.sleep(0.05)
