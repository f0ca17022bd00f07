"""B5: how many token requests 1,000 concurrent calls of a fresh client make.

Counted twice: by the client (``client.token_requests``) and by the sandbox's token issuer.
"""

from __future__ import annotations

import asyncio

from enterprise_async.testing import DataSize, Sandbox

from ._harness import Row

__all__ = ["run"]

CALLS = 1000


async def _requests_for_concurrent_calls(sandbox: Sandbox) -> tuple[int, int]:
    issued = sandbox.tokens_issued
    async with sandbox.client() as client:
        pages = await asyncio.gather(*(client.catalogs.list().first_page() for _ in range(CALLS)))
        if len(pages) != CALLS:
            raise AssertionError("calls went missing")
        return client.token_requests, sandbox.tokens_issued - issued


async def _rounds(rounds: int) -> list[tuple[int, int]]:
    async with Sandbox(size=DataSize(customers=1, catalogs_per_customer=1), log_limit=0) as sandbox:
        return [await _requests_for_concurrent_calls(sandbox) for _ in range(rounds)]


def run(rounds: int) -> list[Row]:
    counts = asyncio.run(_rounds(rounds))
    seen = sorted({count for pair in counts for count in pair})
    return [
        Row(
            "B5",
            f"token requests made by {CALLS:,} concurrent calls of a fresh client",
            f"{', '.join(map(str, seen))} (every round, counted by the client and by the sandbox)",
            "exactly 1",
            seen == [1],
        )
    ]
