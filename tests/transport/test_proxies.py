"""Proxies: the client honours HTTP(S)_PROXY and NO_PROXY by default (``trust_env``), and takes a
``proxy=`` of its own. Every test sends through a forward proxy on loopback that it starts."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from enterprise_async import APIConnectionError, EnterpriseClient, ProxyAuthenticationError, ServerError
from enterprise_async.testing import Sandbox
from tests.transport.loopback_proxy import LoopbackProxy


def client_of(sandbox: Sandbox) -> EnterpriseClient:
    """A client of the sandbox made as a user makes one, with the default ``trust_env``
    (``sandbox.client()`` reads no proxy from the environment: the sandbox is on loopback)."""
    return EnterpriseClient(
        client_id=sandbox.client_id, client_secret=sandbox.client_secret, base_url=sandbox.base_url
    )


TOKEN_PATH = "/oauth2/v1/access_token"
PROXY_PASSWORD = "proxy-pa55word-never-shown"


@pytest.fixture(autouse=True)
def no_proxy_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sets the variables it speaks of; a developer's own proxy settings stay out."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "WS_PROXY", "WSS_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=0) as running:
        yield running


@pytest.fixture
async def proxy() -> AsyncIterator[LoopbackProxy]:
    async with LoopbackProxy() as running:
        yield running


async def test_http_proxy_in_the_environment_carries_every_request(
    sandbox: Sandbox, proxy: LoopbackProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    async with client_of(sandbox) as client:
        catalogs = await client.catalogs.list().to_list()
    assert catalogs
    assert proxy.paths() == [logged.path for logged in sandbox.requests]
    assert proxy.paths()[0] == TOKEN_PATH
    assert {request.url.port for request in proxy.relayed} == {sandbox.port}


async def test_the_token_travels_to_the_api_through_the_proxy_untouched(
    sandbox: Sandbox, proxy: LoopbackProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    async with client_of(sandbox) as client:
        await client.catalogs.list().first_page()
    api_calls = [request for request in proxy.relayed if request.url.path != TOKEN_PATH]
    assert api_calls
    assert all((request.authorization or "").startswith("JWT ") for request in api_calls)


async def test_no_proxy_sends_its_hosts_straight_to_the_server(
    sandbox: Sandbox, proxy: LoopbackProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    async with client_of(sandbox) as client:
        assert await client.catalogs.list().to_list()
    assert proxy.relayed == []


async def test_trust_env_false_ignores_the_proxy_variables(
    sandbox: Sandbox, proxy: LoopbackProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    async with sandbox.client(trust_env=False) as client:
        assert await client.catalogs.list().to_list()
    assert proxy.relayed == []


async def test_the_proxy_option_sends_every_request_through_that_proxy(
    sandbox: Sandbox, proxy: LoopbackProxy
) -> None:
    async with sandbox.client(proxy=proxy.url) as client:
        assert await client.catalogs.list().to_list()
    assert proxy.paths() == [logged.path for logged in sandbox.requests]


async def test_the_proxy_option_wins_over_the_environment(
    sandbox: Sandbox, proxy: LoopbackProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with LoopbackProxy() as other:
        monkeypatch.setenv("HTTP_PROXY", other.url)
        async with sandbox.client(proxy=proxy.url) as client:
            assert await client.catalogs.list().to_list()
        assert other.relayed == []
    assert proxy.paths()[0] == TOKEN_PATH


async def test_the_proxy_option_applies_to_a_session_of_the_callers(
    sandbox: Sandbox, proxy: LoopbackProxy
) -> None:
    import aiohttp

    async with aiohttp.ClientSession() as session, sandbox.client(session=session, proxy=proxy.url) as client:
        assert await client.catalogs.list().to_list()
    assert proxy.paths()[0] == TOKEN_PATH


async def test_proxy_credentials_in_the_url_are_sent_to_the_proxy(sandbox: Sandbox) -> None:
    async with LoopbackProxy(credentials=("agent", PROXY_PASSWORD)) as guarded:
        async with sandbox.client(proxy=guarded.url_with_credentials("agent", PROXY_PASSWORD)) as client:
            assert await client.catalogs.list().to_list()
        assert {request.proxy_credentials for request in guarded.relayed} == {("agent", PROXY_PASSWORD)}


async def test_proxy_credentials_never_show_in_the_repr_or_an_error(sandbox: Sandbox) -> None:
    async with LoopbackProxy() as gone:
        address = gone.url_with_credentials("agent", PROXY_PASSWORD)
    client = sandbox.client(proxy=address, max_retries=0)
    async with client:
        with pytest.raises(APIConnectionError) as raised:
            await client.catalogs.list().first_page()
    assert PROXY_PASSWORD not in repr(client)
    assert PROXY_PASSWORD not in str(raised.value)
    assert PROXY_PASSWORD not in repr(raised.value)


@pytest.mark.parametrize("bad", ["", "127.0.0.1:3128", "ftp://proxy.example:21", "http://", 3128])
def test_a_proxy_that_is_not_an_http_url_is_refused_before_sending(bad: object) -> None:
    from enterprise_async import ClientValidationError

    with pytest.raises(ClientValidationError, match="proxy"):
        EnterpriseClient(client_id="id", client_secret="secret", base_url="http://127.0.0.1:1", proxy=bad)  # type: ignore[arg-type]


async def test_the_sandboxs_own_client_reads_no_proxy_from_the_environment(
    sandbox: Sandbox, proxy: LoopbackProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    async with sandbox.client() as client:
        assert await client.catalogs.list().to_list()
    assert proxy.relayed == []


async def test_a_proxys_407_is_a_proxy_authentication_error_never_a_server_error(sandbox: Sandbox) -> None:
    async with LoopbackProxy(credentials=("agent", PROXY_PASSWORD)) as guarded:
        async with sandbox.client(proxy=guarded.url) as client:
            with pytest.raises(ProxyAuthenticationError) as raised:
                await client.catalogs.list().first_page()
        assert guarded.relayed == []
    assert raised.value.status == 407
    assert not isinstance(raised.value, ServerError)


async def test_a_407_to_a_connect_through_the_proxy_is_a_proxy_authentication_error() -> None:
    async with LoopbackProxy(credentials=("agent", PROXY_PASSWORD)) as guarded:
        client = EnterpriseClient(
            client_id="id", client_secret="secret", base_url="https://127.0.0.1:1", proxy=guarded.url
        )
        async with client:
            with pytest.raises(ProxyAuthenticationError) as raised:
                await client.catalogs.list().first_page()
    assert raised.value.status == 407
    assert "proxy" in str(raised.value)
