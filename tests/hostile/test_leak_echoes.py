"""A server that echoes what it was sent never makes the SDK show the secret or a token, in any
encoding, in any place an error or a log record carries: message, ``body``, ``headers``,
``request_id``, ``repr``."""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp import web

from enterprise_async import (
    APIStatusError,
    AuthenticationError,
    ClientValidationError,
    EnterpriseClient,
    PermissionDeniedError,
    ResponseDecodeError,
)
from tests.hostile.leak_server import (
    CLIENT_ID,
    TOKEN_PATH,
    HostileServer,
    echo_authorization,
    echo_form,
    serving,
)

CATALOG = "00000000-0000-4000-8000-000000000007"
"""A catalog id (a UUID, as every catalog's is) that the test's server does not know."""

CATALOGS = "/enterprise/v2/enterprise-catalogs"


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with serving() as running:
        yield running


def shown(error: BaseException) -> str:
    """Everything an error shows: its text, repr, body, headers and request id."""
    parts: list[Any] = [str(error), repr(error), getattr(error, "body", None)]
    parts += [getattr(error, "request_id", None), dict(getattr(error, "headers", {}) or {})]
    return " ".join(repr(part) for part in parts)


def assert_nothing_shown(server: HostileServer, text: str) -> None:
    for form in server.shown_forms():
        assert form not in text, f"{form!r} was shown"


async def test_a_token_endpoint_echoing_its_form_shows_no_form_of_the_secret(server: HostileServer) -> None:
    server.route("POST", TOKEN_PATH)(echo_form)
    async with server.client() as client:
        with pytest.raises(AuthenticationError) as caught:
            await client.catalogs.list().to_list()
    assert server.forms == [], "the scripted issuer took the request"
    assert "invalid_client" in str(caught.value)
    assert_nothing_shown(server, shown(caught.value))


async def test_a_token_endpoint_echoing_the_secret_as_json_shows_it_nowhere(server: HostileServer) -> None:
    @server.route("POST", TOKEN_PATH)
    async def echo_json(request: web.Request) -> web.StreamResponse:
        form = await request.post()
        secret = str(form["client_secret"])
        body = {"error": "invalid_client", "error_description": f"bad secret {secret}", "echo": [secret]}
        return web.json_response(body, status=401)  # json.dumps escapes the non-ASCII character

    async with server.client() as client:
        with pytest.raises(AuthenticationError) as caught:
            await client.catalogs.list().to_list()
    assert caught.value.body["error"] == "invalid_client"
    assert_nothing_shown(server, shown(caught.value))


async def test_an_echoed_basic_authorization_shows_no_base64_of_the_secret(server: HostileServer) -> None:
    @server.route("POST", TOKEN_PATH)
    async def echo_basic(request: web.Request) -> web.StreamResponse:
        credentials = base64.b64encode(f"{CLIENT_ID}:{server.client_secret}".encode()).decode()
        return web.Response(status=401, text=f"refused Authorization: Basic {credentials}")

    async with server.client() as client:
        with pytest.raises(AuthenticationError) as caught:
            await client.catalogs.list().to_list()
    credentials = base64.b64encode(f"{CLIENT_ID}:{server.client_secret}".encode()).decode()
    secret_only = credentials[(len(CLIENT_ID) + 1) // 3 * 4 :]  # "hostile-client:" is 5 whole groups
    assert "refused Authorization: Basic" in str(caught.value)
    assert secret_only not in shown(caught.value)


async def test_an_api_echoing_the_authorization_header_shows_no_token(server: HostileServer) -> None:
    server.route("GET", CATALOGS)(echo_authorization)
    async with server.client() as client:
        with pytest.raises(PermissionDeniedError) as caught:
            await client.catalogs.list().to_list()
    assert server.tokens, "a token was issued"
    assert caught.value.body["detail"].startswith("you sent JWT ")
    assert caught.value.request_id is not None
    assert_nothing_shown(server, shown(caught.value))


async def test_an_unreadable_body_echoing_the_token_shows_no_token(server: HostileServer) -> None:
    @server.route("GET", CATALOGS)
    async def broken(request: web.Request) -> web.StreamResponse:
        token = request.headers["Authorization"].split()[-1]
        return web.Response(text=f'{{"results": ["{token}"', content_type="application/json")

    async with server.client() as client:
        with pytest.raises(ResponseDecodeError) as caught:
            await client.catalogs.list().to_list()
    assert caught.value.body is not None
    assert caught.value.body.startswith('{"results": ["')
    assert_nothing_shown(server, shown(caught.value))


async def test_log_records_show_no_token_a_server_put_in_its_request_id(
    server: HostileServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.route("GET", CATALOGS)(echo_authorization)
    with caplog.at_level(logging.DEBUG, logger="enterprise_async"):
        async with server.client() as client:
            with pytest.raises(PermissionDeniedError):
                await client.catalogs.list().to_list()
    records = [record.getMessage() + repr(vars(record)) for record in caplog.records]
    assert any("403" in record for record in records)
    assert_nothing_shown(server, " ".join(records))


async def test_a_one_letter_secret_is_hidden_only_as_a_whole_value() -> None:
    with serving(client_secret="s") as server:
        server.route("POST", TOKEN_PATH)(echo_form)
        async with server.client() as client:
            with pytest.raises(AuthenticationError) as caught:
                await client.catalogs.list().to_list()
    message = str(caught.value)
    assert f"POST {server.base_url}{TOKEN_PATH}" in message, "the text around the secret is intact"
    assert "client_secret=<redacted>&" in message
    assert "client_secret=s&" not in shown(caught.value)


async def test_a_short_secret_leaves_the_paths_of_errors_intact() -> None:
    with serving(client_secret="e") as server:
        async with server.client() as client:
            with pytest.raises(APIStatusError) as caught:
                await client.catalogs.course(CATALOG, "edX+DemoX")
    assert f"/enterprise/v2/enterprise-catalogs/{CATALOG}/courses/edX+DemoX" in str(caught.value)
    assert "<redacted>" not in str(caught.value)


@pytest.mark.parametrize(
    "base_url",
    ["ftp://ops:hunter22@api.test", "https://ops:hunter22@api.test/?q=1", "https://ops:hunter22@api.test"],
)
def test_a_password_in_a_refused_base_url_is_not_in_the_error(base_url: str) -> None:
    with pytest.raises(ClientValidationError) as caught:
        EnterpriseClient(client_id="id", client_secret="secret", base_url=base_url)
    assert caught.value.field == "base_url"
    assert "hunter22" not in str(caught.value)
