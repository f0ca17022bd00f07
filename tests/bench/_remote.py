"""A sandbox in a child process, so that a benchmark times the client and not the server too.

The sandbox and the client would otherwise share one event loop and one core: every millisecond
the sandbox spends generating a page would count against the client. In a process of its own it
behaves like a remote server (on loopback), and the client's figures are the client's.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack, contextmanager, suppress
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import aiohttp
import orjson
from attrs import frozen

from enterprise_async.testing import DataSize, Fault, Sandbox
from tests.transport.latency_front import LatencyFront, PageDepth

__all__ = [
    "CONTENTS_PATH",
    "RemoteSandbox",
    "logged_sandbox",
    "SandboxAddress",
    "process_seconds",
    "remote_sandbox",
    "token_headers",
]

CONTENTS_PATH = "/enterprise/v2/enterprise-catalogs/{catalog}"
TOKEN_PATH = "/oauth2/v1/access_token"
START_TIMEOUT = 60.0
"""Seconds a child process may take to import everything and start listening."""


@frozen
class RemoteSandbox:
    """What the child is asked to run: a sandbox of one customer and one catalog."""

    catalog_items: int = 45
    latency: float = 0.0
    """Seconds of ``Fault.latency`` added to every request for the catalog's contents."""
    per_page: float = 0.0
    """Seconds more for each page past the first: the sandbox then answers behind a front
    (``tests/transport/latency_front.py``) that waits ``latency`` plus this per page before every
    API request."""
    learners: int = 24
    seed: int = 0
    rate_limit: str | None = None
    """The sandbox's own throttle (``Sandbox(rate_limit=...)``): 429 with ``Retry-After`` beyond it."""
    catalogs: int = 1
    log_limit: int = 0
    """Requests the sandbox's log keeps (``logged_sandbox`` sums them up)."""


@frozen
class SandboxAddress:
    """Where the child's sandbox listens, the credentials it accepts and the catalog it serves."""

    base_url: str
    client_id: str
    client_secret: str
    catalog: str
    customer: str
    pid: int = 0
    """The sandbox's process, whose CPU time a benchmark may read (``process_seconds``)."""
    catalogs: tuple[str, ...] = ()
    """Every catalog's uuid, in the sandbox's order."""

    def contents_url(self, query: str = "") -> str:
        url = self.base_url + CONTENTS_PATH.format(catalog=self.catalog)
        return f"{url}?{query}" if query else url


def _child(options: RemoteSandbox, connection: Connection) -> None:
    asyncio.run(_serve(options, connection))


async def _serve(options: RemoteSandbox, connection: Connection) -> None:
    size = DataSize(
        customers=1,
        catalogs_per_customer=options.catalogs,
        catalog_items=options.catalog_items,
        learners_per_customer=options.learners,
    )
    async with (
        Sandbox(
            seed=options.seed, size=size, log_limit=options.log_limit, rate_limit=options.rate_limit
        ) as sandbox,
        AsyncExitStack() as fronts,
    ):
        base_url = sandbox.base_url
        if options.per_page:
            shape = PageDepth(first=options.latency, per_page=options.per_page)
            base_url = (await fronts.enter_async_context(LatencyFront(sandbox, shape))).url
        elif options.latency:
            path = CONTENTS_PATH.format(catalog="*")
            sandbox.faults.inject(path, Fault.latency(options.latency), times=None)
        connection.send(
            SandboxAddress(
                base_url=base_url,
                client_id=sandbox.client_id,
                client_secret=sandbox.client_secret,
                catalog=sandbox.data.catalogs[0].uuid,
                customer=sandbox.data.customers[0].uuid,
                pid=os.getpid(),
                catalogs=tuple(catalog.uuid for catalog in sandbox.data.catalogs),
            )
        )
        # Serve until the parent says stop (or goes away); sum the log up when asked.
        while await asyncio.get_running_loop().run_in_executor(None, _next_message, connection) == LOG:
            connection.send(_log_summary(sandbox))


LOG = "log"
"""The parent's message asking for the log's summary (``logged_sandbox``)."""


def _next_message(connection: Connection) -> str:
    try:
        message: str = connection.recv()
    except EOFError:
        return "stop"
    return message


def _log_summary(sandbox: Sandbox) -> dict[str, Any]:
    """The requests logged since the last summary, by operation (or path) and by status, and the
    tokens issued so far; the log is emptied."""
    by_operation = Counter(entry.operation or entry.path for entry in sandbox.requests)
    statuses = Counter(str(entry.status) for entry in sandbox.requests)
    sandbox.requests.clear()
    return {"requests": dict(by_operation), "statuses": dict(statuses), "tokens": sandbox.tokens_issued}


@contextmanager
def remote_sandbox(options: RemoteSandbox) -> Iterator[SandboxAddress]:
    """Run a sandbox in a fresh process for the duration of the block."""
    with logged_sandbox(options) as (address, _):
        yield address


@contextmanager
def logged_sandbox(options: RemoteSandbox) -> Iterator[tuple[SandboxAddress, Callable[[], dict[str, Any]]]]:
    """``remote_sandbox``, and a function that sums up the requests logged since it was last
    called (by operation, by status; the tokens issued): give ``RemoteSandbox(log_limit=)``."""
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=_child, args=(options, child), daemon=True)
    process.start()
    child.close()
    try:
        if not parent.poll(START_TIMEOUT):
            raise RuntimeError("the sandbox process did not start in time")
        address = parent.recv()

        def logged() -> dict[str, Any]:
            parent.send(LOG)
            summary: dict[str, Any] = parent.recv()
            return summary

        yield address, logged
    finally:
        with suppress(OSError):  # the child is gone already
            parent.send("stop")
        process.join(10)
        if process.is_alive():
            process.kill()
            process.join()
        parent.close()


async def token_headers(
    session: aiohttp.ClientSession, address: SandboxAddress, accept: str = "application/json"
) -> dict[str, str]:
    """Headers of an authenticated request, with a token fetched by hand (the form grant)."""
    form = {
        "grant_type": "client_credentials",
        "client_id": address.client_id,
        "client_secret": address.client_secret,
        "token_type": "jwt",
    }
    async with session.post(address.base_url + TOKEN_PATH, data=form) as response:
        token = orjson.loads(await response.read())["access_token"]
    return {"Authorization": f"JWT {token}", "Accept": accept}


def process_seconds(pid: int) -> float:
    """CPU seconds (user and system) that process ``pid`` has spent so far, from ``/proc``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
