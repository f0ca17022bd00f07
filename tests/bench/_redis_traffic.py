"""A relay in front of a Redis that counts round trips: what a fleet's workers ask of Redis (B17).

Each connection to the relay is piped to Redis unchanged. A round trip is a turn of the
conversation: the bytes a client sends before Redis's next answer count once, however many
commands they hold (a pipeline's commands go in one write and come back in one answer), so the
count is what the network and Redis's event loop see, not the number of commands
(``INFO commandstats`` counts those).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

__all__ = ["RoundTrips", "counted_redis"]

CHUNK = 65_536


class RoundTrips:
    """The relay's count: round trips and connections, over every connection it piped."""

    def __init__(self) -> None:
        self.round_trips = 0
        self.connections = 0

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, turn: list[bool], asks: bool
    ) -> None:
        """Copy one direction; ``turn[0]`` is whether the client spoke last (a new turn starts when
        it speaks after Redis did)."""
        try:
            while chunk := await reader.read(CHUNK):
                if asks and not turn[0]:
                    self.round_trips += 1
                turn[0] = asks
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _connection(
        self, host: str, port: int, client: tuple[asyncio.StreamReader, asyncio.StreamWriter]
    ) -> None:
        self.connections += 1
        client_reader, client_writer = client
        try:
            redis_reader, redis_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.close()
            return
        turn = [False]
        await asyncio.gather(
            self._pipe(client_reader, redis_writer, turn, asks=True),
            self._pipe(redis_reader, client_writer, turn, asks=False),
        )


@asynccontextmanager
async def counted_redis(url: str) -> AsyncIterator[tuple[str, RoundTrips]]:
    """A relay to the Redis at ``url`` for the block: yields its own ``redis://`` URL and its count."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 6379
    counts = RoundTrips()
    tasks: set[asyncio.Task[None]] = set()

    def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.ensure_future(counts._connection(host, port, (reader, writer)))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    relay_port = server.sockets[0].getsockname()[1]
    try:
        yield f"redis://127.0.0.1:{relay_port}{parts.path or '/0'}", counts
    finally:
        server.close()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await server.wait_closed()
