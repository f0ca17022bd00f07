"""Per-attempt middleware: every attempt of an API request passes through the client's middleware,
which may change it; the token is attached after them, so none of them ever sees it."""

from __future__ import annotations

import attrs
import pytest
from aiohttp import web

from enterprise_async import ClientValidationError, OutgoingRequest, RawResponse, Send
from tests.conftest import Backoffs, ScriptedAPI

CATALOG = "5b0b3e9c-58d6-4d6b-a63b-8c2ef5e0e5a1"
COURSE = f"/enterprise/v2/enterprise-catalogs/{CATALOG}/courses/edX+DemoX"


async def add_tenant(request: OutgoingRequest, send: Send) -> RawResponse:
    return await send(request.with_headers({"X-Tenant": "acme"}))


async def course(client: object) -> object:
    return await client.catalogs.course(CATALOG, "edX+DemoX")  # type: ignore[attr-defined]


def serve_503_then_the_course(api: ScriptedAPI) -> None:
    """The course route answers 503 once, then the course: a call that takes one retry."""
    answers = iter([503, 200])

    @api.route("GET", COURSE)
    async def flaky(request: web.Request) -> web.Response:
        return web.json_response({"key": "edX+DemoX"}, status=next(answers))


async def test_a_header_a_middleware_adds_reaches_the_server_on_every_attempt(
    api: ScriptedAPI, no_sleep: Backoffs
) -> None:
    serve_503_then_the_course(api)

    async with api.client(retry=no_sleep.policy, middleware=[add_tenant]) as client:
        await course(client)
    assert [sent.headers.get("X-Tenant") for sent in api.calls("GET", COURSE)] == ["acme", "acme"]


async def test_each_attempt_runs_the_chain_with_its_attempt_number(
    api: ScriptedAPI, no_sleep: Backoffs
) -> None:
    serve_503_then_the_course(api)

    attempts: list[int] = []

    async def count(request: OutgoingRequest, send: Send) -> RawResponse:
        attempts.append(request.trace.attempt)
        return await send(request)

    async with api.client(retry=no_sleep.policy, middleware=[count]) as client:
        await course(client)
    assert attempts == [1, 2]


async def test_the_first_middleware_is_the_outermost(api: ScriptedAPI) -> None:
    api.json("GET", COURSE, {"key": "edX+DemoX"})
    order: list[str] = []

    def named(name: str):  # type: ignore[no-untyped-def]
        async def middleware(request: OutgoingRequest, send: Send) -> RawResponse:
            order.append(f"{name} in")
            answer = await send(request)
            order.append(f"{name} out")
            return answer

        return middleware

    async with api.client(middleware=[named("outer"), named("inner")]) as client:
        await course(client)
    assert order == ["outer in", "inner in", "inner out", "outer out"]


async def test_no_middleware_sees_the_token_or_the_token_request(api: ScriptedAPI) -> None:
    api.json("GET", COURSE, {"key": "edX+DemoX"})
    seen: list[OutgoingRequest] = []

    async def watch(request: OutgoingRequest, send: Send) -> RawResponse:
        seen.append(request)
        return await send(request)

    async with api.client(middleware=[watch]) as client:
        await course(client)
    assert [request.url.path for request in seen] == [COURSE]
    assert all(name.lower() != "authorization" for name in seen[0].headers)
    (sent,) = api.calls("GET", COURSE)
    assert sent.headers["Authorization"] == "JWT token-1"


def _cached(request: OutgoingRequest) -> RawResponse:
    """The answer a caching middleware gives without sending."""
    return RawResponse(
        status=200,
        reason="OK",
        headers={"Content-Type": "application/json"},
        body=b'{"key": "edX+DemoX", "title": "cached"}',
        method=request.method,
        path=request.url.path,
    )


async def test_a_middleware_can_answer_without_sending(api: ScriptedAPI) -> None:
    async def cached(request: OutgoingRequest, send: Send) -> RawResponse:
        return _cached(request)

    async with api.client(middleware=[cached]) as client:
        result = await course(client)
    assert result.title == "cached"  # type: ignore[attr-defined]
    assert api.calls("GET", COURSE) == []


async def test_a_middleware_may_change_the_answer_the_caller_gets(api: ScriptedAPI) -> None:
    api.json("GET", COURSE, {"key": "edX+DemoX", "title": "As sent"})

    async def retitle(request: OutgoingRequest, send: Send) -> RawResponse:
        answer = await send(request)
        return attrs.evolve(answer, body=answer.body.replace(b"As sent", b"Changed"))

    async with api.client(middleware=[retitle]) as client:
        result = await course(client)
    assert result.title == "Changed"  # type: ignore[attr-defined]


async def test_a_middleware_cannot_send_the_token_to_another_host(api: ScriptedAPI) -> None:
    async def redirect(request: OutgoingRequest, send: Send) -> RawResponse:
        return await send(request.replace(url=request.url.with_host("elsewhere.example")))

    async with api.client(middleware=[redirect]) as client:
        with pytest.raises(ClientValidationError, match="another host"):
            await course(client)
    assert api.calls("GET", COURSE) == []


async def test_a_middleware_cannot_set_the_authorization_header(api: ScriptedAPI) -> None:
    async def forge(request: OutgoingRequest, send: Send) -> RawResponse:
        return await send(request.with_headers({"Authorization": "JWT forged"}))

    async with api.client(middleware=[forge]) as client:
        with pytest.raises(ClientValidationError, match="Authorization"):
            await course(client)
    assert api.calls("GET", COURSE) == []


async def test_a_view_replaces_the_middleware_and_the_client_keeps_its(api: ScriptedAPI) -> None:
    api.json("GET", COURSE, {"key": "edX+DemoX"})

    async def add_team(request: OutgoingRequest, send: Send) -> RawResponse:
        return await send(request.with_headers({"X-Team": "reports"}))

    async with api.client(middleware=[add_tenant]) as client:
        await course(client.with_options(middleware=[add_team]))
        await course(client)
    view_call, client_call = api.calls("GET", COURSE)
    assert (view_call.headers.get("X-Team"), view_call.headers.get("X-Tenant")) == ("reports", None)
    assert (client_call.headers.get("X-Team"), client_call.headers.get("X-Tenant")) == (None, "acme")


async def test_a_middleware_that_returns_no_answer_is_named_in_the_error(api: ScriptedAPI) -> None:
    async def forgetful(request: OutgoingRequest, send: Send) -> RawResponse:
        await send(request)
        return None  # type: ignore[return-value]

    api.json("GET", COURSE, {"key": "edX+DemoX"})
    async with api.client(middleware=[forgetful]) as client:
        with pytest.raises(ClientValidationError, match="forgetful"):
            await course(client)


@pytest.mark.parametrize("bad", ["add_tenant", [42], add_tenant])
def test_middleware_that_is_not_a_list_of_functions_is_refused(api: ScriptedAPI, bad: object) -> None:
    with pytest.raises(ClientValidationError, match="middleware"):
        api.client(middleware=bad)


async def test_an_answer_a_middleware_makes_carries_the_time_and_retries_of_the_call(
    api: ScriptedAPI, no_sleep: Backoffs
) -> None:
    api.json("GET", COURSE, {"detail": "busy"}, status=503)

    async def answer_the_retry(request: OutgoingRequest, send: Send) -> RawResponse:
        if request.trace.attempt == 1:
            return await send(request)
        return _cached(request)

    async with api.client(retry=no_sleep.policy, middleware=[answer_the_retry]) as client:
        answer = await client.with_raw_response.catalogs.course(CATALOG, "edX+DemoX")
    assert (answer.status, answer.retries) == (200, 1)
    assert answer.elapsed > 0


async def test_an_answer_passed_on_by_a_middleware_carries_the_retries_it_took(
    api: ScriptedAPI, no_sleep: Backoffs
) -> None:
    serve_503_then_the_course(api)

    async with api.client(retry=no_sleep.policy, middleware=[add_tenant]) as client:
        answer = await client.with_raw_response.catalogs.course(CATALOG, "edX+DemoX")
    assert (answer.status, answer.retries) == (200, 1)
    assert answer.elapsed > 0
