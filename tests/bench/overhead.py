"""B6: the time of one small request on loopback without latency, SDK against raw aiohttp and orjson.

Both read the first page of ``GET /enterprise/v2/enterprise-catalogs`` (a few hundred bytes) one
request after another, connections open and token in hand, from a sandbox in another process.
The SDK builds and validates the request, sends it through its transport (retry policy,
concurrency bound, token) and decodes a ``CatalogPage``; the raw side sends a prepared request
and parses the JSON.
"""

from __future__ import annotations

import asyncio
import time

import aiohttp
import orjson

from enterprise_async import EnterpriseClient

from ._harness import Row, median
from ._remote import RemoteSandbox, SandboxAddress, remote_sandbox, token_headers

__all__ = ["run"]

REQUESTS = 300
CATALOGS_PATH = "/enterprise/v2/enterprise-catalogs"


async def _rounds(address: SandboxAddress, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"sdk": [], "raw": [], "sdk_cpu": [], "raw_cpu": []}
    async with (
        EnterpriseClient(
            client_id=address.client_id, client_secret=address.client_secret, base_url=address.base_url
        ) as client,
        aiohttp.ClientSession() as session,
    ):
        headers = await token_headers(session, address)
        url = address.base_url + CATALOGS_PATH

        async def sdk() -> None:
            await client.catalogs.list().first_page()

        async def raw() -> None:
            async with session.get(url, headers=headers) as response:
                orjson.loads(await response.read())

        for call in (sdk, raw):  # warm up: connections, token, compiled decoders
            for _ in range(20):
                await call()
        for _ in range(rounds):
            for name, call in (("sdk", sdk), ("raw", raw)):
                cpu, started = time.process_time(), time.perf_counter()
                for _ in range(REQUESTS):
                    await call()
                times[name].append((time.perf_counter() - started) / REQUESTS)
                times[f"{name}_cpu"].append((time.process_time() - cpu) / REQUESTS)
    return times


def run(rounds: int) -> list[Row]:
    with remote_sandbox(RemoteSandbox()) as address:
        times = asyncio.run(_rounds(address, rounds))
    ratio = median([sdk / raw for sdk, raw in zip(times["sdk"], times["raw"], strict=True)])
    cpu_ratio = median([sdk / raw for sdk, raw in zip(times["sdk_cpu"], times["raw_cpu"], strict=True)])
    return [
        Row(
            "B6",
            "one small request on loopback, no latency: SDK time / raw aiohttp + orjson time",
            f"{ratio:.2f}x",
            "<= 1.3x",
            ratio <= 1.3,
            (
                f"{REQUESTS} sequential requests a round: SDK {median(times['sdk']) * 1e3:.3f} ms, raw "
                f"{median(times['raw']) * 1e3:.3f} ms a request; client CPU alone SDK "
                f"{median(times['sdk_cpu']) * 1e3:.3f} ms, raw {median(times['raw_cpu']) * 1e3:.3f} ms "
                f"({cpu_ratio:.2f}x).",
            ),
        )
    ]
