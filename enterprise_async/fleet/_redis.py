"""Redis as a network service that fails: timeouts on every call, retries for a bounded window,
and one typed error after that.

Every connection the fleet opens (the queue's, the workers', the token cache's, the rate
budget's) is made here, with a connect timeout and a read timeout, so a Redis that is frozen
(``SIGSTOP``, a full network buffer) is noticed instead of awaited forever. A call that fails on
a connection error or a timeout is retried with exponential backoff and jitter until
``retry_window`` seconds have passed since its first failure; a restart shorter than that goes
unnoticed, and the first failure of an outage says (WARNING) that it waits, and for how long. A
Redis never reached (a wrong port, nothing listening) is not waited for that long: the first
contact gets ``FIRST_CONTACT_WINDOW`` seconds. After it, ``RedisUnavailableError`` (an
``APIConnectionError``) says which Redis did not answer, never its password.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Final, TypeVar
from urllib.parse import urlsplit

from attrs import frozen

from .._utils.optional import require_extra
from ..errors import APIConnectionError, ClientValidationError

__all__ = [
    "DEFAULT_REDIS_CONNECT_TIMEOUT",
    "DEFAULT_REDIS_READ_TIMEOUT",
    "DEFAULT_RETRY_WINDOW",
    "DEFAULT_FALLBACK_WINDOW",
    "RedisFallback",
    "RedisPolicy",
    "RedisUnavailableError",
    "check_redis_url",
    "connection_options",
    "redis_client",
    "redis_failures",
    "redis_location",
]

T = TypeVar("T")
logger = logging.getLogger("enterprise_async.fleet")

DEFAULT_RETRY_WINDOW: Final = 60.0
"""Seconds a Redis call is retried after its first failure before the fleet gives up on Redis."""
DEFAULT_REDIS_CONNECT_TIMEOUT: Final = 2.0
"""Seconds to open a connection to Redis."""
DEFAULT_REDIS_READ_TIMEOUT: Final = 5.0
"""Seconds Redis may take to answer one command (the fleet's commands are all quick)."""
FIRST_RETRY_DELAY: Final = 0.1
LONGEST_RETRY_DELAY: Final = 2.0
FIRST_CONTACT_WINDOW: Final = 2.0
"""Seconds a connection's calls are retried while its Redis has never answered: a wrong URL is
known at once, and a Redis still starting gets a moment."""
DEFAULT_FALLBACK_WINDOW: Final = 3.0
"""Seconds the token cache and the rate budget retry Redis before they do without it."""
DEFAULT_RECHECK: Final = 5.0
"""Seconds a token cache or rate budget doing without Redis waits before it tries Redis again."""
SCHEMES: Final = ("redis", "rediss", "unix")


class RedisUnavailableError(APIConnectionError):
    """Redis did not answer (refused, reset, timed out) for the whole retry window."""


@frozen
class RedisPolicy:
    """How long to wait for Redis: per connection, per answer, and in all before giving up."""

    retry_window: float = DEFAULT_RETRY_WINDOW
    connect_timeout: float = DEFAULT_REDIS_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_REDIS_READ_TIMEOUT

    def __attrs_post_init__(self) -> None:
        for name in ("retry_window", "connect_timeout", "read_timeout"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 < value < float("inf"):
                raise ClientValidationError(name, f"must be positive, finite seconds, not {value!r}")


def check_redis_url(url: Any, field: str = "queue") -> str:
    """``url`` if it names a Redis (``redis://``, ``rediss://``, ``unix://``); else a clear error."""
    if not isinstance(url, str):
        raise ClientValidationError(field, "must be a redis://host:port/db URL")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise ClientValidationError(field, f"not a Redis URL ({error})") from None
    if parts.scheme not in SCHEMES:
        raise ClientValidationError(field, "must be a redis://, rediss:// or unix:// URL")
    if parts.scheme != "unix" and not parts.hostname:
        raise ClientValidationError(field, "names no host: write it as redis://host:port/db")
    database = parts.path.lstrip("/")
    if parts.scheme != "unix" and database and not database.isdigit():
        raise ClientValidationError(field, f"the database must be a number, not {database!r}")
    del port
    return url


def redis_location(url: str) -> str:
    """Where a Redis is, for messages: host and port (or socket path), never a password."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return parts.path
    return f"{parts.hostname}:{parts.port or 6379}"


class _Contact:
    """What the connections of one client know of their Redis (shared by all of them: redis-py
    copies the retry into each connection, not this): whether it ever answered, and whether it is
    away now (so that an outage is announced once)."""

    def __init__(self, location: str | None) -> None:
        self.location = location
        self.reached = False
        self.away = False

    def answered(self) -> None:
        self.reached = True
        if self.away and self.location is not None:
            logger.warning("Redis at %s is back", self.location)
        self.away = False

    def window(self, policy: RedisPolicy, error: BaseException) -> float:
        """How long to retry a failing call: the policy's window once Redis answered (announced
        once per outage), a moment when it never did."""
        if not self.reached:
            return min(policy.retry_window, FIRST_CONTACT_WINDOW)
        if not self.away and self.location is not None:
            reason = " ".join(str(error).split()) or type(error).__name__
            logger.warning(
                "Redis at %s went away (%s); waiting up to %g s for it",
                self.location,
                reason,
                policy.retry_window,
            )
        self.away = True
        return policy.retry_window


def _window_retry(policy: RedisPolicy, location: str | None) -> Any:
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff
    from redis.exceptions import ConnectionError, TimeoutError

    contact = _Contact(location)

    class WindowRetry(Retry):
        """Retry for as long as the window lasts since a call's first failure, not a number of times."""

        async def call_with_retry(self, do: Callable[[], Awaitable[T]], fail: Callable[[Any], Any]) -> T:
            deadline: float | None = None
            delay = FIRST_RETRY_DELAY
            while True:
                try:
                    answer = await do()
                except self._supported_errors as error:
                    await fail(error)
                    deadline = deadline or time.monotonic() + contact.window(policy, error)
                    if time.monotonic() >= deadline:
                        raise
                    await _sleep(min(random.uniform(0, delay), max(0.0, deadline - time.monotonic())))
                    delay = min(delay * 2, LONGEST_RETRY_DELAY)
                else:
                    contact.answered()
                    return answer

    # redis-py retries its own ConnectionError and TimeoutError; a refused or timed-out connect
    # reaches the retry as the OS's error (OSError, asyncio's TimeoutError), so those are retried too.
    errors: Any = (
        ConnectionError,
        TimeoutError,
        OSError,
        asyncio.TimeoutError,
    )  # redis-py types only its own
    return WindowRetry(NoBackoff(), -1, errors)


async def _sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


def connection_options(policy: RedisPolicy, url: str | None = None) -> dict[str, Any]:
    """Keyword arguments of redis-py's clients and pools: the timeouts and the window's retry
    (which, given the ``url``, says on stderr when that Redis went away and how long it waits).
    Every Redis connection is made with them, so a missing ``[redis]`` extra is reported here."""
    require_extra("redis")
    from redis.exceptions import ConnectionError, TimeoutError

    return {
        "socket_connect_timeout": policy.connect_timeout,
        "socket_timeout": policy.read_timeout,
        "retry": _window_retry(policy, redis_location(url) if url is not None else None),
        "retry_on_error": [ConnectionError, TimeoutError],
    }


def redis_client(url: str, policy: RedisPolicy, **extra: Any) -> Any:
    """A ``redis.asyncio.Redis`` on ``url`` with the policy's timeouts and retries."""
    options = connection_options(policy)
    import redis.asyncio  # the [redis] extra

    return redis.asyncio.from_url(url, **options, **extra)  # type: ignore[no-untyped-call]


def redis_error(url: str, error: BaseException) -> RedisUnavailableError:
    """The typed error of a Redis that stayed away or refused (``error``: redis-py's, or an OS error)."""
    reason = " ".join(str(error).split()) or type(error).__name__
    if url in reason:
        reason = reason.replace(url, redis_location(url))
    what = "did not answer" if is_redis_failure(error) else "refused the call"
    return RedisUnavailableError(f"Redis at {redis_location(url)} {what}: {reason}")


class RedisFallback:
    """When a shared piece (token cache, rate budget) does without Redis: from a failure until
    ``recheck`` seconds later, it does not try Redis at all (no call waits for it); then it tries
    again. Going away and coming back are logged (WARNING), once each per outage."""

    def __init__(self, what: str, url: str, *, recheck: float = DEFAULT_RECHECK) -> None:
        self.what = what
        self.location = redis_location(url)
        self.recheck = recheck
        self._away_until = 0.0
        self._away = False
        self.outages = 0
        """Times Redis went away (for tests)."""

    @property
    def away(self) -> bool:
        """Whether to do without Redis now."""
        return self._away and time.monotonic() < self._away_until

    def failed(self, error: BaseException, instead: str) -> None:
        """Redis failed a call: do without it (``instead``) until the next look."""
        if not self._away:
            self.outages += 1
            logger.warning(
                "%s: Redis at %s is away (%s); %s until it is back",
                self.what,
                self.location,
                " ".join(str(error).split()) or type(error).__name__,
                instead,
            )
        self._away = True
        self._away_until = time.monotonic() + self.recheck

    def answered(self) -> None:
        """Redis answered a call: shared again."""
        if self._away:
            self._away = False
            logger.warning("%s: Redis at %s is back; shared again", self.what, self.location)


def is_redis_failure(error: BaseException) -> bool:
    """Whether ``error`` means Redis is away (refused, reset, timed out), as opposed to a bug."""
    from redis.exceptions import ConnectionError, TimeoutError

    return isinstance(error, (ConnectionError, TimeoutError, OSError))


@asynccontextmanager
async def redis_failures(url: str) -> AsyncIterator[None]:
    """Turn Redis being away into ``RedisUnavailableError`` (any other Redis error too, typed)."""
    from redis.exceptions import RedisError

    try:
        yield
    except RedisUnavailableError:
        raise
    except (RedisError, OSError) as error:
        raise redis_error(url, error) from None
