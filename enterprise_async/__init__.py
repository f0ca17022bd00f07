"""enterprise_async: an asynchronous SDK for the enterprise learning platform's REST API.

::

    from enterprise_async import EnterpriseClient

    async with EnterpriseClient.from_env() as client:
        async for policy in client.policies.list(customer_uuid):
            ...

Models live in ``enterprise_async.models``, errors in ``enterprise_async.errors`` (re-exported
here), the sandbox server in ``enterprise_async.testing``.
"""

from typing import TYPE_CHECKING

from . import models
from ._bulk.chunks import BulkProgress, BulkResult, ChunkOutcome, bulk_progress
from ._client.raw_response import APIResponse, RawPager
from ._decoding.drift import DriftEntry, DriftReport
from ._generated.client import EnterpriseClient
from ._paging import AsyncPager, Page
from ._paging.cursor import ListingCursor
from ._request.options import RequestTrace, current_trace
from ._request.retry import RetryPolicy
from ._request.timeouts import Timeout
from ._response.responses import RawResponse
from ._transport.auth import CachedToken, InMemoryTokenCache, TokenCache
from ._transport.middleware import Middleware, OutgoingRequest, Send
from ._transport.rate_limit import InMemoryRateStore, RateStore
from ._transport.transport import RequestStats
from ._utils.lazy import lazy_names
from ._utils.logs import configure_logging_from_env
from ._version import __version__
from .errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ClientStateError,
    ClientValidationError,
    ContentMismatchError,
    EnterpriseError,
    IncompleteBulkError,
    IncompleteListingError,
    JobResultsDownloadError,
    JobResultsUnavailableError,
    ListingCursorError,
    ListingMovedError,
    NotFoundError,
    PermissionDeniedError,
    ProxyAuthenticationError,
    RateLimitError,
    RequestLimitError,
    ResponseDecodeError,
    ResponseTooLargeError,
    ServerError,
    UnprocessableEntityError,
)

if TYPE_CHECKING:
    from .fleet import RateLimiter, RedisTokenCache

__all__ = [
    "APIResponse",
    "Middleware",
    "OutgoingRequest",
    "RawResponse",
    "RetryPolicy",
    "Send",
    "Timeout",
    "RawPager",
    "RequestTrace",
    "current_trace",
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncPager",
    "AuthenticationError",
    "BadRequestError",
    "BulkProgress",
    "BulkResult",
    "CachedToken",
    "ChunkOutcome",
    "ClientStateError",
    "ClientValidationError",
    "ContentMismatchError",
    "DriftEntry",
    "DriftReport",
    "EnterpriseClient",
    "EnterpriseError",
    "InMemoryRateStore",
    "InMemoryTokenCache",
    "IncompleteBulkError",
    "IncompleteListingError",
    "JobResultsDownloadError",
    "JobResultsUnavailableError",
    "ListingCursor",
    "ListingCursorError",
    "ListingMovedError",
    "NotFoundError",
    "Page",
    "PermissionDeniedError",
    "ProxyAuthenticationError",
    "RateLimitError",
    "RateLimiter",
    "RateStore",
    "RedisTokenCache",
    "RequestLimitError",
    "RequestStats",
    "ResponseDecodeError",
    "ResponseTooLargeError",
    "ServerError",
    "TokenCache",
    "UnprocessableEntityError",
    "__version__",
    "bulk_progress",
    "models",
]

_LAZY = {"RateLimiter": ".fleet", "RedisTokenCache": ".fleet"}
"""The fleet's pieces, imported on first use: a client of one process never loads them."""

__getattr__ = lazy_names(__name__, _LAZY, globals())

configure_logging_from_env()  # ENTERPRISE_LOG=info|debug
