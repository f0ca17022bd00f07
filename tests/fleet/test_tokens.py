"""A fleet shares one token through Redis: one request for it, and one refresh when it is revoked."""

from __future__ import annotations

import asyncio

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
        started = await _fleet.start(sandbox, 4, "--redis", redis_url, "--calls", "50", "--seconds", "2")
        for _ in range(WAIT_STEPS):  # mid-run: once the fleet has made 200 requests
            if len(sandbox.requests) >= 200:
                break
            await asyncio.sleep(0.05)
        sandbox.expire_tokens()
        revoked_at = len(sandbox.requests)
        reports = await _fleet.finish(started)
        after = list(sandbox.requests)[revoked_at:]
    assert sandbox.tokens_issued == 2
    assert sum(report["token_requests"] for report in reports) == 2
    assert any(entry.status == 401 for entry in after)
    assert all(entry.status == 200 for entry in after[-50:])
