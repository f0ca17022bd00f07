"""Where a command's client comes from: the environment, or a sandbox embedded for the command."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Final, Literal, TypeVar

from attrs import field, frozen

from .._generated.client import EnterpriseClient
from .._request.options import ClientOptions
from .._utils.constants import REQUIRED_ENVIRONMENT
from ._drift_option import print_drift
from ._failures import InputError, run

__all__ = ["REQUIRED_ENVIRONMENT", "SANDBOX_SEED", "ApiSettings", "open_client", "run_with_client"]

T = TypeVar("T")

"""What ``EnterpriseClient.from_env()`` cannot do without (``ENTERPRISE_AUTH_URL`` is optional)."""

SANDBOX_SEED: Final = 0
"""Seed of the sandbox behind ``--sandbox``: the same ids on every run, as ``sandbox`` serves them."""


@frozen
class ApiSettings:
    """What every command that talks to the API shares: where the API is, and the client's
    options (one ``ClientOptions``, which a queued job carries on to its worker)."""

    sandbox: bool = False
    options: ClientOptions = field(factory=ClientOptions)

    @property
    def response_format(self) -> Literal["json", "xml"]:
        return self.options.response_format

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments for the client (and the sandbox's ``client()``)."""
        return {"options": self.options}


@asynccontextmanager
async def open_client(settings: ApiSettings) -> AsyncIterator[EnterpriseClient]:
    """A client for the command: from the environment, or wired to a sandbox started for it.
    Once the command is done with it, its drift report goes to stderr if ``--drift`` asked."""
    async with _open_client(settings) as client:
        try:
            yield client
        finally:
            print_drift(client)


@asynccontextmanager
async def _open_client(settings: ApiSettings) -> AsyncIterator[EnterpriseClient]:
    if settings.sandbox:
        from ..testing import Sandbox  # here: a command run without --sandbox needs no [sandbox] extra

        async with (
            Sandbox(seed=SANDBOX_SEED) as sandbox,
            sandbox.client(**settings.client_options()) as client,
        ):
            yield client
        return
    missing = [name for name in REQUIRED_ENVIRONMENT if not os.environ.get(name)]
    if missing:
        raise InputError(
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set: export "
            f"{', '.join(REQUIRED_ENVIRONMENT)} (and ENTERPRISE_AUTH_URL if the token issuer is elsewhere), "
            "or pass --sandbox"
        )
    async with EnterpriseClient.from_env(**settings.client_options()) as client:
        yield client


def run_with_client(
    settings: ApiSettings, work: Callable[[EnterpriseClient], Awaitable[T]], *, on_stop: str = ""
) -> T:
    """Open the command's client, run ``work`` with it, and close it; errors become one line, and
    a stop signal's message ends with ``on_stop`` (what the user can do next)."""

    async def session() -> T:
        async with open_client(settings) as client:
            return await work(client)

    return run(session(), on_stop=on_stop)
