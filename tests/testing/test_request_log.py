"""The request log: what it keeps for assertions, and the credentials it never keeps."""

from __future__ import annotations

import aiohttp

from enterprise_async.testing import Sandbox

from .conftest import TOKEN_PATH, RawAPI

CATALOGS = "/enterprise/v2/enterprise-catalogs"


async def test_logs_method_path_query_and_status(api: RawAPI, sandbox: Sandbox) -> None:
    await api.get(CATALOGS, params={"page": "1"})
    entry = sandbox.requests.find("GET", CATALOGS)[-1]
    assert (entry.method, entry.path, entry.query, entry.status) == ("GET", CATALOGS, (("page", "1"),), 200)


async def test_logs_the_json_body_of_a_post(api: RawAPI, sandbox: Sandbox) -> None:
    plan = sandbox.data.plans[0].uuid
    await api.post(
        f"/enterprise/v1/subscriptions/{plan}/licenses/assign", json={"user_emails": ["a@example.com"]}
    )
    entry = sandbox.requests.find("POST", "/enterprise/v1/subscriptions/*")[-1]
    assert entry.json() == {"user_emails": ["a@example.com"]}


async def test_never_keeps_the_token(api: RawAPI, sandbox: Sandbox) -> None:
    token = await api.fresh_token()
    await api.get(CATALOGS)
    entry = sandbox.requests.find("GET", CATALOGS)[-1]
    assert entry.headers["Authorization"] == "JWT <redacted>"
    assert all(token not in repr(item) for item in sandbox.requests)


async def test_tells_tokens_apart_by_fingerprint(api: RawAPI, sandbox: Sandbox) -> None:
    await api.fresh_token()
    await api.get(CATALOGS)
    await api.fresh_token()
    await api.get(CATALOGS)
    first, second = sandbox.requests.find("GET", CATALOGS)
    assert first.token_fingerprint is not None
    assert second.token_fingerprint is not None
    assert first.token_fingerprint != second.token_fingerprint


async def test_never_keeps_the_client_secret(api: RawAPI, sandbox: Sandbox) -> None:
    await api.grant()
    (entry,) = sandbox.requests.find("POST", TOKEN_PATH)
    assert entry.body is not None
    assert "client_secret=%3Credacted%3E" in entry.body
    assert f"client_id={sandbox.client_id}" in entry.body
    assert all(sandbox.client_secret not in repr(item) for item in sandbox.requests)


async def test_redacts_the_secret_wherever_it_appears(api: RawAPI, sandbox: Sandbox) -> None:
    await api.get(CATALOGS, headers={"X-Debug": sandbox.client_secret})
    entry = sandbox.requests.find("GET", CATALOGS)[-1]
    assert entry.headers["X-Debug"] == "<redacted>"


async def test_records_the_fault_applied(api: RawAPI, sandbox: Sandbox) -> None:
    from enterprise_async.testing import Fault

    sandbox.faults.inject(CATALOGS, Fault.server_error(503))
    await api.get(CATALOGS)
    assert sandbox.requests.find("GET", CATALOGS)[-1].fault == "503"


async def test_keeps_only_the_latest_entries(session: aiohttp.ClientSession) -> None:
    async with Sandbox(log_limit=3) as sandbox:
        api = RawAPI(sandbox, session)
        await api.fresh_token()
        for page in range(1, 5):
            await api.get(CATALOGS, params={"page": str(page)})
    assert [entry.query_value("page") for entry in sandbox.requests] == ["2", "3", "4"]


async def test_clear_empties_the_log(api: RawAPI, sandbox: Sandbox) -> None:
    await api.get(CATALOGS)
    sandbox.requests.clear()
    assert len(sandbox.requests) == 0
