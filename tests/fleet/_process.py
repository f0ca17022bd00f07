"""One process of a test fleet: ``python -m tests.fleet._process --name N --redis URL ...``.

It reads the credentials from the environment (``ENTERPRISE_*``, never the command line), makes
``--calls`` concurrent calls (round after round until told to stop, with ``--until-stopped``) with
a client that shares its token (and with ``--rate-limit``, its budget) through Redis, and prints
what it did as JSON.
Every request carries ``X-Fleet-Process: <name>`` so the sandbox's log tells the processes apart.

The processes start together: each prints ``ready`` once imported and set up, then waits for a
line on its standard input (``_fleet.start`` sends it to all at once). Otherwise the first ones
would make their calls while the others still start up, on a CPU that the sandbox measuring them
shares, and its arrival times would bunch. With ``--until-stopped`` a process goes on with rounds
of calls until a second line comes (``_fleet.stop``): a test stops it after what it waits for has
happened, not after a time that a loaded machine may fill with fewer calls than it needs.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

import aiohttp
import orjson

from enterprise_async import EnterpriseClient, RateLimiter, RedisTokenCache

PROCESS_HEADER = "X-Fleet-Process"
READY = b"ready\n"
"""What a process prints before it waits for the line that starts every process at once."""


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", required=True)
    parser.add_argument("--redis", required=True)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--until-stopped", action="store_true")
    parser.add_argument("--rate-limit", default=None)
    parser.add_argument("--max-retries", type=int, default=2)
    return parser.parse_args(argv)


async def _calls(client: EnterpriseClient, count: int, until_stopped: bool) -> int:
    made = 0

    async def one() -> None:
        nonlocal made
        await client.catalogs.list().to_list()
        made += 1

    stop = asyncio.ensure_future(asyncio.to_thread(sys.stdin.buffer.readline)) if until_stopped else None
    await asyncio.gather(*(one() for _ in range(count)))
    while stop is not None and not stop.done():
        await asyncio.gather(*(one() for _ in range(count)))
    return made


async def _ready_and_wait() -> None:
    sys.stdout.buffer.write(READY)
    sys.stdout.buffer.flush()
    await asyncio.to_thread(sys.stdin.buffer.readline)


async def main(argv: list[str]) -> dict[str, Any]:
    arguments = _arguments(argv)
    cache = RedisTokenCache(arguments.redis)
    limiter = RateLimiter(arguments.redis) if arguments.rate_limit else None
    async with aiohttp.ClientSession(headers={PROCESS_HEADER: arguments.name}) as session:
        client = EnterpriseClient.from_env(
            session=session,
            token_cache=cache,
            rate_limit=arguments.rate_limit,
            rate_limiter=limiter,
            max_retries=arguments.max_retries,
        )
        async with client:
            await _ready_and_wait()
            made = await _calls(client, arguments.calls, arguments.until_stopped)
    await cache.aclose()
    if limiter is not None:
        await limiter.aclose()
    return {"name": arguments.name, "calls": made, "token_requests": client.token_requests}


if __name__ == "__main__":
    sys.stdout.buffer.write(orjson.dumps(asyncio.run(main(sys.argv[1:]))) + b"\n")
