"""The checks of a client's settings, made when the client is made, and the parts a new client
makes of them.

Each bad setting raises a ``ClientValidationError`` that names it, in ``EnterpriseClient(...)``
rather than at the first call; a password in a URL refused is not shown. ``BaseClient`` runs them
and keeps what they return; ``settings_from_env`` reads the same settings from the environment.
``client_parts`` makes what a client holds and its views share.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import aiohttp
from typing_extensions import TypedDict
from yarl import URL

from .._decoding.drift import DriftCollector
from .._request.options import ClientOptions, Concurrency, ResponseFormat
from .._request.retry import RetryPolicy
from .._request.timeouts import Timeout
from .._spec import ApiSpec
from .._transport.auth import Secret, TokenCache
from .._transport.middleware import Middleware
from .._transport.rate_limit import (
    InMemoryRateStore,
    RateBudget,
    RateLimit,
    RateStore,
    budget_key,
    parse_rate_limit,
)
from .._transport.session import SessionHandle
from .._transport.transport import Link
from .._utils.redaction import Redactor, redact_url
from ..errors import ClientValidationError

__all__ = [
    "ENVIRONMENT",
    "ClientSettings",
    "check_base_url",
    "chosen_options",
    "client_parts",
    "password_of",
    "rate_budget",
    "require_instance",
    "require_text",
    "settings_from_env",
    "trust_env_setting",
]

ENVIRONMENT = {
    "client_id": "ENTERPRISE_CLIENT_ID",
    "client_secret": "ENTERPRISE_CLIENT_SECRET",
    "base_url": "ENTERPRISE_BASE_URL",
    "auth_url": "ENTERPRISE_AUTH_URL",
}
"""The environment variable of each setting ``from_env`` reads."""


class ClientSettings(TypedDict, total=False):
    """The keyword arguments of ``EnterpriseClient(...)``, each optional: what ``from_env`` takes
    over the environment's, so that a misspelt or mistyped one fails ``mypy --strict`` rather than
    the call (tests/client/test_typed_surface.py holds it equal to the constructor)."""

    client_id: str
    client_secret: str
    base_url: str
    auth_url: str | None
    response_format: ResponseFormat
    max_concurrency: Concurrency
    max_retries: int
    timeout: float | Timeout
    retry: RetryPolicy | None
    concurrency_bounds: tuple[int, int]
    session: aiohttp.ClientSession | None
    token_cache: TokenCache | None
    rate_limit: str | RateLimit | None
    rate_limiter: RateStore | None
    max_response_bytes: int
    options: ClientOptions | None
    proxy: str | None
    trust_env: bool | None
    middleware: Sequence[Middleware] | None


def settings_from_env(overrides: ClientSettings) -> dict[str, Any]:
    """The settings the environment gives (``ENVIRONMENT``), ``overrides`` over them; a typed error
    names a required one that neither sets."""
    settings: dict[str, Any] = {
        name: os.environ[variable] for name, variable in ENVIRONMENT.items() if os.environ.get(variable)
    }
    settings.update(overrides)
    for name in ("client_id", "client_secret", "base_url"):
        if not settings.get(name):
            raise ClientValidationError(name, f"is not set: export {ENVIRONMENT[name]} or pass {name}=")
    return settings


def check_base_url(name: str, value: Any, *, credentials: bool = True) -> URL:
    """An absolute http(s) URL without query or fragment (nor, unless ``credentials``, a user or
    password); a typed error names anything else."""
    if not isinstance(value, str) or not value.strip():
        raise ClientValidationError(name, "must be an absolute http(s) URL")
    try:
        url = URL(value.strip())
    except ValueError:
        raise _not_a_url(name, value) from None
    if url.scheme not in ("http", "https") or not url.host:
        raise _not_a_url(name, value)
    if url.query_string or url.fragment:
        raise ClientValidationError(name, "may not carry a query or fragment")
    if not credentials and (url.user is not None or url.password is not None):
        raise ClientValidationError(
            name, "may not carry a user or password: the API's requests carry the token instead"
        )
    return url


def _not_a_url(name: str, value: str) -> ClientValidationError:
    """The error for a URL refused; a password in it is not shown."""
    return ClientValidationError(name, f"must be an absolute http(s) URL, got {redact_url(value)!r}")


def chosen_options(options: ClientOptions | None, separate: ClientOptions) -> ClientOptions:
    """``options`` when given (the separate settings then left at their defaults), else ``separate``."""
    if options is None:
        return separate
    if not isinstance(options, ClientOptions):
        raise ClientValidationError("options", f"must be a ClientOptions, got {type(options).__name__}")
    if separate != ClientOptions():
        raise ClientValidationError(
            "options",
            "give either options= or response_format/max_concurrency/concurrency_bounds/max_retries/timeout/"
            "max_response_bytes",
        )
    return options


def trust_env_setting(value: object, session: aiohttp.ClientSession | None) -> bool:
    """Whether the client's own session reads the proxy variables: yes unless told otherwise; a
    caller's session has its own setting, which this one cannot change."""
    if value is None:
        return True
    if not isinstance(value, bool):
        raise ClientValidationError("trust_env", f"must be True or False, got {value!r}")
    if session is not None:
        raise ClientValidationError(
            "trust_env",
            "applies to the client's own session; give your aiohttp.ClientSession trust_env= instead",
        )
    return value


def password_of(url: str | None) -> str:
    """The password in a URL (a proxy's), for the redactor; empty when there is none."""
    return (URL(url).password or "") if url else ""


def rate_budget(
    client_id: str, rate_limit: str | RateLimit | None, store: RateStore | None
) -> RateBudget | None:
    """The client's budget: its limits on the given store (or one of its own, in memory)."""
    if rate_limit is None and store is None:
        return None
    require_instance("rate_limiter", store, RateStore, "a RateLimiter (or another RateStore)")
    budget = parse_rate_limit(rate_limit) if rate_limit is not None else None
    return RateBudget(store or InMemoryRateStore(), budget, key=budget_key(client_id))


def require_instance(name: str, value: object, kind: type[Any], described: str) -> None:
    """None (the default) or an instance of ``kind``; a typed error names anything else now, not
    at the first call."""
    if value is not None and not isinstance(value, kind):
        raise ClientValidationError(name, f"must be {described}, got {type(value).__name__}")


def require_text(name: str, value: Any) -> None:
    """A non-empty string (an id, a secret); a typed error names anything else."""
    if not isinstance(value, str) or not value.strip():
        raise ClientValidationError(name, "must be a non-empty string")


def client_parts(
    spec: ApiSpec,
    options: ClientOptions,
    *,
    client_id: str,
    client_secret: str,
    base_url: URL,
    auth_url: URL,
    session: aiohttp.ClientSession | None,
    token_cache: TokenCache | None,
    rate_limit: str | RateLimit | None,
    rate_limiter: RateStore | None,
    proxy: str | None,
    trust_env: bool,
) -> tuple[DriftCollector, SessionHandle, Link]:
    """What a new client holds, and its views (``with_options``) share: its drift report, its
    session and its ``Link`` (token, rate budget, statistics, the bound on requests in flight).
    Its secrets (the client's, and the passwords of its URLs and proxy) are hidden from all they say.
    """
    redactor = Redactor([client_secret, base_url.password or "", auth_url.password or "", password_of(proxy)])
    handle = SessionHandle(session)
    link = Link(
        handle.get,
        options=options,
        spec=spec,
        client_id=client_id,
        secret=Secret(client_secret),
        auth_url=auth_url,
        token_cache=token_cache,
        budget=rate_budget(client_id, rate_limit, rate_limiter),
        redactor=redactor,
        proxy=proxy,
        proxy_from_environment=trust_env,
    )
    return DriftCollector(redactor), handle, link
