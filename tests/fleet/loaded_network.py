"""A network and a busy machine, on loopback: ``DelayingRelay`` forwards each request to a server
after holding it a random few tens of milliseconds (a network's jitter: requests sent in one order
may arrive in another), and ``cpu_burners()`` keeps every core busy beside the test.

    async with DelayingRelay(sandbox.base_url, hold=(0.01, 0.05)) as relay:
        ...  # clients given relay.url as their base URL

The relay is a reverse proxy: its URL takes the place of the server's, path and query kept.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp import web
from attrs import define, field

from tests.transport.loopback_relay import Relay

__all__ = ["DelayingRelay", "cpu_burners"]


@define
class DelayingRelay(Relay):
    """Forwards every request to ``target`` after holding it ``hold`` seconds (low, high), drawn at
    random for each request; ``held`` counts the requests it relayed."""

    target: str
    hold: tuple[float, float] = (0.01, 0.05)
    seed: int = 0
    held: int = 0
    _random: random.Random = field(init=False)

    def __attrs_post_init__(self) -> None:
        self._random = random.Random(self.seed)

    async def __aenter__(self) -> DelayingRelay:
        await super().__aenter__()
        return self

    async def delay(self, request: web.Request) -> None:
        await asyncio.sleep(self._random.uniform(*self.hold))
        self.held += 1

    def destination(self, request: web.Request) -> str:
        return self.target.rstrip("/") + request.raw_path


@contextmanager
def cpu_burners(count: int | None = None) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` processes (one per core by default) that burn a CPU each for the block; each is
    killed and waited for when it ends, however it ends."""
    burners: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range((os.cpu_count() or 1) if count is None else count):
            burners.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
        yield burners
    finally:
        for burner in burners:
            burner.kill()
        for burner in burners:
            burner.wait()
