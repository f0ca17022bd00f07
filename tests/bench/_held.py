"""B10's reader: one listing read in a fresh interpreter that holds nothing but what the reader does.

``python -m tests.bench._held ADDRESS MODE FORMAT`` (ADDRESS: the child sandbox's address as JSON)
prints its figures as JSON. A full pass of the cyclic garbage collector walks every object the
process tracks: a reader that shared the benchmark's process would pay for the benchmark's own
modules and for what other benchmarks left behind (an earlier run of B3 had more than doubled
them), which a service reading a listing does not hold. So the reader runs here, with only
``enterprise_async``, aiohttp and orjson imported; the sandbox serves from a process of its own.

Modes:

- ``stream``: the listing read item by item (``async for``) beside a probe task that hands the loop
  back at every turn; the longest gap between two of its turns, in the thread's CPU time, with and
  without the collector's passes within it (counted by a ``gc.callbacks`` entry).
- ``hold``: the collector's CPU time while the listing's items are read and held (``to_list()``),
  and one full pass with them all held.
- ``dicts``: the same for the same pages read by aiohttp and ``orjson.loads``, their items held as
  plain dicts.
- ``listing``: the process's CPU time reading the whole catalog (``to_list()``, pages of the default
  size), and a digest of the items read (B3, which compares the formats).
- ``export``: the whole catalog read item by item (``async for``, pages of the default size) as an
  export reads it: the process's CPU time and the wall time (B18, the client's side of an export).
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import sys
import time
from typing import Any

import aiohttp
import orjson

from enterprise_async import EnterpriseClient

PAGE_SIZE = 100
TOKEN_PATH = "/oauth2/v1/access_token"
CONTENTS_PATH = "/enterprise/v2/enterprise-catalogs/{catalog}"


class Collector:
    """A ``gc.callbacks`` entry: the collector's CPU time (all passes, and full ones) and count."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.full_seconds = 0.0
        self.longest_full = 0.0
        self.full_passes = 0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.thread_time()
            return
        spent = time.thread_time() - self._started
        self.seconds += spent
        if info["generation"] == 2:
            self.full_seconds += spent
            self.full_passes += 1
            self.longest_full = max(self.longest_full, spent)


class Probe:
    """A task that hands the loop back at every turn, noting the longest gap between its turns: in
    the thread's CPU time, the same less the collector's passes within it, and in wall time."""

    def __init__(self, collector: Collector) -> None:
        self.collector = collector
        self.longest_cpu = 0.0
        self.longest_outside = 0.0
        self.longest_wall = 0.0

    async def run(self) -> None:
        cpu_clock, wall_clock, collector = time.thread_time, time.perf_counter, self.collector
        last_cpu, last_wall, last_collecting = cpu_clock(), wall_clock(), collector.seconds
        while True:
            await asyncio.sleep(0)
            cpu, wall, collecting = cpu_clock(), wall_clock(), collector.seconds
            self.longest_cpu = max(self.longest_cpu, cpu - last_cpu)
            self.longest_outside = max(self.longest_outside, cpu - last_cpu - (collecting - last_collecting))
            self.longest_wall = max(self.longest_wall, wall - last_wall)
            last_cpu, last_wall, last_collecting = cpu, wall, collecting


def _client(address: dict[str, str], response_format: str) -> EnterpriseClient:
    return EnterpriseClient(
        client_id=address["client_id"],
        client_secret=address["client_secret"],
        base_url=address["base_url"],
        response_format=response_format,  # type: ignore[arg-type]
    )


async def stream(address: dict[str, str], response_format: str) -> dict[str, Any]:
    async with _client(address, response_format) as client:
        await client.catalogs.contents(address["catalog"], page_size=PAGE_SIZE).first_page()
        collector = Collector()
        probe = Probe(collector)
        gc.callbacks.append(collector)
        task = asyncio.create_task(probe.run())
        try:
            await asyncio.sleep(0)  # the probe's first turn
            items = 0
            async for _ in client.catalogs.contents(address["catalog"], page_size=PAGE_SIZE):
                items += 1
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            gc.callbacks.remove(collector)
    return {
        "items": items,
        "cpu_ms": probe.longest_cpu * 1000,
        "outside_ms": probe.longest_outside * 1000,
        "wall_ms": probe.longest_wall * 1000,
        "full_passes": collector.full_passes,
        "longest_full_ms": collector.longest_full * 1000,
        "tracked": len(gc.get_objects()),
    }


async def hold(address: dict[str, str], response_format: str) -> dict[str, Any]:
    async with _client(address, response_format) as client:
        await client.catalogs.contents(address["catalog"], page_size=PAGE_SIZE).first_page()
        listing = client.catalogs.contents(address["catalog"], page_size=PAGE_SIZE)
        return _held(await _timed(listing.to_list()))


async def dicts(address: dict[str, str], _: str) -> dict[str, Any]:
    async with aiohttp.ClientSession() as session:
        form = {
            "grant_type": "client_credentials",
            "client_id": address["client_id"],
            "client_secret": address["client_secret"],
            "token_type": "jwt",
        }
        async with session.post(address["base_url"] + TOKEN_PATH, data=form) as response:
            token = orjson.loads(await response.read())["access_token"]
        headers = {"Authorization": f"JWT {token}", "Accept": "application/json"}
        url = address["base_url"] + CONTENTS_PATH.format(catalog=address["catalog"])

        async def pages() -> list[Any]:
            items: list[Any] = []
            page = 1
            while True:
                query = {"page_size": str(PAGE_SIZE), "page": str(page)}
                async with session.get(url, params=query, headers=headers) as response:
                    body = orjson.loads(await response.read())
                items += body["results"]
                if not body.get("next"):
                    return items
                page += 1

        return _held(await _timed(pages()))


Timed = tuple[list[Any], Collector]


async def _timed(reading: Any) -> Timed:
    gc.collect()
    collector = Collector()
    gc.callbacks.append(collector)
    try:
        items = await reading
    finally:
        gc.callbacks.remove(collector)
    return items, collector


def _held(timed: Timed) -> dict[str, Any]:
    items, collector = timed
    started = time.thread_time()
    gc.collect()
    one_pass = time.thread_time() - started
    return {
        "items": len(items),
        "collector_ms": collector.seconds * 1000,
        "full_passes": collector.full_passes,
        "full_ms": collector.full_seconds * 1000,
        "one_full_pass_ms": one_pass * 1000,
        "tracked": len(gc.get_objects()),
    }


async def listing(address: dict[str, str], response_format: str) -> dict[str, Any]:
    async with _client(address, response_format) as client:
        await client.catalogs.list().first_page()  # the token, and the connection, before timing
        cpu = time.process_time()
        items = await client.catalogs.contents(address["catalog"]).to_list()
        cpu = time.process_time() - cpu
    digest = hashlib.sha256(repr(items).encode()).hexdigest()
    return {"items": len(items), "cpu_ms": cpu * 1000, "digest": digest}


async def export(address: dict[str, str], response_format: str) -> dict[str, Any]:
    async with _client(address, response_format) as client:
        await client.catalogs.list().first_page()  # the token, and the connection, before timing
        cpu, wall = time.process_time(), time.perf_counter()
        items = 0
        async for _ in client.catalogs.contents(address["catalog"]):
            items += 1
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"items": items, "cpu_s": cpu, "wall_s": wall}


MODES = {"stream": stream, "hold": hold, "dicts": dicts, "listing": listing, "export": export}


def main() -> None:
    address, mode, response_format = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
    print(json.dumps(asyncio.run(MODES[mode](address, response_format))))


if __name__ == "__main__":
    main()
