"""``client.with_options(...)`` views and the per-call ``timeout=`` / ``extra_headers=`` options."""

from __future__ import annotations

from typing import Any

import pytest

from enterprise_async import APITimeoutError, ClientValidationError, EnterpriseClient, ServerError
from enterprise_async.testing import Fault, Sandbox
from tests.conftest import Backoffs, ScriptedAPI

CATALOG = "00000000-0000-4000-8000-000000000007"
"""A catalog id (a UUID, as every catalog's is) that the test's server does not know."""

CATALOGS = "/enterprise/v2/enterprise-catalogs"


def headers_of(sandbox: Sandbox, index: int = -1) -> dict[str, str]:
    return {name.lower(): value for name, value in sandbox.requests[index].headers.items()}


async def test_a_view_shares_the_pool_and_the_token_of_its_client(api: ScriptedAPI) -> None:
    """The view's request goes out on the connection its client's request left in the pool."""
    api.json("GET", CATALOGS, {"count": 0, "next": None, "previous": None, "results": []})
    async with api.client() as client:
        await client.catalogs.list().to_list()
        view = client.with_options(timeout=5, max_retries=0)
        await view.catalogs.list().to_list()
        client_request, view_request = api.calls("GET", CATALOGS)
        assert view_request.connection == client_request.connection
        assert api.tokens_issued == 1
        assert view.stats is client.stats


class CountedClient(EnterpriseClient):
    """A client of the user's own, which counts the clients its constructor made."""

    made = 0

    def __init__(self, **settings: Any) -> None:
        type(self).made += 1
        super().__init__(**settings)


async def test_a_view_is_made_by_the_clients_constructor_and_shares_what_the_client_holds() -> None:
    async with Sandbox() as sandbox:
        client = CountedClient(
            client_id=sandbox.client_id,
            client_secret=sandbox.client_secret,
            base_url=sandbox.base_url,
            auth_url=sandbox.auth_url,
            trust_env=False,
            max_retries=1,
        )
        async with client:
            view = client.with_options(max_retries=0, headers={"X-Tenant": "acme"})
            assert isinstance(view, CountedClient)
            assert CountedClient.made == 2
            assert view.options.max_retries == 0
            assert view.options.headers == {"X-Tenant": "acme"}
            assert (view.base_url, view.response_format) == (client.base_url, client.response_format)
            await view.catalogs.list().first_page()
            await client.catalogs.list().first_page()
            assert sandbox.tokens_issued == 1
            assert (view.stats, view.concurrency) == (client.stats, client.concurrency)
            assert view.token_requests == client.token_requests == 1


async def test_closing_a_view_leaves_its_client_open() -> None:
    async with Sandbox() as sandbox, sandbox.client() as client:
        async with client.with_options(max_retries=0) as view:
            await view.catalogs.list().first_page()
        assert view.closed
        assert not client.closed
        assert (await client.catalogs.list().first_page()).results


async def test_a_view_sends_its_headers_on_every_request() -> None:
    async with Sandbox() as sandbox, sandbox.client() as client:
        await client.with_options(headers={"X-Tenant": "acme"}).catalogs.list().first_page()
        assert headers_of(sandbox)["x-tenant"] == "acme"
        await client.catalogs.list().first_page()
        assert "x-tenant" not in headers_of(sandbox)


async def test_a_view_with_no_retries_fails_at_the_first_fault(no_sleep: Backoffs) -> None:
    async with Sandbox() as sandbox, sandbox.client(retry=no_sleep.policy, max_retries=3) as client:
        sandbox.faults.inject(CATALOGS, Fault.server_error(503), times=1)
        with pytest.raises(ServerError):
            await client.with_options(max_retries=0).catalogs.list().first_page()
        sandbox.faults.inject(CATALOGS, Fault.server_error(503), times=1)
        assert (await client.catalogs.list().first_page()).results


async def test_a_views_timeout_applies_to_its_requests() -> None:
    async with Sandbox() as sandbox, sandbox.client(max_retries=0) as client:
        await client.catalogs.list().first_page()  # the token, outside the short timeout
        sandbox.faults.inject(CATALOGS, Fault.latency(2.0), times=1)
        with pytest.raises(APITimeoutError):
            await client.with_options(timeout=0.05).catalogs.list().first_page()


async def test_a_per_call_timeout_applies_to_that_call() -> None:
    async with Sandbox() as sandbox, sandbox.client(max_retries=0) as client:
        catalog = sandbox.data.catalogs[0]
        await client.catalogs.list().first_page()
        sandbox.faults.inject(f"{CATALOGS}/{catalog.uuid}", Fault.latency(2.0), times=1)
        with pytest.raises(APITimeoutError):
            await client.catalogs.contents(catalog.uuid, timeout=0.05).first_page()


async def test_per_call_extra_headers_reach_the_server() -> None:
    async with Sandbox() as sandbox, sandbox.client() as client:
        await client.catalogs.list(extra_headers={"X-Correlation-Id": "abc"}).first_page()
        assert headers_of(sandbox)["x-correlation-id"] == "abc"


async def test_extra_headers_cannot_replace_the_authorization() -> None:
    async with Sandbox() as sandbox, sandbox.client() as client:
        with pytest.raises(ClientValidationError, match="extra_headers"):
            client.catalogs.list(extra_headers={"Authorization": "JWT forged"})
        assert len(sandbox.requests) == 0


@pytest.mark.parametrize("timeout", [0, -1, "5", True, float("inf")])
async def test_a_bad_per_call_timeout_is_refused_before_sending(timeout: object) -> None:
    async with Sandbox() as sandbox, sandbox.client() as client:
        with pytest.raises(ClientValidationError, match="timeout"):
            await client.catalogs.course(CATALOG, "y", timeout=timeout)  # type: ignore[arg-type]
        assert len(sandbox.requests) == 0


@pytest.mark.parametrize(
    ("option", "value"), [("max_retries", -1), ("max_concurrency", 0), ("timeout", 0), ("headers", ["x"])]
)
async def test_with_options_refuses_bad_values(option: str, value: object) -> None:
    async with Sandbox() as sandbox, sandbox.client() as client:
        with pytest.raises(ClientValidationError, match=option):
            client.with_options(**{option: value})  # type: ignore[arg-type]


async def test_a_view_keeps_its_own_concurrency_bound() -> None:
    async with Sandbox() as sandbox, sandbox.client(max_concurrency=8) as client:
        view = client.with_options(max_concurrency=2)
        assert (view.max_concurrency, client.max_concurrency) == (2, 8)
        assert await view.catalogs.list().to_list()


async def test_client_options_travel_whole_and_are_validated_once() -> None:
    from enterprise_async._request.options import ClientOptions

    options = ClientOptions(response_format="xml", max_concurrency=3, max_retries=0, timeout=5.0)
    assert ClientOptions.from_json(options.to_json()) == options
    async with Sandbox() as sandbox, sandbox.client(options=options) as client:
        assert client.options == options
        assert client.with_options(max_retries=1).options == options.evolve(max_retries=1)
        assert (await client.catalogs.list().first_page()).results


@pytest.mark.parametrize(
    "data",
    [
        {"max_concurrency": 0},
        {"timeout": float("nan")},
        {"response_format": "yaml"},
        {"colour": "blue"},
    ],
)
def test_bad_client_options_are_refused_by_name(data: dict[str, object]) -> None:
    from enterprise_async._request.options import ClientOptions

    with pytest.raises(ClientValidationError) as refused:
        ClientOptions.from_json(data)
    assert refused.value.field in (*data, "options")


async def test_options_and_separate_settings_are_not_mixed() -> None:
    from enterprise_async._request.options import ClientOptions

    async with Sandbox() as sandbox:
        with pytest.raises(ClientValidationError, match="either options="):
            sandbox.client(options=ClientOptions(), max_retries=5)
