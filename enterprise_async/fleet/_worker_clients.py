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
from collections.abc import Mapping
from typing import Any

from .._generated.client import EnterpriseClient
from .._request.options import ClientOptions
from .._utils.constants import REQUIRED_ENVIRONMENT
from .._utils.json_types import JSONValue
from ._customers import Customer
from ._rate_limiter import RateLimiter
from ._token_cache import RedisTokenCache

__all__ = ["WorkerClients", "has_environment_credentials"]


def has_environment_credentials() -> bool:
    """Whether ``ENTERPRISE_*`` holds what a client needs (catalog jobs use them)."""
    return all(os.environ.get(name) for name in REQUIRED_ENVIRONMENT)


class WorkerClients:
    """Clients for a worker's jobs, sharing one token cache and one rate limiter on ``queue_url``.

    Args:
        queue_url: The queue's Redis, which keeps the tokens, the budgets and the pauses.
        rate_limit: The worker's budget (a customer's own ``rate_limit`` replaces it).
        options: The worker's ``ClientOptions`` (its ``--max-concurrency``); those a job brings
            (``ClientOptions.overrides()`` of the command that enqueued it) replace them.
    """

    def __init__(
        self, queue_url: str, *, rate_limit: str | None, options: ClientOptions | None = None
    ) -> None:
        self.token_cache = RedisTokenCache(queue_url)
        self.rate_limiter = RateLimiter(queue_url)
        self.rate_limit = rate_limit
        self.options = options or ClientOptions()
        self._environment: dict[str, EnterpriseClient] = {}

    def __repr__(self) -> str:  # the URL may carry a password
        return f"WorkerClients(rate_limit={self.rate_limit!r}, environment clients={len(self._environment)})"

    async def environment(self, job_options: Mapping[str, JSONValue]) -> EnterpriseClient | None:
        """The client of a catalog job, from ``ENTERPRISE_*``; None when they are not set.

        One client per response format is shared by every job; a job whose options differ in
        anything else gets a view of it (``with_options``). Bad options raise
        ``ClientValidationError``."""
        options = self.options.merged(job_options)
        if not has_environment_credentials():
            return None
        shared = self.options.merged({"response_format": options.response_format})
        client = self._environment.get(options.response_format)
        if client is None:
            client = EnterpriseClient.from_env(
                options=shared, token_cache=self.token_cache, **self._budget(self.rate_limit)
            )
            self._environment[options.response_format] = client
        if options == client.options:
            return client
        return client.with_options(
            timeout=options.timeout,
            max_retries=options.max_retries,
            max_concurrency=options.max_concurrency,
            concurrency_bounds=options.concurrency_bounds,
            retry=options.retry,
            headers=options.headers,
        )

    def customer(self, customer: Customer, job_options: Mapping[str, JSONValue]) -> EnterpriseClient:
        """A new client with ``customer``'s credentials, for one job, which closes it."""
        return EnterpriseClient(
            **customer.client_options(),
            options=self.options.merged(job_options),
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
