"""A fleet shares one token through Redis: one request for it, and one refresh when it is revoked."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from enterprise_async.testing import Sandbox

from . import _fleet
from ._process import PROCESS_HEADER

TOKEN_PATH = "/oauth2/v1/access_token"
WAIT_STEPS = 1200


async def test_eight_processes_of_a_hundred_calls_make_one_token_request(redis_url: str) -> None:
    async with Sandbox(seed=0) as sandbox:
        reports = await _fleet.run(sandbox, 8, "--redis", redis_url, "--calls", "100")
        api_requests = [entry for entry in sandbox.requests if entry.path != TOKEN_PATH]
    assert sum(report["calls"] for report in reports) == 800
    assert {entry.headers.get(PROCESS_HEADER) for entry in api_requests} == {str(n) for n in range(8)}
    assert len(sandbox.requests.find("POST", TOKEN_PATH)) == 1
    assert sandbox.tokens_issued == 1


async def test_a_token_revoked_mid_run_is_refreshed_once_for_the_fleet(redis_url: str) -> None:
    async with Sandbox(seed=0, log_limit=1_000_000) as sandbox:
        started = await _fleet.start(sandbox, 4, "--redis", redis_url, "--calls", "50", "--until-stopped")
        async with _fleet.reaped(started):  # none outlives the test, whatever fails
            await until(lambda: len(sandbox.requests) >= 200, "made 200 requests")  # mid-run
            sandbox.expire_tokens()
            revoked_at = len(sandbox.requests)
            # the fleet goes on until it met the revocation and made 50 requests past its last 401
            await until(lambda: settled(list(sandbox.requests)[revoked_at:]), "refreshed its token")
            await _fleet.stop(started)
            reports = await _fleet.finish(started)
        after = list(sandbox.requests)[revoked_at:]
    assert sandbox.tokens_issued == 2
    assert sum(report["token_requests"] for report in reports) == 2
    assert any(entry.status == 401 for entry in after)
    assert all(entry.status == 200 for entry in after[-50:])


def settled(after: list[Any]) -> bool:
    """Whether the requests since the revocation hold a 401 and then 50 more requests."""
    refused = [index for index, entry in enumerate(after) if entry.status == 401]
    return bool(refused) and len(after) - refused[-1] > 50


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait for ``condition``; a number of looks, not a time, bounds the wait (a hang fails)."""
    for _ in range(WAIT_STEPS):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the fleet never {what}")
