"""enterprise_async: an asynchronous SDK for the enterprise learning platform's REST API.

::

    from enterprise_async import EnterpriseClient

    async with EnterpriseClient.from_env() as client:
        async for policy in client.policies.list(customer_uuid):
            ...

Models live in ``enterprise_async.models``, errors in ``enterprise_async.errors`` (re-exported
here), the sandbox server in ``enterprise_async.testing``.
"""

from . import models
from ._auth import CachedToken, InMemoryTokenCache, TokenCache
from ._generated.client import EnterpriseClient
from ._options import RequestTrace, current_trace
from ._pagination import AsyncPager, Page
from ._rate_limit import RateLimiter
from ._raw_response import APIResponse, RawPager
from ._transport import RequestStats
from ._version import __version__
from .errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ClientValidationError,
    EnterpriseError,
    IncompleteListingError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ResponseDecodeError,
    ServerError,
    UnprocessableEntityError,
)
from .fleet import RedisTokenCache

__all__ = [
    "APIResponse",
    "RawPager",
    "RequestTrace",
    "current_trace",
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncPager",
    "AuthenticationError",
    "BadRequestError",
    "CachedToken",
    "ClientValidationError",
    "EnterpriseClient",
    "EnterpriseError",
    "InMemoryTokenCache",
    "IncompleteListingError",
    "NotFoundError",
    "Page",
    "PermissionDeniedError",
    "RateLimitError",
    "RateLimiter",
    "RedisTokenCache",
    "RequestStats",
    "ResponseDecodeError",
    "ServerError",
    "TokenCache",
    "UnprocessableEntityError",
    "__version__",
    "models",
]
