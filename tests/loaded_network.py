"""A network and a busy machine, on loopback: ``DelayingRelay`` forwards each request to a server
after holding it a random few tens of milliseconds (a network's jitter: requests sent in one order
may arrive in another), and ``cpu_burners()`` keeps every core busy beside the test.

    async with DelayingRelay(sandbox.base_url, hold=(0.01, 0.05)) as relay:
        ...  # clients given relay.url as their base URL

The relay is a reverse proxy: its URL takes the place of the server's, path and query kept.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer
from attrs import define, field
from multidict import CIMultiDict

__all__ = ["DelayingRelay", "cpu_burners"]

_HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length"}
)


@define
class DelayingRelay:
    """Forwards every request to ``target`` after holding it ``hold`` seconds (low, high), drawn at
    random for each request; ``held`` counts the requests it relayed."""

    target: str
    hold: tuple[float, float] = (0.01, 0.05)
    seed: int = 0
    held: int = 0
    _random: random.Random = field(init=False)
    _server: TestServer | None = field(default=None, init=False)
    _upstream: aiohttp.ClientSession | None = field(default=None, init=False)

    def __attrs_post_init__(self) -> None:
        self._random = random.Random(self.seed)

    @property
    def url(self) -> str:
        assert self._server is not None, "the relay is not running"
        return str(self._server.make_url("")).rstrip("/")

    async def __aenter__(self) -> DelayingRelay:
        self._upstream = aiohttp.ClientSession(
            trust_env=False, auto_decompress=False, connector=aiohttp.TCPConnector(limit=0)
        )
        app = web.Application()
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
        body = await request.read()
        await asyncio.sleep(self._random.uniform(*self.hold))
        self.held += 1
        assert self._upstream is not None
        async with self._upstream.request(
            request.method,
            self.target.rstrip("/") + request.raw_path,
            headers=_end_to_end(request.headers),
            data=body,
            allow_redirects=False,
        ) as answer:
            answered = await answer.read()
            return web.Response(status=answer.status, body=answered, headers=_end_to_end(answer.headers))


def _end_to_end(headers: Mapping[str, str]) -> CIMultiDict[str]:
    return CIMultiDict((name, value) for name, value in headers.items() if name.lower() not in _HOP_BY_HOP)


@contextmanager
def cpu_burners(count: int | None = None) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` processes (one per core by default) that burn a CPU each for the block; each is
    killed and waited for when it ends, however it ends."""
    burners: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range((os.cpu_count() or 1) if count is None else count):
            burners.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
        yield burners
    finally:
        for burner in burners:
            burner.kill()
        for burner in burners:
            burner.wait()
