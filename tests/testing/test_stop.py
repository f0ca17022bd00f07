"""Stopping a sandbox closes every connection it accepted, even one accepted in the loop turn
before the server closed (a client that connected and went away at once, as a listing's read-ahead
cancelled mid-connect does). asyncio cannot attach such a socket's transport to a closed server,
drops the error and leaves the socket open: once its loop is gone, an unclosed transport, reported
as a ResourceWarning in whatever test the collector happens to run.
"""

from __future__ import annotations

import asyncio
import gc
import socket

import pytest
from aiohttp.web_protocol import RequestHandler

from enterprise_async.testing import Sandbox


def open_server_transports(port: int) -> list[asyncio.Transport]:
    """The server-side connections accepted on ``port`` that are neither closed nor closing."""
    gc.collect()
    return [
        found
        for found in gc.get_objects()
        if isinstance(found, asyncio.Transport)
        and isinstance(found.get_protocol(), RequestHandler)
        and (found.get_extra_info("sockname") or ())[1:2] == (port,)
        and not found.is_closing()
    ]


@pytest.mark.parametrize("turns", range(5))
async def test_a_connection_accepted_as_the_sandbox_stops_is_closed(turns: int) -> None:
    """``turns``: loop turns between the client's connect and the stop; in one of them the
    listener accepts the socket, in the next its transport is made (2: the turn in between)."""
    sandbox = await Sandbox(log_limit=0).start()
    with socket.create_connection(("127.0.0.1", sandbox.port)):  # the handshake is the kernel's
        for _ in range(turns):
            await asyncio.sleep(0)
        await sandbox.stop()
    for _ in range(4):  # whatever was still on its way to being made
        await asyncio.sleep(0)
    assert open_server_transports(sandbox.port) == []
