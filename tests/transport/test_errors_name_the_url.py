"""Every error about a request names the whole URL it went to (``GET https://host/api/...``), as
httpx does, so that a wrong ``base_url`` or ``auth_url`` shows at once: status errors, timeouts,
refused connections, the token issuer's refusals and outages, and every answer that cannot be read.
The URL is shown without its query, whose values may carry a secret or a learner's e-mail.

The client's URLs here have a path (``/api``, ``/auth``), as a gateway's often do: what the error
shows is the URL as sent, not the operation's path alone.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from enterprise_async import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    ClientValidationError,
    EnterpriseClient,
    EnterpriseError,
    IncompleteListingError,
    JobResultsDownloadError,
    ResponseDecodeError,
    Timeout,
)
from tests.conftest import CLIENT_ID, CLIENT_SECRET, ScriptedAPI

PREFIX = "/api"
AUTH_PREFIX = "/auth"
TOKEN = f"{AUTH_PREFIX}/oauth2/v1/access_token"
CATALOGS = "/enterprise/v2/enterprise-catalogs"
CATALOG = "7d0c5a7e-2b44-4f4b-9a3d-6e1f0c8b5a22"
POLICY = "c3a1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
ALLOCATE = f"/enterprise/v1/policy-allocation/{POLICY}/allocate/"
COURSE = f"{CATALOGS}/{CATALOG}/courses/HarvardX+CS50"
CUSTOMER = "4f2ad1b8-9c6e-4c1a-8f0e-3b7d2e5a9c11"
JOB = "3f2b1c9a-7e6d-4c5b-9a8f-1e2d3c4b5a69"
ENROLLMENT = "/enterprise/v1/bulk-license-enrollment"
QUERY_VALUE = "query-value-never-shown"
"""Sent in every call's query: no message may show it."""
FIXTURES = Path(__file__).parents[1] / "fixtures" / "json"

Call = Callable[[EnterpriseClient], Awaitable[object]]


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def catalog_page(count: int = 1, next_link: str | None = None) -> dict[str, Any]:
    return {"count": count, "next": next_link, "results": fixture("catalog_page.json")["results"][:1]}


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def issue_tokens(api: ScriptedAPI) -> None:
    api.json("POST", TOKEN, {"access_token": "t0ken-value", "token_type": "JWT", "expires_in": 3600})


def answer(api: ScriptedAPI, path: str, body: bytes, content_type: str, status: int = 200) -> None:
    async def respond(_: web.Request) -> web.StreamResponse:
        return web.Response(body=body, status=status, content_type=content_type)

    api.routes[("GET", PREFIX + path)] = respond


def with_own_client(call: Call, **settings: Any) -> Call:
    """``call`` made with a client of these settings (beside the test's own)."""

    async def made(client: EnterpriseClient) -> object:
        own = EnterpriseClient(
            client_id=CLIENT_ID,
            client_secret=CLIENT_SECRET,
            base_url=client.base_url,
            auth_url=client.base_url.removesuffix(PREFIX) + AUTH_PREFIX,
            max_retries=0,
            **settings,
        )
        async with own:
            return await call(own)

    return made


def list_catalogs(client: EnterpriseClient) -> Awaitable[object]:
    return client.catalogs.list(extra_query={"note": QUERY_VALUE}).to_list()


def allocate(client: EnterpriseClient) -> Awaitable[object]:
    return client.policies.allocate(
        POLICY,
        learner_emails=["ada@acme.example"],
        content_key="edX+DemoX",
        content_price_cents=100,
        extra_query={"note": QUERY_VALUE},
    )


# Each case scripts the server and returns the call that fails, and the path of the URL it names
# (under the client's base URL, or under the auth URL for the token's).


def wrong_base_path(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)  # nothing else is routed: the gateway's 404
    return list_catalogs, PREFIX + CATALOGS


def refused_post(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)
    api.json("POST", PREFIX + ALLOCATE, {"detail": "Policy is not active."}, 400)
    return allocate, PREFIX + ALLOCATE


def later_page_fails(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)

    async def pages(request: web.Request) -> web.StreamResponse:
        if request.query.get("page") == "2":
            return web.json_response({"detail": "down"}, status=500)
        return web.json_response(catalog_page(2, f"{api.base_url}{PREFIX}{CATALOGS}?page=2"))

    api.routes[("GET", PREFIX + CATALOGS)] = pages
    return list_catalogs, PREFIX + CATALOGS


def read_timeout(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)

    async def stall(_: web.Request) -> web.StreamResponse:
        await asyncio.sleep(30)
        return web.json_response(catalog_page())

    api.routes[("GET", PREFIX + CATALOGS)] = stall

    def call(client: EnterpriseClient) -> Awaitable[object]:
        return client.catalogs.list(timeout=0.05, extra_query={"note": QUERY_VALUE}).to_list()

    return call, PREFIX + CATALOGS


def token_refused(api: ScriptedAPI) -> tuple[Call, str]:
    api.json("POST", TOKEN, {"error": "invalid_client"}, 401)
    return list_catalogs, TOKEN


def token_outage(api: ScriptedAPI) -> tuple[Call, str]:
    api.json("POST", TOKEN, {"detail": "down"}, 503)
    return list_catalogs, TOKEN


def token_timeout(api: ScriptedAPI) -> tuple[Call, str]:
    async def stall(_: web.Request) -> web.StreamResponse:
        await asyncio.sleep(30)
        return web.json_response({})

    api.routes[("POST", TOKEN)] = stall
    return with_own_client(list_catalogs, timeout=0.05), TOKEN


def token_unreadable(api: ScriptedAPI) -> tuple[Call, str]:
    async def broken(_: web.Request) -> web.StreamResponse:
        return web.Response(body=b"{", content_type="application/json")

    api.routes[("POST", TOKEN)] = broken
    return list_catalogs, TOKEN


def token_without_token(api: ScriptedAPI) -> tuple[Call, str]:
    api.json("POST", TOKEN, {"token_type": "JWT"})
    return list_catalogs, TOKEN


def invalid_json(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)
    answer(api, CATALOGS, b'{"count": ', "application/json")
    return list_catalogs, PREFIX + CATALOGS


def unknown_content_type(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)
    answer(api, CATALOGS, b"uuid,title\n", "text/csv")
    return list_catalogs, PREFIX + CATALOGS


def empty_body(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)

    async def nothing(_: web.Request) -> web.StreamResponse:
        return web.Response(status=200)

    api.routes[("POST", PREFIX + ALLOCATE)] = nothing
    return allocate, PREFIX + ALLOCATE


def body_that_does_not_fit(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)
    api.json("GET", PREFIX + CATALOGS, {"count": 1, "next": None, "results": [{"title": "no uuid"}]})
    return list_catalogs, PREFIX + CATALOGS


def envelope_not_followed(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)
    api.json("GET", PREFIX + CATALOGS, {"count": 1, "next": None, "results": "catalog-0001"})
    return list_catalogs, PREFIX + CATALOGS


def too_large(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)
    api.json("GET", PREFIX + CATALOGS, catalog_page())
    # more than the token's answer, less than the page's
    return with_own_client(list_catalogs, max_response_bytes=160), PREFIX + CATALOGS


def another_course(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)
    api.json("GET", PREFIX + COURSE, {**fixture("course.json"), "key": "MITx+6.00x"})

    def call(client: EnterpriseClient) -> Awaitable[object]:
        return client.catalogs.course(CATALOG, "HarvardX+CS50", extra_query={"note": QUERY_VALUE})

    return call, PREFIX + COURSE


def rate_wait(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)
    api.json("GET", PREFIX + CATALOGS, catalog_page())

    async def twice(client: EnterpriseClient) -> object:
        await list_catalogs(client)
        return await list_catalogs(client)  # the minute's one request is spent

    return with_own_client(twice, rate_limit="1/minute", timeout=Timeout(rate_wait=0.01)), PREFIX + CATALOGS


def results_file_refused(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)
    link = f"{api.base_url}/storage/results.csv?X-Amz-Signature={QUERY_VALUE}"
    api.json("GET", PREFIX + ENROLLMENT, {"job_id": JOB, "download_url": link})
    api.json("GET", "/storage/results.csv", {"detail": "denied"}, 500)

    def call(client: EnterpriseClient) -> Awaitable[object]:
        return client.enrollments.results(CUSTOMER, JOB, timeout=5, poll_interval=0.01)

    return call, "/storage/results.csv"


async def _hang_up(request: web.Request) -> web.StreamResponse:
    """Close the connection without a word (a proxy or a worker that died mid-request)."""
    assert request.transport is not None
    request.transport.close()
    await asyncio.sleep(30)
    return web.Response()


def connection_dropped(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)
    api.routes[("GET", PREFIX + CATALOGS)] = _hang_up
    return list_catalogs, PREFIX + CATALOGS


def token_connection_dropped(api: ScriptedAPI) -> tuple[Call, str]:
    api.routes[("POST", TOKEN)] = _hang_up
    return list_catalogs, TOKEN


def token_gateway_page(api: ScriptedAPI) -> tuple[Call, str]:
    async def page(_: web.Request) -> web.StreamResponse:
        return web.Response(
            body=b"<html><body>502 Bad Gateway</body></html>", status=502, content_type="text/html"
        )

    api.routes[("POST", TOKEN)] = page
    return list_catalogs, TOKEN


def xml_not_read(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)
    answer(api, CATALOGS, b"<root><list-item>", "application/xml")
    return with_own_client(list_catalogs, response_format="xml"), PREFIX + CATALOGS


def unreadable_item(api: ScriptedAPI) -> tuple[Call, str]:
    issue_tokens(api)
    api.json("GET", PREFIX + CATALOGS, {"count": 1, "next": None, "results": [{"title": "no uuid"}]})

    async def call(client: EnterpriseClient) -> object:
        pager = client.catalogs.list(extra_query={"note": QUERY_VALUE}).with_unreadable()
        (item,) = await pager.to_list()
        raise item.error

    return call, PREFIX + CATALOGS


def _results_file(api: ScriptedAPI, respond: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> Call:
    issue_tokens(api)
    link = f"{api.base_url}/storage/results.csv?X-Amz-Signature={QUERY_VALUE}"
    api.json("GET", PREFIX + ENROLLMENT, {"job_id": JOB, "download_url": link})
    api.routes[("GET", "/storage/results.csv")] = respond

    def call(client: EnterpriseClient) -> Awaitable[object]:
        return client.enrollments.results(CUSTOMER, JOB, timeout=5, poll_interval=0.01)

    return call


def results_file_lacks_a_column(api: ScriptedAPI) -> tuple[Call, str]:
    async def respond(_: web.Request) -> web.StreamResponse:
        return web.Response(body=b"email\nada@acme.example\n", content_type="text/csv")

    return _results_file(api, respond), "/storage/results.csv"


def results_file_silent(api: ScriptedAPI) -> tuple[Call, str]:
    async def respond(_: web.Request) -> web.StreamResponse:
        await asyncio.sleep(30)
        return web.Response(body=b"")

    return with_own_client(_results_file(api, respond), timeout=0.2), "/storage/results.csv"


CASES: dict[str, tuple[Callable[[ScriptedAPI], tuple[Call, str]], type[EnterpriseError]]] = {
    "a 404 behind a wrong base path": (wrong_base_path, APIStatusError),
    "a refused POST": (refused_post, APIStatusError),
    "a listing's later page": (later_page_fails, IncompleteListingError),
    "a read timeout": (read_timeout, APITimeoutError),
    "the token refused": (token_refused, APIStatusError),
    "the token issuer down": (token_outage, APIStatusError),
    "the token issuer silent": (token_timeout, APITimeoutError),
    "a token answer that is not JSON": (token_unreadable, ResponseDecodeError),
    "a token answer without a token": (token_without_token, ResponseDecodeError),
    "a body that is not JSON": (invalid_json, ResponseDecodeError),
    "a body of another type": (unknown_content_type, ResponseDecodeError),
    "an empty body": (empty_body, ResponseDecodeError),
    "a body that does not fit its model": (body_that_does_not_fit, IncompleteListingError),
    "an envelope that cannot be followed": (envelope_not_followed, ResponseDecodeError),
    "a body over max_response_bytes": (too_large, ResponseDecodeError),
    "a lookup answering another item": (another_course, ResponseDecodeError),
    "a rate wait past its limit": (rate_wait, APITimeoutError),
    "a results file the storage refuses": (results_file_refused, JobResultsDownloadError),
    "a connection dropped without an answer": (connection_dropped, APIConnectionError),
    "the token issuer hanging up": (token_connection_dropped, APIConnectionError),
    "a gateway's page for the token": (token_gateway_page, APIStatusError),
    "an XML body that cannot be read": (xml_not_read, ResponseDecodeError),
    "an item that cannot be read, kept": (unreadable_item, ResponseDecodeError),
    "a results file without a column": (results_file_lacks_a_column, ResponseDecodeError),
    "a results file that never comes": (results_file_silent, APITimeoutError),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_an_error_names_the_whole_url_without_its_query(api: ScriptedAPI, case: str) -> None:
    script, error_class = CASES[case]
    call, path = script(api)
    client = EnterpriseClient(
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        base_url=f"{api.base_url}{PREFIX}",
        auth_url=f"{api.base_url}{AUTH_PREFIX}",
        max_retries=0,
    )
    async with client:
        with pytest.raises(error_class) as caught:
            await call(client)
    message = str(caught.value)
    assert f"{api.base_url}{path}" in message, message
    assert QUERY_VALUE not in message
    assert "?" not in message
    assert CLIENT_SECRET not in message


async def test_a_refused_connection_names_the_url_it_was_refused() -> None:
    port = closed_port()
    client = EnterpriseClient(
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        base_url=f"http://127.0.0.1:{port}{PREFIX}",
        max_retries=0,
    )
    async with client:
        with pytest.raises(APIConnectionError) as caught:
            await list_catalogs(client)
    message = str(caught.value)
    assert f"POST http://127.0.0.1:{port}{PREFIX}/oauth2/v1/access_token failed: cannot connect" in message


async def test_an_auth_url_with_a_password_is_named_without_it(api: ScriptedAPI) -> None:
    host = api.base_url.removeprefix("http://")
    client = EnterpriseClient(
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        base_url=f"{api.base_url}{PREFIX}",
        auth_url=f"http://issuer:hunter2@{host}{AUTH_PREFIX}",
        max_retries=0,
    )
    api.json("POST", TOKEN, {"error": "invalid_client"}, 401)
    async with client:
        with pytest.raises(APIStatusError) as caught:
            await list_catalogs(client)
    message = str(caught.value)
    assert f"(POST http://{host}{TOKEN}) was refused with 401" in message
    assert "hunter2" not in message
    assert "issuer" not in message


def test_a_base_url_with_a_password_is_refused_before_sending() -> None:
    # The API's requests carry the token: aiohttp cannot send a URL's credentials beside it.
    with pytest.raises(ClientValidationError) as caught:
        EnterpriseClient(
            client_id=CLIENT_ID, client_secret=CLIENT_SECRET, base_url="https://ops:hunter2@api.test"
        )
    assert caught.value.field == "base_url"
    assert "hunter2" not in str(caught.value)
