"""An error a call ends in, with a token in flight, shows neither the token nor the client secret:
not in its message, its repr, its attributes (body, headers, request id), nor anywhere in the
traceback a service would log (the chained causes included)."""

from __future__ import annotations

import traceback

import pytest
from aiohttp import web

from enterprise_async import (
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    EnterpriseError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ResponseDecodeError,
    ServerError,
)
from enterprise_async.testing import Fault, Sandbox
from tests.conftest import CLIENT_SECRET, ScriptedAPI

CATALOGS = "/enterprise/v2/enterprise-catalogs"
JWT_PREFIX = "eyJ"
"""Every JWT starts with the base64 of ``{"``: every sandbox token does."""


def everything_shown(error: BaseException) -> str:
    """What a service's log could hold of ``error``: its traceback with every cause, its repr and
    its attributes, for each exception of the chain."""
    shown = ["".join(traceback.format_exception(error))]
    link: BaseException | None = error
    while link is not None:
        shown.append(repr(link))
        shown.append(repr(vars(link)))
        link = link.__cause__ or link.__context__
    return "\n".join(shown)


FAULTS = [
    pytest.param(Fault.server_error(500), ServerError, id="500"),
    pytest.param(Fault.server_error(503), ServerError, id="503-html"),
    pytest.param(Fault.rate_limited(1), RateLimitError, id="429"),
    pytest.param(Fault.drop(), APIConnectionError, id="dropped"),
    pytest.param(Fault.malformed(), ResponseDecodeError, id="malformed"),
    pytest.param(Fault.truncated(), EnterpriseError, id="truncated"),
]


@pytest.mark.parametrize(("fault", "raised"), FAULTS)
async def test_an_error_after_a_fault_shows_no_token_or_secret(fault: Fault, raised: type[Exception]) -> None:
    async with Sandbox() as sandbox, sandbox.client(max_retries=0) as client:
        sandbox.faults.inject(f"{CATALOGS}*", fault, times=2)
        with pytest.raises(raised) as caught:
            await client.catalogs.list().first_page()
        shown = everything_shown(caught.value)
        assert JWT_PREFIX not in shown
        assert sandbox.client_secret not in shown


async def test_a_timeout_with_a_token_in_flight_shows_no_token_or_secret() -> None:
    async with Sandbox() as sandbox, sandbox.client(max_retries=0) as client:
        # the token is taken first, under the client's ample timeout: the short one below times
        # out the listing that carries it, never the token's request on a loaded machine
        await client.catalogs.list().first_page()
        sandbox.faults.inject(f"{CATALOGS}*", Fault.slow(5.0))  # 25 times the timeout: never in time
        with pytest.raises(APITimeoutError) as caught:
            await client.with_options(timeout=0.2).catalogs.list().first_page()
        assert sandbox.tokens_issued == 1
        shown = everything_shown(caught.value)
        assert JWT_PREFIX not in shown
        assert sandbox.client_secret not in shown


async def test_a_not_found_shows_no_token_or_secret() -> None:
    async with Sandbox() as sandbox, sandbox.client(max_retries=0) as client:
        with pytest.raises(NotFoundError) as caught:
            await client.catalogs.course(sandbox.data.catalogs[0].uuid, "course-v1:No+Such+Course")
        shown = everything_shown(caught.value)
        assert JWT_PREFIX not in shown
        assert sandbox.client_secret not in shown


@pytest.mark.parametrize(("status", "raised"), [(401, AuthenticationError), (403, PermissionDeniedError)])
async def test_a_refusal_of_the_token_shows_neither_token_nor_secret(
    api: ScriptedAPI, status: int, raised: type[Exception]
) -> None:
    async def refuse(request: web.Request) -> web.StreamResponse:
        return web.json_response({"detail": "Invalid token."}, status=status)

    api.routes[("GET", CATALOGS)] = refuse
    async with api.client(max_retries=0) as client:
        with pytest.raises(raised) as caught:
            await client.catalogs.list().first_page()
    sent = {call.headers["Authorization"].split()[-1] for call in api.calls("GET", CATALOGS)}
    shown = everything_shown(caught.value)
    assert sent, "a token was in flight"
    assert [token for token in sent if token in shown] == []
    assert CLIENT_SECRET not in shown
