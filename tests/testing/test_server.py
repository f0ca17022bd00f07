"""The sandbox as an HTTP server: lifecycle, formats, routing, authentication."""

from __future__ import annotations

import asyncio
import base64

import aiohttp
import orjson
import pytest

from enterprise_async.testing import Sandbox

from .conftest import RawAPI

CATALOGS = "/enterprise/v2/enterprise-catalogs"


async def test_listens_on_loopback_on_a_port_the_os_chose() -> None:
    async with Sandbox() as sandbox:
        assert sandbox.base_url == f"http://127.0.0.1:{sandbox.port}"
        assert sandbox.port > 0
        assert sandbox.auth_url == sandbox.base_url


async def test_two_sandboxes_run_side_by_side_on_different_ports() -> None:
    async with Sandbox(seed=1) as first, Sandbox(seed=2) as second:
        assert first.port != second.port


async def test_stops_listening_when_the_context_ends(session: aiohttp.ClientSession) -> None:
    async with Sandbox() as sandbox:
        url = sandbox.base_url + CATALOGS
    assert not sandbox.running
    with pytest.raises(aiohttp.ClientConnectorError):
        async with session.get(url):
            pass


async def test_port_is_unknown_before_start() -> None:
    with pytest.raises(RuntimeError, match="not running"):
        _ = Sandbox().base_url


async def test_answers_xml_by_default(api: RawAPI) -> None:
    answer = await api.get(CATALOGS, accept=None)
    assert answer.headers["Content-Type"].startswith("application/xml")
    assert answer.raw.startswith(b'<?xml version="1.0" encoding="utf-8"?>\n<root>')
    assert int(answer.data["count"]) == 6


async def test_answers_json_when_the_request_accepts_it(api: RawAPI) -> None:
    answer = await api.get(CATALOGS, accept="application/json")
    assert answer.headers["Content-Type"] == "application/json"
    assert orjson.loads(answer.raw)["count"] == 6


async def test_xml_and_json_carry_the_same_listing(api: RawAPI) -> None:
    as_json = (await api.get(CATALOGS)).data
    as_xml = (await api.get(CATALOGS, accept="application/xml")).data
    assert [catalog["uuid"] for catalog in as_json["results"]] == [
        catalog["uuid"] for catalog in as_xml["results"]
    ]


async def test_unknown_path_answers_404_in_the_negotiated_format(api: RawAPI) -> None:
    answer = await api.get("/enterprise/v9/nothing")
    assert answer.status == 404
    assert answer.data == {"detail": "Not found."}


async def test_wrong_method_answers_405_with_allow(api: RawAPI) -> None:
    answer = await api.request("DELETE", CATALOGS)
    assert answer.status == 405
    assert "GET" in answer.headers["Allow"]


async def test_request_without_token_answers_401_with_detail(api: RawAPI) -> None:
    answer = await api.get(CATALOGS, authenticated=False)
    assert answer.status == 401
    assert answer.data == {"detail": "Authentication credentials were not provided."}
    assert answer.headers["WWW-Authenticate"].startswith("JWT")


async def test_unknown_token_answers_401(api: RawAPI) -> None:
    answer = await api.get(CATALOGS, authenticated=False, headers={"Authorization": "JWT not.a.token"})
    assert answer.status == 401
    assert answer.data == {"detail": "Invalid token."}


async def test_bearer_scheme_is_not_accepted(api: RawAPI) -> None:
    token = await api.fresh_token()
    answer = await api.get(CATALOGS, authenticated=False, headers={"Authorization": f"Bearer {token}"})
    assert answer.status == 401


async def test_token_response_carries_expires_in_as_a_string(api: RawAPI) -> None:
    answer = await api.grant()
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "application/json"
    body = answer.data
    assert body["token_type"] == "JWT"
    assert body["expires_in"] == "3600"
    assert body["scope"]


async def test_token_is_jwt_shaped_and_names_the_client_and_customer(api: RawAPI, sandbox: Sandbox) -> None:
    token = await api.fresh_token()
    _header, payload, signature = token.split(".")
    claims = orjson.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["client_id"] == sandbox.client_id
    assert claims["roles"] == [f"enterprise_admin:{sandbox.data.customers[0].uuid}"]
    assert claims["exp"] - claims["iat"] == 3600
    assert signature


async def test_wrong_secret_answers_401_with_a_body(api: RawAPI) -> None:
    answer = await api.grant(client_secret="wrong")
    assert answer.status == 401
    assert answer.data["error"] == "invalid_client"


async def test_wrong_grant_type_answers_400(api: RawAPI) -> None:
    answer = await api.grant(grant_type="password")
    assert answer.status == 400
    assert answer.data["error"] == "unsupported_grant_type"


async def test_tampered_token_is_refused(api: RawAPI) -> None:
    token = await api.fresh_token()
    header, payload, signature = token.split(".")
    tampered = f"{header}.{payload}.{signature[::-1]}"
    answer = await api.get(CATALOGS, authenticated=False, headers={"Authorization": f"JWT {tampered}"})
    assert answer.status == 401


async def test_counts_the_tokens_it_issues(api: RawAPI, sandbox: Sandbox) -> None:
    await api.grant()
    await api.grant()
    assert sandbox.tokens_issued == 2


async def test_expire_tokens_makes_issued_tokens_answer_401(api: RawAPI, sandbox: Sandbox) -> None:
    await api.fresh_token()
    assert (await api.get(CATALOGS)).status == 200
    sandbox.expire_tokens()
    answer = await api.get(CATALOGS)
    assert answer.status == 401
    assert answer.data == {"detail": "Signature has expired."}


async def test_a_token_issued_after_expiring_works(api: RawAPI, sandbox: Sandbox) -> None:
    await api.fresh_token()
    sandbox.expire_tokens()
    await api.fresh_token()
    assert (await api.get(CATALOGS)).status == 200


async def test_short_token_lifetime_expires_on_time(session: aiohttp.ClientSession) -> None:
    async with Sandbox(token_lifetime=0.3) as sandbox:
        api = RawAPI(sandbox, session)
        grant = await api.grant()
        assert grant.data["expires_in"] == "1"  # whole seconds, at least one
        await api.fresh_token()
        # No call while the token lives (0.3 s): a loaded machine could make it arrive too late.
        await asyncio.sleep(0.35)  # a sleep never ends early
        assert (await api.get(CATALOGS)).status == 401


async def test_given_credentials_replace_the_derived_ones(session: aiohttp.ClientSession) -> None:
    async with Sandbox(client_id="mine", client_secret="also-mine") as sandbox:
        api = RawAPI(sandbox, session)
        assert (await api.grant()).status == 200
        assert sandbox.client_id == "mine"


def test_credentials_follow_the_seed() -> None:
    assert Sandbox(seed=4).client_secret == Sandbox(seed=4).client_secret
    assert Sandbox(seed=4).client_secret != Sandbox(seed=5).client_secret


def test_unknown_page_size_listing_is_refused() -> None:
    with pytest.raises(ValueError, match="page_sizes"):
        Sandbox(page_sizes={"everything": 3})
