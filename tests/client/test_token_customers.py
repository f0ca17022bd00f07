"""``client.token_customers()``: the customers the token serves, read from its ``roles`` claim as
the services read it, and the uuid it gives is the one the customer's calls take."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator

import pytest

from enterprise_async import EnterpriseClient
from enterprise_async.errors import PermissionDeniedError, ResponseDecodeError
from enterprise_async.testing import Sandbox
from tests.conftest import ScriptedAPI


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=0) as running:  # the services profile: a token reaches its customer only
        yield running


def _jwt(claims: dict[str, object]) -> str:
    def part(value: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(claims)}.c2lnbmF0dXJl"


async def test_the_sandbox_token_serves_its_customer_and_that_uuid_lists_its_policies(
    sandbox: Sandbox,
) -> None:
    async with sandbox.client() as client:
        customers = await client.token_customers()
        assert customers == {sandbox.tokens.customer_uuid: ["enterprise_admin"]}
        (customer,) = customers
        policies = await client.policies.list(customer).to_list()
        assert policies
        assert {policy.enterprise_customer_uuid for policy in policies} == {customer}
        other = next(item.uuid for item in sandbox.data.customers if item.uuid != customer)
        with pytest.raises(PermissionDeniedError):
            await client.policies.list(other).to_list()


async def test_reading_the_customers_sends_only_the_token_request(sandbox: Sandbox) -> None:
    async with sandbox.client() as client:
        await client.token_customers()
        await client.token_customers()
    assert [request.path for request in sandbox.requests] == ["/oauth2/v1/access_token"]


async def test_roles_of_several_customers_and_an_operators_star(api: ScriptedAPI) -> None:
    token = _jwt(
        {
            "roles": [
                "enterprise_admin:11111111-1111-1111-1111-111111111111",
                "enterprise_learner:11111111-1111-1111-1111-111111111111",
                "enterprise_learner:22222222-2222-2222-2222-222222222222",
                "enterprise_openedx_operator:*",
                "coupon-manager:33333333-3333-3333-3333-333333333333",
                "enterprise_admin",
                7,
            ]
        }
    )
    api.json("POST", "/oauth2/v1/access_token", {"access_token": token, "expires_in": "3600"})
    async with api.client() as client:
        assert await client.token_customers() == {
            "11111111-1111-1111-1111-111111111111": ["enterprise_admin", "enterprise_learner"],
            "22222222-2222-2222-2222-222222222222": ["enterprise_learner"],
            "*": ["enterprise_openedx_operator"],
        }


async def test_a_token_without_roles_serves_no_customer(api: ScriptedAPI) -> None:
    api.json("POST", "/oauth2/v1/access_token", {"access_token": _jwt({"sub": "x"}), "expires_in": "3600"})
    async with api.client() as client:
        assert await client.token_customers() == {}


async def test_a_token_that_is_not_a_jwt_is_an_error_that_does_not_show_it(api: ScriptedAPI) -> None:
    async with api.client() as client:  # the scripted issuer gives opaque tokens ("token-1")
        with pytest.raises(ResponseDecodeError, match="not a JWT") as raised:
            await client.token_customers()
    assert "token-1" not in str(raised.value)


async def test_a_view_reads_the_same_token(sandbox: Sandbox) -> None:
    async with sandbox.client() as client:
        view: EnterpriseClient = client.with_options(timeout=5.0)
        assert await view.token_customers() == await client.token_customers()
