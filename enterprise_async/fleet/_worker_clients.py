"""The clients of a worker's jobs: what every job shares, and the options each job brings.

A worker holds one ``RedisTokenCache`` and one ``RateLimiter`` on the queue's Redis for all its
jobs. Catalog jobs use the ``ENTERPRISE_*`` credentials through one client per response format,
opened on first use and shared by every job asking for that format; the timeout, retries and
concurrency a job brings apply to it alone, through a view (``with_options``). Customer jobs get a
client of their own with the customer's credentials, closed by the job. Tokens and budgets are
kept per client id, so every worker shares them with every other for the same credentials.
"""

from __future__ import annotations

import os
from typing import Any, Final

from .._constants import REQUIRED_ENVIRONMENT
from .._generated.client import EnterpriseClient
from .._rate_limit import RateLimiter
from .._timeouts import Timeout
from ._customers import Customer
from ._token_cache import RedisTokenCache

__all__ = ["JOB_OPTIONS", "WorkerClients", "has_environment_credentials"]

JOB_OPTIONS: Final = ("response_format", "max_concurrency", "max_retries", "timeout")
"""The client options a job may bring (those of the command that enqueued it)."""
VIEW_OPTIONS: Final = ("max_concurrency", "max_retries", "timeout")
"""Those a view of a shared client can take."""


def has_environment_credentials() -> bool:
    """Whether ``ENTERPRISE_*`` holds what a client needs (catalog jobs use them)."""
    return all(os.environ.get(name) for name in REQUIRED_ENVIRONMENT)


class WorkerClients:
    """Clients for a worker's jobs, sharing one token cache and one rate limiter on ``queue_url``.

    Args:
        queue_url: The queue's Redis, which keeps the tokens, the budgets and the pauses.
        rate_limit: The worker's budget (a customer's own ``rate_limit`` replaces it).
        client_options: The worker's options (``max_concurrency``); a job's replace them.
    """

    def __init__(self, queue_url: str, *, rate_limit: str | None, client_options: dict[str, Any]) -> None:
        self.token_cache = RedisTokenCache(queue_url)
        self.rate_limiter = RateLimiter(queue_url)
        self.rate_limit = rate_limit
        self.client_options = client_options
        self._environment: dict[str, EnterpriseClient] = {}

    def __repr__(self) -> str:  # the URL may carry a password
        return f"WorkerClients(rate_limit={self.rate_limit!r}, environment clients={len(self._environment)})"

    async def environment(self, job_options: dict[str, Any]) -> EnterpriseClient | None:
        """The client of a catalog job, from ``ENTERPRISE_*``; None when they are not set."""
        if not has_environment_credentials():
            return None
        options = {**self.client_options, **_known(job_options)}
        response_format = options.pop("response_format", "json")
        client = self._environment.get(response_format)
        if client is None:
            client = EnterpriseClient.from_env(
                response_format=response_format,
                token_cache=self.token_cache,
                **self._budget(self.rate_limit),
                **self.client_options,
            )
            self._environment[response_format] = client
        view = {name: options[name] for name in VIEW_OPTIONS if name in job_options}
        return client.with_options(**view) if view else client

    def customer(self, customer: Customer, job_options: dict[str, Any]) -> EnterpriseClient:
        """A new client with ``customer``'s credentials, for one job, which closes it."""
        return EnterpriseClient(
            **customer.client_options(),
            **{**self.client_options, **_known(job_options)},
            token_cache=self.token_cache,
            **self._budget(customer.rate_limit or self.rate_limit),
        )

    def _budget(self, rate_limit: str | None) -> dict[str, Any]:
        return {"rate_limit": rate_limit, "rate_limiter": self.rate_limiter if rate_limit else None}

    async def aclose(self) -> None:
        """Close the shared clients and the connections to Redis."""
        for client in self._environment.values():
            await client.aclose()
        await self.token_cache.aclose()
        await self.rate_limiter.aclose()


def _known(job_options: dict[str, Any]) -> dict[str, Any]:
    """The options of a job this worker applies (a newer enqueuer's others are left out); a
    timeout given in parts (``ClientOptions.to_json``) becomes a ``Timeout`` again."""
    known = {name: value for name, value in job_options.items() if name in JOB_OPTIONS}
    if isinstance(known.get("timeout"), dict):
        known["timeout"] = Timeout(**known["timeout"])
    return known
