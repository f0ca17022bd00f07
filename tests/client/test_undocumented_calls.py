"""Calls the spec lacks: ``client.request(method, path, ...)`` gets everything a generated method
has (the token, retries, error mapping, request ids, tracing, redaction, raw answers), and every
generated method takes ``extra_query=`` and ``extra_body=``."""

from __future__ import annotations

import json

import pytest
from aiohttp import web

from enterprise_async import (
    ClientValidationError,
    NotFoundError,
    OutgoingRequest,
    RawResponse,
    Send,
    ServerError,
)
from enterprise_async.models import Catalog
from tests.conftest import Backoffs, ScriptedAPI

CONFIG = "0c3d7f9e-1b2a-4c5d-8e6f-7a8b9c0d1e2f"
REMIND_ALL = f"/enterprise/v1/assignment-configurations/{CONFIG}/admin/assignments/remind-all/"
PROFILE = "/enterprise/v1/learner_profile/"
CATALOG = "5b0b3e9c-58d6-4d6b-a63b-8c2ef5e0e5a1"
COURSE = f"/enterprise/v2/enterprise-catalogs/{CATALOG}/courses/edX+DemoX"
POLICY = "7a1f0c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
ALLOCATE = f"/enterprise/v1/policy-allocation/{POLICY}/allocate/"
POLICIES = "/enterprise/v1/subsidy-access-policies/"


async def test_request_posts_to_an_endpoint_the_spec_lacks_with_the_clients_token(api: ScriptedAPI) -> None:
    api.json("POST", REMIND_ALL, {"reminded": 3}, status=202)
    async with api.client() as client:
        result = await client.request("POST", REMIND_ALL, json={"learner_state": "waiting"})
    assert result == {"reminded": 3}
    (sent,) = api.calls("POST", REMIND_ALL)
    assert sent.headers["Authorization"] == "JWT token-1"
    assert json.loads(sent.body) == {"learner_state": "waiting"}
    assert sent.headers["Content-Type"] == "application/json"


async def test_request_sends_params_as_the_servers_read_them(api: ScriptedAPI) -> None:
    api.json("GET", PROFILE, [])
    async with api.client() as client:
        await client.request("GET", PROFILE, params={"user_id": 7, "active": True, "state__in": ["a", "b"]})
    (sent,) = api.calls("GET", PROFILE)
    assert sent.query == {"user_id": "7", "active": "true", "state__in": "a,b"}


async def test_request_decodes_into_cast_to(api: ScriptedAPI) -> None:
    api.json(
        "GET", PROFILE, {"uuid": "c1", "title": "Leadership", "enterprise_customer": "e1", "shelf": "kept"}
    )
    async with api.client() as client:
        catalog = await client.request("GET", PROFILE, cast_to=Catalog)
    assert isinstance(catalog, Catalog)
    assert (catalog.uuid, catalog.title, catalog.extra) == ("c1", "Leadership", {"shelf": "kept"})


async def test_request_maps_an_error_status_to_its_typed_error_with_the_request_id(api: ScriptedAPI) -> None:
    api.json("GET", PROFILE, {"detail": "No such learner."}, status=404, **{"x-request-id": "req-42"})
    async with api.client() as client:
        with pytest.raises(NotFoundError) as raised:
            await client.request("GET", PROFILE, extra_headers={"X-Request-ID": "req-42"})
    assert raised.value.request_id == "req-42"
    assert "No such learner." in str(raised.value)
    assert "req-42" in str(raised.value)


async def test_request_retries_a_get_after_a_server_error(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    answers = iter([503, 200])

    @api.route("GET", PROFILE)
    async def flaky(request: web.Request) -> web.Response:
        return web.json_response({"ok": True}, status=next(answers))

    async with api.client(retry=no_sleep.policy) as client:
        assert await client.request("GET", PROFILE) == {"ok": True}
    assert len(api.calls("GET", PROFILE)) == 2
    assert len(no_sleep) == 1


async def test_request_never_repeats_a_post_after_a_server_error(
    api: ScriptedAPI, no_sleep: Backoffs
) -> None:
    api.json("POST", REMIND_ALL, {"detail": "boom"}, status=500)
    async with api.client(retry=no_sleep.policy) as client:
        with pytest.raises(ServerError):
            await client.request("POST", REMIND_ALL, json={})
    assert len(api.calls("POST", REMIND_ALL)) == 1


async def test_request_with_raw_response_gives_the_answer_and_parses_as_the_plain_call(
    api: ScriptedAPI,
) -> None:
    api.json(
        "GET", PROFILE, {"uuid": "c1", "title": "T", "enterprise_customer": "e1"}, **{"x-request-id": "req-7"}
    )
    async with api.client() as client:
        answer = await client.with_raw_response.request(
            "GET", PROFILE, cast_to=Catalog, extra_headers={"X-Request-ID": "req-7"}
        )
    assert (answer.status, answer.request_id, answer.retries) == (200, "req-7", 0)
    assert answer.parse() == Catalog(uuid="c1", title="T", enterprise_customer="e1")


async def test_request_carries_its_trace_through_middleware(api: ScriptedAPI) -> None:
    api.json("GET", PROFILE, {})
    seen: list[str] = []

    async def record(request: OutgoingRequest, send: Send) -> RawResponse:
        seen.append(str(request.trace))
        return await send(request)

    async with api.client(middleware=[record]) as client:
        await client.request("GET", PROFILE)
    assert seen == ["request, attempt 1"]


@pytest.mark.parametrize(
    ("method", "path", "keywords", "named"),
    [
        ("GET", "https://elsewhere.example/steal", {}, "path"),
        ("GET", "//elsewhere.example/steal", {}, "path"),
        ("GET", "enterprise/v1/no-slash", {}, "path"),
        ("GET", "/enterprise/v1/x?page=2", {}, "path"),
        ("FETCH", "/enterprise/v1/x", {}, "method"),
        ("GET", "/enterprise/v1/x", {"json": {"a": 1}}, "json"),
        ("POST", "/enterprise/v1/x", {"json": {"when": object()}}, "json"),
        ("GET", "/enterprise/v1/x", {"params": {"filter": {"nested": 1}}}, "params"),
        ("GET", "/enterprise/v1/x", {"cast_to": "Catalog"}, "cast_to"),
    ],
)
async def test_request_refuses_bad_arguments_before_sending(
    api: ScriptedAPI, method: str, path: str, keywords: dict[str, object], named: str
) -> None:
    async with api.client() as client:
        with pytest.raises(ClientValidationError, match=named):
            await client.request(method, path, **keywords)  # type: ignore[arg-type]
    assert api.requests == []


# ------------------------------------------------------------------------- extra_query, extra_body


async def test_extra_query_adds_a_parameter_the_spec_lacks(api: ScriptedAPI) -> None:
    api.json("GET", COURSE, {"key": "edX+DemoX"})
    async with api.client() as client:
        await client.catalogs.course(CATALOG, "edX+DemoX", extra_query={"include_hidden": True})
    (sent,) = api.calls("GET", COURSE)
    assert sent.query == {"include_hidden": "true"}


async def test_extra_query_replaces_or_removes_the_methods_own_parameter(api: ScriptedAPI) -> None:
    api.json("GET", POLICIES, {"count": 0, "next": None, "previous": None, "results": []})
    async with api.client() as client:
        await client.policies.list(
            "4f2ad1b8-9c6e-4c1a-8f0e-3b7d2e5a9c11",
            active=True,
            policy_type="PerLearnerSpendCreditAccessPolicy",
            extra_query={"active": None, "policy_type": "Other", "page_size": 7},
        ).to_list()
    (sent,) = api.calls("GET", POLICIES)
    assert "active" not in sent.query
    assert sent.query["policy_type"] == "Other"
    assert sent.query["page_size"] == "7"


async def test_extra_query_sets_the_methods_own_parameter_where_it_stands(api: ScriptedAPI) -> None:
    query_strings: list[str] = []

    @api.route("GET", POLICIES)
    async def listing(request: web.Request) -> web.StreamResponse:
        query_strings.append(request.query_string)
        return web.json_response({"count": 0, "next": None, "previous": None, "results": []})

    async with api.client() as client:
        await client.policies.list(
            "4f2ad1b8-9c6e-4c1a-8f0e-3b7d2e5a9c11",
            active=True,
            policy_type="PerLearnerSpendCreditAccessPolicy",
            extra_query={"active": "false", "new_filter": "x"},
        ).to_list()
    (query,) = query_strings
    names = [pair.split("=")[0] for pair in query.split("&")]
    assert names.index("active") < names.index("policy_type") < names.index("new_filter")
    assert names.count("active") == 1
    assert "active=false" in query.split("&")


async def test_extra_body_adds_a_field_to_the_methods_body(api: ScriptedAPI) -> None:
    api.json("POST", ALLOCATE, {"created": [], "updated": [], "no_change": []}, status=202)
    async with api.client() as client:
        await client.policies.allocate(
            POLICY,
            learner_emails=["al@example.com"],
            content_key="edX+DemoX",
            content_price_cents=1000,
            extra_body={"send_notifications": False},
        )
    (sent,) = api.calls("POST", ALLOCATE)
    assert json.loads(sent.body) == {
        "learner_emails": ["al@example.com"],
        "content_key": "edX+DemoX",
        "content_price_cents": 1000,
        "send_notifications": False,
    }


async def test_extra_body_on_a_get_is_refused_before_sending(api: ScriptedAPI) -> None:
    async with api.client() as client:
        with pytest.raises(ClientValidationError, match="extra_body"):
            await client.catalogs.course(CATALOG, "edX+DemoX", extra_body={"x": 1})
    assert api.requests == []


@pytest.mark.parametrize(
    ("keywords", "named"),
    [
        ({"extra_query": {"x": {"nested": 1}}}, "extra_query"),
        ({"extra_query": ["x"]}, "extra_query"),
        ({"extra_body": {"when": object()}}, "extra_body"),
        ({"extra_body": "text"}, "extra_body"),
    ],
)
async def test_extras_that_cannot_be_sent_are_refused_before_sending(
    api: ScriptedAPI, keywords: dict[str, object], named: str
) -> None:
    async with api.client() as client:
        with pytest.raises(ClientValidationError, match=named):
            await client.policies.allocate(
                POLICY, learner_emails=["al@example.com"], content_key="k", content_price_cents=1, **keywords
            )  # type: ignore[arg-type]
    assert api.requests == []
