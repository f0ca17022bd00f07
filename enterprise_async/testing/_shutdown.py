"""Stopping a loopback server so that no connection it accepted outlives it."""

from __future__ import annotations

import asyncio
import socket

from aiohttp import web

__all__ = ["stop_serving"]

ACCEPT_TURNS = 2
"""Loop turns from a socket accepted by the listener to its connection being made: one for the
task that makes the transport, one for the transport's ``connection_made`` callback."""


async def stop_serving(runner: web.AppRunner, listener: socket.socket) -> None:
    """Stop accepting, let the sockets already accepted become connections, then close them all.

    A socket the listener accepted becomes a transport one loop turn later. Should the server
    close in between (``runner.cleanup()`` closes it first thing), asyncio fails to attach that
    transport to the closed server, drops the error, and leaves the socket open: an unclosed
    transport once the loop is gone (a client that connects and goes away at once, as a listing's
    read-ahead cancelled mid-connect does, meets that turn when a command ends and its sandbox
    stops). So the listener is taken off the loop first, the accepted sockets are made into
    connections while the server is still open, and then the runner closes the server and every
    connection, each one known to it.
    """
    asyncio.get_running_loop().remove_reader(listener.fileno())
    for _ in range(ACCEPT_TURNS):
        await asyncio.sleep(0)
    await runner.cleanup()
