"""enterprise_async: an asynchronous SDK for the enterprise learning platform's REST API.

::

    from enterprise_async import EnterpriseClient

    async with EnterpriseClient.from_env() as client:
        async for policy in client.policies.list(customer_uuid):
            ...

Models live in ``enterprise_async.models``, errors in ``enterprise_async.errors`` (re-exported
here), the sandbox server in ``enterprise_async.testing``.
"""

import importlib
from typing import TYPE_CHECKING, Any

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
    from . import models
    from ._bulk.chunks import BulkProgress, BulkResult, ChunkOutcome, bulk_progress
    from ._client.raw_response import APIResponse, RawPager
    from ._client.settings import ClientSettings
    from ._decoding.drift import DriftEntry, DriftReport
    from ._generated.client import EnterpriseClient
    from ._paging import AsyncPager, Page
    from ._paging.cursor import ListingCursor
    from ._request.options import RequestTrace, current_trace
    from ._request.retry import RetryPolicy
    from ._request.timeouts import Timeout
    from ._response.item_reading import ListingPage, UnreadableItem
    from ._response.responses import RawResponse
    from ._transport.auth import CachedToken, InMemoryTokenCache, TokenCache
    from ._transport.middleware import Middleware, OutgoingRequest, Send
    from ._transport.rate_limit import InMemoryRateStore, RateLimit, RateStore
    from ._transport.transport import RequestStats
    from ._utils.json_types import JSONValue
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
    "ClientSettings",
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
    "JSONValue",
    "JobResultsDownloadError",
    "JobResultsUnavailableError",
    "ListingCursor",
    "ListingCursorError",
    "ListingMovedError",
    "ListingPage",
    "NotFoundError",
    "Page",
    "PermissionDeniedError",
    "ProxyAuthenticationError",
    "RateLimit",
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
    "UnreadableItem",
    "__version__",
    "bulk_progress",
    "models",
]

_LAZY = {
    "BulkProgress": "._bulk.chunks",
    "BulkResult": "._bulk.chunks",
    "ChunkOutcome": "._bulk.chunks",
    "bulk_progress": "._bulk.chunks",
    "APIResponse": "._client.raw_response",
    "RawPager": "._client.raw_response",
    "ClientSettings": "._client.settings",
    "DriftEntry": "._decoding.drift",
    "DriftReport": "._decoding.drift",
    "EnterpriseClient": "._generated.client",
    "AsyncPager": "._paging",
    "Page": "._paging",
    "ListingCursor": "._paging.cursor",
    "ListingPage": "._response.item_reading",
    "UnreadableItem": "._response.item_reading",
    "RequestTrace": "._request.options",
    "current_trace": "._request.options",
    "RetryPolicy": "._request.retry",
    "Timeout": "._request.timeouts",
    "RawResponse": "._response.responses",
    "CachedToken": "._transport.auth",
    "InMemoryTokenCache": "._transport.auth",
    "TokenCache": "._transport.auth",
    "Middleware": "._transport.middleware",
    "OutgoingRequest": "._transport.middleware",
    "Send": "._transport.middleware",
    "InMemoryRateStore": "._transport.rate_limit",
    "RateLimit": "._transport.rate_limit",
    "RateStore": "._transport.rate_limit",
    "RequestStats": "._transport.transport",
    "JSONValue": "._utils.json_types",
    "RateLimiter": ".fleet",
    "RedisTokenCache": ".fleet",
}
"""Every name but the errors and the version, imported on first use: importing the package (as
``enterprise-async --help`` does) loads no model, and a client of one process never loads the
fleet's pieces."""

_attribute = lazy_names(__name__, _LAZY, globals())


def __getattr__(name: str) -> Any:
    if name == "models":
        return importlib.import_module(".models", __name__)
    return _attribute(name)


def __dir__() -> list[str]:
    """The names a user may import: ``__all__``, nothing of the package's own plumbing."""
    return sorted(__all__)


configure_logging_from_env()  # ENTERPRISE_LOG=info|debug
