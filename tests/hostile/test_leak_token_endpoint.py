"""Token endpoint failures are classed by what happened: a refusal is an ``AuthenticationError``, an
outage (a 5xx, an HTML gateway page) a ``ServerError`` retried like any GET, a connection that
cannot be made an ``APIConnectionError``; none of them shows the secret."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from aiohttp import web

from enterprise_async import APIConnectionError, AuthenticationError, ServerError
from tests.conftest import Backoffs
from tests.hostile.leak_server import TOKEN_PATH, Handler, HostileServer, serving

GATEWAY_PAGE = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with serving() as running:
        yield running


def answering(status: int, text: str, content_type: str = "application/json") -> Handler:
    async def respond(request: web.Request) -> web.StreamResponse:
        await request.read()
        return web.Response(status=status, text=text, content_type=content_type)

    return respond


@pytest.mark.parametrize("status", [400, 401])
async def test_a_refused_token_request_is_an_authentication_error(server: HostileServer, status: int) -> None:
    server.route("POST", TOKEN_PATH)(answering(status, '{"error": "invalid_client"}'))
    async with server.client() as client:
        with pytest.raises(AuthenticationError) as caught:
            await client.catalogs.list().to_list()
    assert caught.value.status == status
    assert "invalid_client" in str(caught.value)


async def test_an_html_502_from_the_token_endpoint_is_a_server_error_not_bad_credentials(
    server: HostileServer, no_sleep: Backoffs
) -> None:
    calls: list[int] = []

    @server.route("POST", TOKEN_PATH)
    async def gateway(request: web.Request) -> web.StreamResponse:
        calls.append(1)
        return web.Response(status=502, text=GATEWAY_PAGE, content_type="text/html")

    async with server.client(retry=no_sleep.policy, max_retries=2) as client:
        with pytest.raises(ServerError) as caught:
            await client.catalogs.list().to_list()
    assert not isinstance(caught.value, AuthenticationError)
    assert caught.value.status == 502
    assert "502 Bad Gateway" in str(caught.value)
    assert len(calls) == 3, "retried like any GET"
    assert len(no_sleep) == 2


async def test_a_token_outage_that_ends_within_the_retries_is_not_an_error(
    server: HostileServer, no_sleep: Backoffs
) -> None:
    outage = [web.Response(status=503, text=GATEWAY_PAGE, content_type="text/html")]

    @server.route("POST", TOKEN_PATH)
    async def recovering(request: web.Request) -> web.StreamResponse:
        if outage:
            return outage.pop()
        return web.json_response({"access_token": "fresh-token-0001", "expires_in": 3600})

    async with server.client(retry=no_sleep.policy, max_retries=2) as client:
        assert await client.catalogs.list().to_list() == []
    assert len(no_sleep) == 1


async def test_an_html_page_answering_200_from_the_token_endpoint_is_a_server_error(
    server: HostileServer,
) -> None:
    server.route("POST", TOKEN_PATH)(answering(200, GATEWAY_PAGE, "text/html"))
    async with server.client() as client:
        with pytest.raises(ServerError) as caught:
            await client.catalogs.list().to_list()
    assert not isinstance(caught.value, AuthenticationError)
    assert "text/html" in str(caught.value)


async def test_a_token_endpoint_that_cannot_be_reached_is_a_connection_error(server: HostileServer) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    async with server.client(auth_url=f"http://127.0.0.1:{port}") as client:
        with pytest.raises(APIConnectionError) as caught:
            await client.catalogs.list().to_list()
    assert TOKEN_PATH in str(caught.value)
    assert server.client_secret not in str(caught.value)
