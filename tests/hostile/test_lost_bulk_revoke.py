"""A bulk revoke that worked is a success, even as ``204 No Content`` (older license-manager
versions; the gateway's own route lists 204 as its success status)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from aiohttp import web
from click.testing import CliRunner

from enterprise_async.cli import cli
from enterprise_async.models import BulkRevokeResult
from tests.hostile.lost_server import LostServer, serving

PLAN = "5a3c9e1f-2b7d-4c8a-9e6f-1d2c3b4a5f60"
REVOKE = f"/enterprise/v1/subscriptions/{PLAN}/licenses/bulk-revoke"


@pytest.fixture
def server() -> Iterator[LostServer]:
    with serving() as running:
        yield running


def answer(server: LostServer, status: int, body: Any = None) -> list[bytes]:
    """Bulk revoke answers ``status`` (with ``body`` as JSON, or none); returns the requests' bodies."""
    received: list[bytes] = []

    async def revoke(request: web.Request) -> web.StreamResponse:
        received.append(await request.read())
        if body is None:
            return web.Response(status=status)
        return web.json_response(body, status=status)

    server.routes[("POST", REVOKE)] = revoke
    return received


async def test_a_204_is_a_result_with_nothing_unsuccessful(server: LostServer) -> None:
    received = answer(server, 204)
    async with server.client() as client:
        result = await client.subscriptions.bulk_revoke(PLAN, user_emails=["al@example.org"])
    assert isinstance(result, BulkRevokeResult)
    assert result.unsuccessful_revocations == []
    assert result.partial is False
    assert len(received) == 1  # sent once, not retried


async def test_a_204_is_told_apart_by_itemized(server: LostServer) -> None:
    answer(server, 204)
    async with server.client() as client:
        confirmed = await client.subscriptions.bulk_revoke(PLAN, user_emails=["al@example.org"])
    answer(server, 200, {"successful_revocations": [], "unsuccessful_revocations": []})
    async with server.client() as client:
        listed = await client.subscriptions.bulk_revoke(PLAN, user_emails=["al@example.org"])
    assert confirmed.itemized is False
    assert listed.itemized is True
    assert listed.partial is False


async def test_a_207_stays_partial_and_itemized(server: LostServer) -> None:
    failed = {"error": "no license", "error_response_status": 404, "user_email": "bo@example.org"}
    answer(server, 207, {"successful_revocations": [], "unsuccessful_revocations": [failed]})
    async with server.client() as client:
        result = await client.subscriptions.bulk_revoke(PLAN, user_emails=["bo@example.org"])
    assert (result.partial, result.itemized, len(result.unsuccessful_revocations)) == (True, True, 1)


def test_the_command_line_reports_a_204_as_done(server: LostServer, monkeypatch: pytest.MonkeyPatch) -> None:
    answer(server, 204)
    for name, value in server.environment.items():
        monkeypatch.setenv(name, value)
    command = ["subscriptions", "revoke", PLAN, "--user-email", "al@example.org", "--json"]
    ran = CliRunner().invoke(cli, command, catch_exceptions=False)
    assert ran.exit_code == 0
    written = orjson.loads(ran.stdout)
    assert written.get("unsuccessful_revocations", []) == []
    assert written["itemized"] is False  # the server sent no list: only the SDK's own fields
