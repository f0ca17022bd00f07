"""A request-id header holding a placeholder (django-log-request-id's ``None``, ``-``, nothing) is
no request id: errors report the id their request was sent with and no id of the answer's, and a
real id of the answer's is still reported."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from aiohttp import web

from enterprise_async import NotFoundError
from tests.hostile.leak_server import HostileServer, serving

CATALOG = "00000000-0000-4000-8000-000000000007"
"""A catalog id (a UUID, as every catalog's is) that the test's server does not know."""

COURSE = f"/enterprise/v2/enterprise-catalogs/{CATALOG}/courses/edX+DemoX"


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with serving() as running:
        yield running


def not_found(request_id: str) -> web.Response:
    return web.json_response({"detail": "Not found."}, status=404, headers={"X-Request-ID": request_id})


@pytest.mark.parametrize("placeholder", ["None", "none", "-", "", "  "])
async def test_a_placeholder_request_id_is_no_request_id(server: HostileServer, placeholder: str) -> None:
    @server.route("GET", COURSE)
    async def answer(request: web.Request) -> web.StreamResponse:
        return not_found(placeholder)

    async with server.client() as client:
        with pytest.raises(NotFoundError) as caught:
            await client.catalogs.course(CATALOG, "edX+DemoX")
    assert caught.value.response_request_id is None
    assert caught.value.request_id
    assert str(caught.value).endswith(f"(request id {caught.value.request_id})")


async def test_a_real_request_id_is_still_reported(server: HostileServer) -> None:
    @server.route("GET", COURSE)
    async def answer(request: web.Request) -> web.StreamResponse:
        return not_found("5f0c8b2e9d1a")

    async with server.client() as client:
        with pytest.raises(NotFoundError) as caught:
            await client.catalogs.course(CATALOG, "edX+DemoX")
    assert caught.value.response_request_id == "5f0c8b2e9d1a"


async def test_a_placeholder_in_one_header_leaves_a_real_id_in_another(server: HostileServer) -> None:
    @server.route("GET", COURSE)
    async def answer(request: web.Request) -> web.StreamResponse:
        headers = {"x-amzn-RequestId": "-", "X-Request-ID": "5f0c8b2e9d1a"}
        return web.json_response({"detail": "Not found."}, status=404, headers=headers)

    async with server.client() as client:
        with pytest.raises(NotFoundError) as caught:
            await client.catalogs.course(CATALOG, "edX+DemoX")
    assert caught.value.response_request_id == "5f0c8b2e9d1a"
