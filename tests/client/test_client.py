"""The client over a real loopback server: what goes on the wire, and how statuses map to results
and typed errors."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any
from urllib.parse import parse_qsl

import aiohttp
import pytest
from aiohttp import web

from enterprise_async import (
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    CachedToken,
    EnterpriseClient,
    InMemoryTokenCache,
    NotFoundError,
    PermissionDeniedError,
    ResponseDecodeError,
    ServerError,
)
from enterprise_async._utils.xml import render_drf_xml
from enterprise_async._version import __version__
from enterprise_async.models import (
    AllocationResult,
    Assignment,
    AssignmentAction,
    AssignmentState,
    BulkRevokeResult,
    LearnerState,
)
from tests.conftest import CLIENT_ID, CLIENT_SECRET, ScriptedAPI
from tests.fixtures import json_fixture
from tests.openapi_spec import required

PLAN = "2c5e8f1a-4b7d-4a0c-9e3f-6b9c2e5f8a1d"
POLICY = "c3a1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
CONFIG = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
CUSTOMER = "4f2ad1b8-9c6e-4c1a-8f0e-3b7d2e5a9c11"
CATALOG = "7d0c5a7e-2b44-4f4b-9a3d-6e1f0c8b5a22"
ALLOCATE = f"/enterprise/v1/policy-allocation/{POLICY}/allocate/"
REVOKE = f"/enterprise/v1/subscriptions/{PLAN}/licenses/bulk-revoke"
REMIND = f"/enterprise/v1/assignment-configurations/{CONFIG}/admin/assignments/remind/"
ASSIGNMENTS = f"/enterprise/v1/assignment-configurations/{CONFIG}/admin/assignments/"


async def allocate(client: EnterpriseClient) -> AllocationResult:
    return await client.policies.allocate(
        POLICY, learner_emails=["ada@acme.example"], content_key="HarvardX+CS50", content_price_cents=19900
    )


def respond_with(
    api: ScriptedAPI, method: str, path: str, body: bytes, status: int, content_type: str
) -> None:
    async def handler(request: web.Request) -> web.StreamResponse:
        return web.Response(body=body, status=status, content_type=content_type)

    api.routes[(method, path)] = handler


# --------------------------------------------------------------------------- the wire


async def test_token_request_is_the_documented_form(api: ScriptedAPI) -> None:
    api.json("POST", ALLOCATE, json_fixture("allocation_result"), 202)
    async with api.client() as client:
        await allocate(client)
    (token_request,) = api.calls("POST", "/oauth2/v1/access_token")
    assert dict(parse_qsl(token_request.body.decode())) == {
        "grant_type": "client_credentials",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "token_type": "jwt",
    }
    assert token_request.headers["Content-Type"] == "application/x-www-form-urlencoded"


async def test_every_api_request_carries_the_jwt_header(api: ScriptedAPI) -> None:
    api.json("POST", ALLOCATE, json_fixture("allocation_result"), 202)
    async with api.client() as client:
        await allocate(client)
    (call,) = api.calls("POST", ALLOCATE)
    assert call.headers["Authorization"] == "JWT token-1"


async def test_json_mode_asks_for_json_and_sends_a_json_body(api: ScriptedAPI) -> None:
    api.json("POST", ALLOCATE, json_fixture("allocation_result"), 202)
    async with api.client() as client:
        await allocate(client)
    (call,) = api.calls("POST", ALLOCATE)
    assert call.headers["Accept"] == "application/json"
    assert call.headers["Content-Type"] == "application/json"
    assert json.loads(call.body) == {
        "learner_emails": ["ada@acme.example"],
        "content_key": "HarvardX+CS50",
        "content_price_cents": 19900,
    }


async def test_xml_mode_asks_for_xml_and_decodes_it_into_the_same_models(api: ScriptedAPI) -> None:
    respond_with(
        api, "POST", ALLOCATE, render_drf_xml(json_fixture("allocation_result")), 202, "application/xml"
    )
    async with api.client(response_format="xml") as client:
        from_xml = await allocate(client)
    api.json("POST", ALLOCATE, json_fixture("allocation_result"), 202)
    async with api.client() as client:
        from_json = await allocate(client)
    assert api.calls("POST", ALLOCATE)[0].headers["Accept"] == "application/xml"
    assert from_xml == from_json


async def test_requests_name_the_sdk_and_its_version(api: ScriptedAPI) -> None:
    api.json("POST", ALLOCATE, json_fixture("allocation_result"), 202)
    async with api.client() as client:
        await allocate(client)
    assert api.calls("POST", ALLOCATE)[0].headers["User-Agent"] == f"enterprise-async/{__version__}"


async def test_in_filters_go_as_one_comma_separated_value_and_none_is_left_out(api: ScriptedAPI) -> None:
    api.json("GET", ASSIGNMENTS, json_fixture("assignment_page") | {"next": None})
    async with api.client() as client:
        await client.assignments.list(
            CONFIG,
            state__in=[AssignmentState.ALLOCATED, "errored"],
            learner_state=LearnerState.WAITING,
            lms_user_id__in=[1, 2],
            search=None,
        ).first_page()
    (call,) = api.calls("GET", ASSIGNMENTS)
    assert call.query == {
        "state__in": "allocated,errored",
        "learner_state": "waiting",
        "lms_user_id__in": "1,2",
    }


async def test_booleans_go_as_true_and_false(api: ScriptedAPI) -> None:
    api.json(
        "GET", "/enterprise/v1/subscriptions", {"count": 0, "next": None, "previous": None, "results": []}
    )
    async with api.client() as client:
        await client.subscriptions.list(current=False).first_page()
    assert api.calls("GET", "/enterprise/v1/subscriptions")[0].query == {"current": "false"}


async def test_optional_body_fields_left_as_none_are_not_sent(api: ScriptedAPI) -> None:
    path = f"/enterprise/v1/subscriptions/{PLAN}/licenses/assign"
    api.json("POST", path, json_fixture("license_assignment_result"))
    async with api.client() as client:
        await client.subscriptions.assign_licenses(
            PLAN, user_emails=["ada@acme.example"], greeting="Welcome!"
        )
    assert json.loads(api.calls("POST", path)[0].body) == {
        "user_emails": ["ada@acme.example"],
        "greeting": "Welcome!",
    }


async def test_revoke_filters_given_as_models_are_sent_in_the_service_form(api: ScriptedAPI) -> None:
    from enterprise_async.models import BulkRevokeFilter, LicenseStatus

    api.json("POST", REVOKE, json_fixture("bulk_revoke_result"))
    async with api.client() as client:
        await client.subscriptions.bulk_revoke(
            PLAN, filters=[BulkRevokeFilter(status_in=[LicenseStatus.ASSIGNED])]
        )
    assert json.loads(api.calls("POST", REVOKE)[0].body) == {
        "filters": [{"name": "status_in", "filter_value": ["assigned"]}]
    }


async def test_course_keys_travel_in_the_path_as_they_are(api: ScriptedAPI) -> None:
    key = "course-v1:HarvardX+CS50+2025"
    api.json(
        "GET", f"/enterprise/v2/enterprise-catalogs/{CATALOG}/course-runs/{key}", json_fixture("course_run")
    )
    async with api.client() as client:
        run = await client.catalogs.course_run(CATALOG, key)
    assert run.key == key


# --------------------------------------------------------------------------- statuses


async def test_allocate_202_returns_the_allocation_result(api: ScriptedAPI) -> None:
    api.json("POST", ALLOCATE, json_fixture("allocation_result"), 202)
    async with api.client() as client:
        result = await allocate(client)
    assert isinstance(result, AllocationResult)
    assert len(result.created) == 1


async def test_remind_with_an_empty_200_returns_none(api: ScriptedAPI) -> None:
    respond_with(api, "POST", REMIND, b"", 200, "application/json")
    async with api.client() as client:
        assert await client.assignments.remind(CONFIG, assignment_uuids=[POLICY]) is None


async def test_remind_returns_the_decoded_body_when_there_is_one(api: ScriptedAPI) -> None:
    api.json("POST", REMIND, {"reminded": [POLICY]})
    async with api.client() as client:
        assert await client.assignments.remind(CONFIG, assignment_uuids=[POLICY]) == {"reminded": [POLICY]}


async def test_bulk_revoke_200_is_not_partial(api: ScriptedAPI) -> None:
    api.json("POST", REVOKE, json_fixture("bulk_revoke_result"), 200)
    async with api.client() as client:
        result = await client.subscriptions.bulk_revoke(PLAN, user_emails=["ada@acme.example"])
    assert isinstance(result, BulkRevokeResult)
    assert result.partial is False


async def test_bulk_revoke_207_is_partial(api: ScriptedAPI) -> None:
    api.json("POST", REVOKE, json_fixture("bulk_revoke_result"), 207)
    async with api.client() as client:
        result = await client.subscriptions.bulk_revoke(PLAN, user_emails=["ada@acme.example"])
    assert result.partial is True
    assert result.unsuccessful_revocations[0].error_response_status == 404


async def test_bulk_revoke_400_raises_bad_request(api: ScriptedAPI) -> None:
    api.json("POST", REVOKE, {"detail": "invalid data format"}, 400)
    async with api.client() as client:
        with pytest.raises(BadRequestError, match="invalid data format"):
            await client.subscriptions.bulk_revoke(PLAN, user_emails=["ada@acme.example"])


async def test_bulk_revoke_404_carries_the_decoded_result(api: ScriptedAPI) -> None:
    body = {
        "successful_revocations": [],
        "unsuccessful_revocations": json_fixture("bulk_revoke_result")["unsuccessful_revocations"],
    }
    api.json("POST", REVOKE, body, 404)
    async with api.client() as client:
        with pytest.raises(NotFoundError) as caught:
            await client.subscriptions.bulk_revoke(PLAN, user_emails=["nobody@acme.example"])
    assert isinstance(caught.value.result, BulkRevokeResult)
    assert caught.value.result.unsuccessful_revocations[0].user_email == "nobody@acme.example"
    assert "No license for this e-mail in the plan" in str(caught.value)


async def test_bulk_revoke_404_with_only_a_message_has_no_result(api: ScriptedAPI) -> None:
    api.json("POST", REVOKE, {"detail": "No license found"}, 404)
    async with api.client() as client:
        with pytest.raises(NotFoundError) as caught:
            await client.subscriptions.bulk_revoke(PLAN, user_emails=["nobody@acme.example"])
    assert caught.value.result is None
    assert caught.value.body == {"detail": "No license found"}


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (400, BadRequestError),
        (403, PermissionDeniedError),
        (404, NotFoundError),
        (409, APIStatusError),
        (500, ServerError),
    ],
)
async def test_statuses_map_to_typed_errors(
    api: ScriptedAPI, status: int, error_class: type[Exception]
) -> None:
    api.json("POST", ALLOCATE, {"detail": "nope"}, status)
    async with api.client(max_retries=0) as client:
        with pytest.raises(error_class) as caught:
            await allocate(client)
    assert caught.value.status == status  # type: ignore[attr-defined]


async def test_error_messages_name_method_url_status_and_detail(api: ScriptedAPI) -> None:
    api.json("POST", ALLOCATE, {"detail": "Policy is not active."}, 400)
    async with api.client() as client:
        with pytest.raises(BadRequestError) as caught:
            await allocate(client)
    assert str(caught.value) == (
        f"policies.allocate: POST {api.base_url}{ALLOCATE} returned 400 Bad Request: Policy is not active."
        f" (request id {caught.value.request_id})"
    )
    assert caught.value.headers["Content-Type"].startswith("application/json")


@pytest.mark.parametrize(
    ("body", "content_type", "decoded", "detail"),
    [
        (b'{"detail": "bad"}', "application/json", {"detail": "bad"}, "bad"),
        (
            b'["first problem", "second problem"]',
            "application/json",
            ["first problem", "second problem"],
            "first problem; second problem",
        ),
        (b'"just a string"', "application/json", "just a string", "just a string"),
        (b"<root><detail>from xml</detail></root>", "application/xml", {"detail": "from xml"}, "from xml"),
        (
            b"<html><body><h1>Bad Gateway</h1></body></html>",
            "text/html",
            "<html><body><h1>Bad Gateway</h1></body></html>",
            "Bad Gateway",
        ),
        (b"", "application/json", None, ""),
        (b"{not json", "application/json", "{not json", "{not json"),
    ],
)
async def test_error_bodies_are_decoded_tolerantly(
    api: ScriptedAPI, body: bytes, content_type: str, decoded: Any, detail: str
) -> None:
    respond_with(api, "POST", ALLOCATE, body, 400, content_type)
    async with api.client() as client:
        with pytest.raises(BadRequestError) as caught:
            await allocate(client)
    assert caught.value.body == decoded
    said = f"400 Bad Request: {detail}" if detail else "400 Bad Request"
    assert str(caught.value).endswith(f"{said} (request id {caught.value.request_id})")


async def test_html_where_a_result_is_due_raises_decode_error_with_the_status(api: ScriptedAPI) -> None:
    respond_with(api, "POST", ALLOCATE, b"<html><body>maintenance</body></html>", 202, "text/html")
    async with api.client() as client:
        with pytest.raises(ResponseDecodeError) as caught:
            await allocate(client)
    assert caught.value.status == 202


async def test_truncated_json_raises_decode_error(api: ScriptedAPI) -> None:
    respond_with(api, "POST", ALLOCATE, b'{"created": [{"uuid": ', 202, "application/json")
    async with api.client() as client:
        with pytest.raises(ResponseDecodeError, match="not valid JSON"):
            await allocate(client)


async def test_an_empty_body_where_a_result_is_due_raises_decode_error(api: ScriptedAPI) -> None:
    respond_with(api, "POST", ALLOCATE, b"", 202, "application/json")
    async with api.client() as client:
        with pytest.raises(ResponseDecodeError, match="empty body"):
            await allocate(client)


async def test_a_value_that_does_not_fit_its_type_is_kept_and_logged_with_its_path(
    api: ScriptedAPI, caplog: pytest.LogCaptureFixture
) -> None:
    action = {**required(AssignmentAction), "created": "yesterday"}
    created = [{**required(Assignment), "actions": [action]}]
    api.json("POST", ALLOCATE, {"created": created, "updated": [], "no_change": []}, 202)
    async with api.client() as client:
        with caplog.at_level(logging.DEBUG, logger="enterprise_async"):
            result = await allocate(client)
    assert result.created[0].actions[0].created == "yesterday"
    assert [record.sdk_path for record in caplog.records if hasattr(record, "sdk_path")] == [
        "created[0].actions[0].created"
    ]


async def test_a_body_whose_top_level_is_not_the_promised_shape_raises_decode_error(api: ScriptedAPI) -> None:
    api.json("POST", ALLOCATE, "allocated", 202)
    async with api.client() as client:
        with pytest.raises(ResponseDecodeError, match="AllocationResult"):
            await allocate(client)


# --------------------------------------------------------------------------- tokens over the wire


async def test_a_401_refreshes_the_token_once_and_retries(api: ScriptedAPI) -> None:
    async def handler(request: web.Request) -> web.StreamResponse:
        if request.headers["Authorization"] == "JWT token-1":
            return web.json_response({"detail": "Token expired"}, status=401)
        return web.json_response(json_fixture("allocation_result"), status=202)

    api.routes[("POST", ALLOCATE)] = handler
    async with api.client() as client:
        await allocate(client)
        assert client.token_requests == 2
    assert [call.headers["Authorization"] for call in api.calls("POST", ALLOCATE)] == [
        "JWT token-1",
        "JWT token-2",
    ]


async def test_a_second_401_raises_authentication_error(api: ScriptedAPI) -> None:
    api.json("POST", ALLOCATE, {"detail": "Invalid token"}, 401)
    async with api.client() as client:
        with pytest.raises(AuthenticationError, match="Invalid token"):
            await allocate(client)
    assert len(api.calls("POST", ALLOCATE)) == 2


async def test_a_401_after_another_fault_earns_a_new_refresh(api: ScriptedAPI, no_sleep: list[float]) -> None:
    """Token expired, refreshed, then a 503, then expired again: not a credentials problem."""
    outcomes = iter(["401", "503", "401", "ok"])

    async def handler(request: web.Request) -> web.StreamResponse:
        outcome = next(outcomes)
        if outcome == "ok":
            return web.json_response({"count": 0, "next": None, "previous": None, "results": []})
        return web.json_response({"detail": outcome}, status=int(outcome))

    api.routes[("GET", "/enterprise/v2/enterprise-catalogs")] = handler
    async with api.client() as client:
        await client.catalogs.list().to_list()
        assert client.token_requests == 3


async def test_refused_credentials_raise_authentication_error_with_the_servers_words(
    api: ScriptedAPI,
) -> None:
    api.json(
        "POST",
        "/oauth2/v1/access_token",
        {"error": "invalid_client", "error_description": "Client authentication failed."},
        401,
    )
    async with api.client() as client:
        with pytest.raises(AuthenticationError, match="Client authentication failed") as caught:
            await allocate(client)
    assert CLIENT_SECRET not in str(caught.value)
    assert api.calls("POST", ALLOCATE) == []


async def test_a_token_endpoint_echoing_the_secret_does_not_leak_it(api: ScriptedAPI) -> None:
    api.json("POST", "/oauth2/v1/access_token", {"detail": f"bad secret {CLIENT_SECRET}"}, 400)
    async with api.client() as client:
        with pytest.raises(AuthenticationError) as caught:
            await allocate(client)
    assert CLIENT_SECRET not in str(caught.value)
    assert "<redacted>" in str(caught.value)


class RecordingTokenCache(InMemoryTokenCache):
    """A token cache that keeps every token it is given, as the client stores it."""

    def __init__(self) -> None:
        super().__init__()
        self.stored: list[CachedToken] = []

    async def set(self, key: str, token: CachedToken) -> None:
        self.stored.append(token)
        await super().set(key, token)


async def issued_token(api: ScriptedAPI) -> tuple[CachedToken, float, float]:
    """The token a first call has the client fetch and store, with the wall-clock times
    (``time.time()``) before and after the call, which bracket when it was issued."""
    cache = RecordingTokenCache()
    async with api.client(token_cache=cache) as client:
        before = time.time()
        with contextlib.suppress(NotFoundError):  # the call needs the token, whatever its answer
            await client.request("GET", "/enterprise/v1/no-such-route/")
        after = time.time()
    (token,) = cache.stored
    return token, before, after


@pytest.mark.parametrize(("expires_in", "expected"), [("2.5", 2.5), ("3600", 3600.0), (60, 60.0)])
async def test_token_lifetime_is_read_from_expires_in_as_sent(
    api: ScriptedAPI, expires_in: object, expected: float
) -> None:
    api.json("POST", "/oauth2/v1/access_token", {"access_token": "t", "expires_in": expires_in})
    token, before, after = await issued_token(api)
    assert token.value == "t"
    assert before + expected <= token.expires_at <= after + expected


@pytest.mark.parametrize("expires_in", [None, "soon", "-5", "0"])
async def test_an_unusable_expires_in_falls_back_to_the_default_lifetime(
    api: ScriptedAPI, expires_in: object
) -> None:
    from enterprise_async._utils.constants import DEFAULT_TOKEN_LIFETIME

    api.json("POST", "/oauth2/v1/access_token", {"access_token": "t", "expires_in": expires_in})
    token, before, after = await issued_token(api)
    assert before + DEFAULT_TOKEN_LIFETIME <= token.expires_at <= after + DEFAULT_TOKEN_LIFETIME


async def test_auth_url_defaults_to_base_url_and_may_differ(api: ScriptedAPI) -> None:
    api.json("POST", ALLOCATE, json_fixture("allocation_result"), 202)
    async with api.client(base_url=api.base_url, auth_url=api.base_url + "/") as client:
        await allocate(client)
    assert api.calls("POST", "/oauth2/v1/access_token")


# --------------------------------------------------------------------------- lifecycle


async def test_a_callers_session_is_left_open(api: ScriptedAPI) -> None:
    api.json("POST", ALLOCATE, json_fixture("allocation_result"), 202)
    async with aiohttp.ClientSession() as session:
        async with api.client(session=session) as client:
            await allocate(client)
        assert not session.closed


async def test_the_clients_own_session_is_closed(api: ScriptedAPI) -> None:
    """Leaving the client closes the connections its own session opened: the server sees them end."""
    api.json("POST", ALLOCATE, json_fixture("allocation_result"), 202)
    async with api.client() as client:
        await allocate(client)
        assert api.open_connections() >= 1  # kept alive in the session's pool
    await asyncio.wait_for(api.connections_closed(), timeout=10)  # a bound for a hung test only


async def test_closing_twice_is_safe(api: ScriptedAPI) -> None:
    client = api.client()
    await client.aclose()
    await client.aclose()
    assert client.closed


async def test_a_closed_client_refuses_to_send(api: ScriptedAPI) -> None:
    client = api.client()
    await client.aclose()
    with pytest.raises(Exception, match="closed"):
        await allocate(client)


async def test_from_env_reads_the_documented_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENTERPRISE_CLIENT_ID", "env-id")
    monkeypatch.setenv("ENTERPRISE_CLIENT_SECRET", "env-secret")
    monkeypatch.setenv("ENTERPRISE_BASE_URL", "https://api.example.org")
    monkeypatch.setenv("ENTERPRISE_AUTH_URL", "https://auth.example.org")
    client = EnterpriseClient.from_env(response_format="xml")
    assert client.base_url == "https://api.example.org"
    assert client.response_format == "xml"
    assert "env-secret" not in repr(client)
    await client.aclose()


def test_from_env_names_the_missing_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "ENTERPRISE_CLIENT_ID",
        "ENTERPRISE_CLIENT_SECRET",
        "ENTERPRISE_BASE_URL",
        "ENTERPRISE_AUTH_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(Exception, match="ENTERPRISE_CLIENT_ID"):
        EnterpriseClient.from_env()


# --------------------------------------------------------------------------- secrets and logs


async def test_one_debug_record_per_request_without_secrets(
    api: ScriptedAPI, caplog: pytest.LogCaptureFixture
) -> None:
    api.json("POST", ALLOCATE, json_fixture("allocation_result"), 202)
    caplog.set_level(logging.DEBUG, logger="enterprise_async")
    async with api.client() as client:
        await allocate(client)
    records = [record for record in caplog.records if record.name == "enterprise_async"]
    assert [record.getMessage().split(" in ")[0] for record in records] == [
        "POST /oauth2/v1/access_token -> 200",
        f"POST {ALLOCATE} -> 202",
    ]
    text = "\n".join(record.getMessage() for record in records)
    assert CLIENT_SECRET not in text
    assert "token-1" not in text


def test_the_clients_repr_shows_neither_secret_nor_token() -> None:
    client = EnterpriseClient(client_id="id", client_secret=CLIENT_SECRET, base_url="https://api.example.org")
    assert CLIENT_SECRET not in repr(client)
    assert CLIENT_SECRET not in repr(vars(client))
