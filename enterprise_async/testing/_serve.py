"""``serve()``: run a sandbox in the foreground until interrupted (the CLI's ``sandbox`` command)."""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import signal
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ._sandbox import DEFAULT_HOST, Sandbox

__all__ = ["serve"]


def serve(
    host: str = DEFAULT_HOST,
    port: int = 8000,
    seed: int = 0,
    *,
    out: TextIO | None = None,
    ready: Callable[[Sandbox], None] | None = None,
    **options: Any,
) -> None:
    """Serve a sandbox on ``host:port`` until Ctrl-C or SIGTERM; blocks.

    Prints where it listens and the credentials it accepts (to ``out``, standard output by
    default), so that any HTTP tool, or ``EnterpriseClient``, can talk to it. ``options`` are
    those of ``Sandbox`` (``token_lifetime``, ``next_host``, ``size``...). ``ready`` is called
    with the running sandbox, for embedding (a test harness, a thread).
    """
    asyncio.run(_serve(Sandbox(seed, host=host, port=port, **options), out or sys.stdout, ready))


async def _serve(sandbox: Sandbox, out: TextIO, ready: Callable[[Sandbox], None] | None) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(
            NotImplementedError, RuntimeError, ValueError
        ):  # not the main thread, Windows
            loop.add_signal_handler(signum, stop.set)
    async with sandbox:
        print(_banner(sandbox), file=out, flush=True)
        if ready is not None:
            ready(sandbox)
        await stop.wait()


def _banner(sandbox: Sandbox) -> str:
    """What the sandbox prints once it listens: shell lines, so that the output can be sourced
    (``export`` lines for the variables the client reads, ``#`` comments for the rest)."""
    customer = sandbox.data.customers[0]
    variables = {
        "ENTERPRISE_BASE_URL": sandbox.base_url,
        "ENTERPRISE_AUTH_URL": sandbox.auth_url,
        "ENTERPRISE_CLIENT_ID": sandbox.client_id,
        "ENTERPRISE_CLIENT_SECRET": sandbox.client_secret,
    }
    return "\n".join(
        [
            f"# Enterprise API sandbox (seed {sandbox.seed}) listening on {sandbox.base_url}",
            *(f"export {name}={shlex.quote(value)}" for name, value in variables.items()),
            f"# customer: {customer.name} ({customer.uuid})",
            "# Press Ctrl-C to stop.",
        ]
    )
