"""``max_response_bytes`` bounds what one answer may inflate to: a gzip bomb, an endless body or a
body announced too long raises ``ResponseTooLargeError`` and nothing of it is kept; a body that
trickles in is bounded by the timeout; a body within the limit arrives whole."""

from __future__ import annotations

from collections.abc import Iterator

import orjson
import pytest
from aiohttp import web

from enterprise_async import APITimeoutError, ResponseTooLargeError
from enterprise_async._utils.constants import DEFAULT_MAX_RESPONSE_BYTES
from tests.hostile.leak_server import (
    CATALOGS,
    TOKEN_PATH,
    HostileServer,
    endless,
    gzip_bomb,
    serving,
    trickle,
)

LIMIT = 1 << 20
BOMB = gzip_bomb(64 << 20)  # 64 MiB of zeros, about 64 KiB on the wire


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with serving() as running:
        yield running


def bomb(status: int, content_type: str = "application/json") -> web.Response:
    headers = {"Content-Encoding": "gzip", "Content-Type": content_type}
    return web.Response(status=status, body=BOMB, headers=headers)


@pytest.mark.parametrize("status", [200, 500])
async def test_a_gzip_bomb_stops_at_the_limit_and_nothing_of_it_is_kept(
    server: HostileServer, status: int
) -> None:
    @server.route("GET", CATALOGS)
    async def bombing(request: web.Request) -> web.StreamResponse:
        return bomb(status)

    async with server.client(max_response_bytes=LIMIT) as client:
        with pytest.raises(ResponseTooLargeError) as caught:
            await client.catalogs.list().to_list()
    assert caught.value.limit == LIMIT
    assert caught.value.body is None
    assert f"{LIMIT} bytes" in str(caught.value)


async def test_a_gzip_bomb_from_the_token_endpoint_stops_at_the_limit(server: HostileServer) -> None:
    @server.route("POST", TOKEN_PATH)
    async def bombing(request: web.Request) -> web.StreamResponse:
        return bomb(200)

    async with server.client(max_response_bytes=LIMIT) as client:
        with pytest.raises(ResponseTooLargeError):
            await client.catalogs.list().to_list()


async def test_an_endless_body_stops_at_the_limit(server: HostileServer) -> None:
    server.route("GET", CATALOGS)(endless)
    async with server.client(max_response_bytes=LIMIT) as client:
        with pytest.raises(ResponseTooLargeError):
            await client.catalogs.list().to_list()


async def test_a_body_announced_longer_than_the_limit_is_refused_unread(server: HostileServer) -> None:
    @server.route("GET", CATALOGS)
    async def announcing(request: web.Request) -> web.StreamResponse:
        return web.Response(body=b" " * (LIMIT + 1), content_type="application/json")

    async with server.client(max_response_bytes=LIMIT) as client:
        with pytest.raises(ResponseTooLargeError, match="Content-Length"):
            await client.catalogs.list().to_list()


async def test_a_trickling_body_ends_as_a_timeout(server: HostileServer) -> None:
    server.route("GET", CATALOGS)(trickle)
    async with server.client(timeout=0.5) as client:
        with pytest.raises(APITimeoutError):
            await client.catalogs.list().to_list()


async def test_a_body_of_exactly_the_limit_arrives_whole(server: HostileServer) -> None:
    names = [f"catalog {number}" for number in range(30000)]
    page = {
        "count": len(names),
        "next": None,
        "previous": None,
        "results": [
            {"uuid": f"{number:032x}", "title": name, "enterprise_customer": "acme"}
            for number, name in enumerate(names)
        ],
    }
    body = orjson.dumps(page)

    @server.route("GET", CATALOGS)
    async def exact(request: web.Request) -> web.StreamResponse:
        return web.Response(body=body, content_type="application/json")

    async with server.client(max_response_bytes=len(body)) as client:
        catalogs = await client.catalogs.list().to_list()
    assert [catalog.title for catalog in catalogs] == names


def test_the_default_limit_is_generous() -> None:
    client = HostileServer().client()
    assert client.max_response_bytes == DEFAULT_MAX_RESPONSE_BYTES >= 64 << 20
