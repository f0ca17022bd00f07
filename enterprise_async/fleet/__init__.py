"""What makes a fleet: processes that share one token, one rate budget and one export queue.

- ``RedisTokenCache``: one access token, and one refresh, for every process on the same Redis.
- ``RateLimiter`` / ``RateBudget``: a request budget (and a 429's pause) counted in this process or
  on Redis for a whole fleet.
- The export queue (``JobQueue``, ``export_via_queue``, ``export_customers_via_queue``) and its
  worker (``run_worker``), on arq; the queue needs the ``[redis]`` extra.

The queue and the worker are imported on first use, so that a client using only the rate budget
does not load the export engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._transport.rate_limit import RateBudget, budget_key, parse_rate_limit
from .._utils.lazy import lazy_names
from ._rate_limiter import RateLimiter
from ._redis import RedisPolicy, RedisUnavailableError
from ._token_cache import RedisTokenCache

if TYPE_CHECKING:
    from ._customer_queue import export_customers_via_queue
    from ._customers import Customer, CustomersFileError, read_customers
    from ._queue import JobQueue, NoWorkerError, QueueOptions, export_via_queue
    from ._worker import run_worker
    from ._worker_clients import WorkerClients

__all__ = [
    "Customer",
    "CustomersFileError",
    "JobQueue",
    "NoWorkerError",
    "QueueOptions",
    "RateBudget",
    "RateLimiter",
    "RedisPolicy",
    "RedisTokenCache",
    "RedisUnavailableError",
    "WorkerClients",
    "budget_key",
    "export_customers_via_queue",
    "export_via_queue",
    "parse_rate_limit",
    "read_customers",
    "run_worker",
]

_LAZY = {
    "Customer": "._customers",
    "CustomersFileError": "._customers",
    "read_customers": "._customers",
    "JobQueue": "._queue",
    "NoWorkerError": "._queue",
    "QueueOptions": "._queue",
    "export_via_queue": "._queue",
    "export_customers_via_queue": "._customer_queue",
    "WorkerClients": "._worker_clients",
    "run_worker": "._worker",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())
