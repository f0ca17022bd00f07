"""Every error the SDK raises, in one tree.

::

    EnterpriseError
    ├── ClientValidationError (also a ValueError): bad input, raised before any request is sent
    ├── ClientStateError (also a RuntimeError): a closed client, or one used from another event loop
    ├── APIConnectionError
    │   └── APITimeoutError
    ├── ResponseDecodeError: a body that cannot be read as the promised type
    │   ├── ContentMismatchError: a lookup by key answered another item (.received, .expected)
    │   └── ResponseTooLargeError: a body larger than ``max_response_bytes`` once inflated
    ├── IncompleteListingError: a listing that ended short of what it promised (.page, .items)
    ├── IncompleteBulkError: a bulk call cut into chunks in which a chunk failed (.chunk, .result)
    ├── JobResultsUnavailableError: a job gave no readable results link in time (.job, .links)
    ├── JobResultsDownloadError: the storage host refused a job's results file (.status)
    └── APIStatusError (.status, .body, .headers)
        ├── BadRequestError 400
        │   └── RequestLimitError: more than the service's own limit a request (.limit, .setting)
        ├── AuthenticationError 401   (after one token refresh and retry)
        ├── PermissionDeniedError 403
        ├── NotFoundError 404
        ├── ProxyAuthenticationError 407  (the proxy refused, not the API)
        ├── UnprocessableEntityError 422  (message: the service's own reason)
        ├── RateLimitError 429        (.retry_after)
        └── ServerError 5xx

Messages name the operation, the method and the whole URL the request went to (without its user,
password and query), the status and the server's own words (``user_message``, ``detail``,
``non_field_errors``, field errors, a bare string or list); they never carry the client secret, a
token or a URL's password, in any encoding (``enterprise_async._utils.redaction``), and neither do
an error's ``body``, ``headers`` and ``request_id``. A status that means "nothing was done, try
later" (429, and 423 on license assignment) is raised only once the retries are spent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing_extensions import Required, TypedDict, Unpack

from ._utils.json_types import JSONValue

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ClientStateError",
    "ClientValidationError",
    "ContentMismatchError",
    "EnterpriseError",
    "IncompleteBulkError",
    "IncompleteListingError",
    "JobResultsDownloadError",
    "JobResultsUnavailableError",
    "ListingCursorError",
    "ListingMovedError",
    "NotFoundError",
    "PermissionDeniedError",
    "ProxyAuthenticationError",
    "RateLimitError",
    "RequestLimitError",
    "ResponseDecodeError",
    "ResponseTooLargeError",
    "UnprocessableEntityError",
    "ServerError",
    "status_error_class",
]


class EnterpriseError(Exception):
    """Base of every error raised by enterprise_async.

    ``request_id`` is the id the failed request was sent with (``X-Request-ID``: a fresh UUID per
    call, the same on its retries, or the caller's own value), which the services log; the message
    ends with it. None when nothing was sent (a bad argument) or no one request failed.
    """

    request_id: str | None = None


def _with_request_id(message: str, request_id: str | None) -> str:
    """``message`` ending with the request id, so that support can find the call from a log line."""
    return f"{message} (request id {request_id})" if request_id else message


class ClientValidationError(EnterpriseError, ValueError):
    """An argument breaks a rule of the API; raised before anything is sent.

    ``field`` names the offending argument as a path (``learner_emails[2]``, ``filters[0].status_in``).
    """

    def __init__(self, field: str, message: str, *, operation: str | None = None) -> None:
        self.field = field
        self.operation = operation
        self.reason = message
        prefix = f"{operation}: " if operation else ""
        super().__init__(f"{prefix}{field}: {message}")


class ListingCursorError(ClientValidationError):
    """A listing cursor that cannot be used here: not a cursor (unreadable text), or a position in
    another listing (another operation, or the same one called with other arguments or page size).
    Raised before anything is sent."""

    def __init__(self, message: str, *, operation: str | None = None) -> None:
        super().__init__("cursor", message, operation=operation)


class ClientStateError(EnterpriseError, RuntimeError):
    """The client cannot make calls in its state: it (or the client a view belongs to) is closed, or
    it is used from an event loop other than the one it started on (its connections belong there)."""


class APIConnectionError(EnterpriseError):
    """The request did not get an HTTP response (refused, reset, DNS, TLS...)."""

    def __init__(
        self,
        message: str,
        *,
        method: str | None = None,
        path: str | None = None,
        request_id: str | None = None,
    ) -> None:
        self.method = method
        self.path = path
        self.request_id = request_id
        super().__init__(_with_request_id(message, request_id))


class APITimeoutError(APIConnectionError):
    """No complete response arrived within the client's timeout."""


class ResponseDecodeError(EnterpriseError):
    """A response body could not be read as the model the API promises.

    ``status`` is the HTTP status of the response when there was one, ``body`` the raw text (cut short).
    Where an item of a list breaks a promise of the spec (a required field left out), ``item`` is its
    index in that list and ``items`` the items before it, decoded.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        body: str | None = None,
        request_id: str | None = None,
        item: int | None = None,
        items: list[object] | None = None,
    ) -> None:
        self.status = status
        self.body = body
        self.request_id = request_id
        self.item = item
        self.items: list[object] = list(items or ())
        super().__init__(_with_request_id(message, request_id))


class ContentMismatchError(ResponseDecodeError):
    """A lookup by key answered another item than the one asked for: enterprise-catalog answers a
    course run's key with the run's course. Nothing is returned as what it is not.

    ``received`` is the answer decoded as what it is (a ``Course``), ``expected`` the key and the
    content types asked for (``{"key": "course-v1:...", "content_type": "courserun"}``).
    """

    def __init__(
        self,
        message: str,
        *,
        received: object,
        expected: Mapping[str, str],
        status: int | None = None,
        body: str | None = None,
        request_id: str | None = None,
    ) -> None:
        self.received = received
        self.expected = dict(expected)
        super().__init__(message, status=status, body=body, request_id=request_id)


class ResponseTooLargeError(ResponseDecodeError):
    """An answer grew past the client's ``max_response_bytes`` (counted after decompression, so a
    gzip bomb stops there); nothing of it is kept (``body`` is None). ``limit`` is that bound."""

    def __init__(self, message: str, *, status: int | None = None, limit: int) -> None:
        self.limit = limit
        super().__init__(message, status=status, body=None)


class IncompleteBulkError(EnterpriseError):
    """A bulk call cut into chunks (``..._in_chunks``) in which a chunk failed, or raised anything
    else (a user's middleware's own exception).

    Nothing is hidden: ``result`` is the merged ``BulkResult``, whose chunks say which succeeded
    (with their results), which failed (with their errors), which may have been applied (an
    exception not the SDK's: nothing says whether the chunk reached the service) and which were
    never sent (none is sent after a failure). ``chunk`` is the number of the first chunk that
    failed (from 1); its error is the ``__cause__``. A cancellation is not turned into this error:
    ``bulk_progress()`` tells what a cancelled call did.
    """

    def __init__(self, message: str, *, result: Any, chunk: int) -> None:
        self.result = result
        self.chunk = chunk
        super().__init__(message)


class JobResultsUnavailableError(EnterpriseError):
    """A job's results file could not be had within the time given: the job's status never gave
    a link (``links == 0``: the job has not finished, or the service has no results storage
    configured and never will), or every link it gave had expired by the time it was read."""

    def __init__(self, message: str, *, job: str, links: int) -> None:
        self.job = job
        self.links = links
        super().__init__(message)


class JobResultsDownloadError(EnterpriseError):
    """The storage host that holds a job's results file answered with an error other than an
    expired link (``status``); the message names the host, never the link's signature."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class ListingMovedError(EnterpriseError):
    """A resumed listing whose position cannot be found again: the page the cursor names, read again,
    no longer holds the last item given (items before it were removed or inserted past what a page
    shows, or the service pages by another size). Raised before any item is given, rather than
    losing or repeating items. ``changed`` says what changed, ``page`` is the page read again."""

    def __init__(self, message: str, *, page: int, changed: str) -> None:
        self.page = page
        self.changed = changed
        super().__init__(message)


class IncompleteListingError(EnterpriseError):
    """A listing stopped before it had everything: a page after the first failed (past its retries),
    or the listing ended short of the count or page count its envelopes promised.

    Nothing received is dropped. ``page`` is the page that failed, or the page that should have
    followed the last one when the listing ended early (pages are numbered from 1 in listing order).
    ``items`` holds the items received that the caller was not given: from ``to_list()``, every item
    received; while iterating, the items of the pages fetched ahead of the failed one.
    ``item_pages`` numbers the pages whose items are in ``items``. ``received`` counts every item
    received (given and held), ``expected_items`` and ``expected_pages`` are what the latest envelope
    promised (None when it did not say). The failure itself, if one, is the ``__cause__``.

    When the page failed because one of its items broke a promise of the spec (a required field
    left out: a ``ResponseDecodeError``), ``item`` is that item's index in the page, and ``items``
    begins with the items of the page before it.
    """

    def __init__(
        self,
        message: str,
        *,
        page: int,
        items: list[object] | None = None,
        item_pages: tuple[int, ...] = (),
        received: int = 0,
        expected_items: int | None = None,
        expected_pages: int | None = None,
        item: int | None = None,
    ) -> None:
        self.page = page
        self.item = item
        self.items: list[object] = list(items or ())
        self.item_pages = item_pages
        self.received = received
        self.expected_items = expected_items
        self.expected_pages = expected_pages
        super().__init__(message)


class APIStatusError(EnterpriseError):
    """The server answered with a status the operation does not treat as success.

    ``body`` is the decoded error body (a dict, list, string, or None when empty), ``headers`` the
    response headers, ``result`` the decoded result where the operation documents one for this status.
    ``request_id`` is the id the request was sent with (the message ends with it);
    ``response_request_id`` the id the answer gave itself (the gateway's ``x-amzn-RequestId``...),
    when it named one.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int,
        body: JSONValue = None,
        headers: Mapping[str, str] | None = None,
        result: object = None,
        method: str | None = None,
        path: str | None = None,
        request_id: str | None = None,
        response_request_id: str | None = None,
    ) -> None:
        self.status = status
        self.request_id = request_id
        self.response_request_id = response_request_id
        self.body = body
        self.headers: Mapping[str, str] = dict(headers or {})
        self.result = result
        self.method = method
        self.path = path
        super().__init__(_with_request_id(message, request_id))


class StatusErrorArguments(TypedDict, total=False):
    """The keywords of ``APIStatusError(...)``, which its subclasses with keywords of their own pass on."""

    status: Required[int]
    body: JSONValue
    headers: Mapping[str, str] | None
    result: object
    method: str | None
    path: str | None
    request_id: str | None
    response_request_id: str | None


class BadRequestError(APIStatusError):
    """400: the server rejected the request's data."""


class RequestLimitError(BadRequestError):
    """400 for a request over the service's own limit (``x-sdk-limit-refusal`` in the spec):
    ``limit`` is the most the service takes in one request by default, ``setting`` the service's
    name for it (a deployment may set it otherwise). Send smaller requests (``..._in_chunks``)."""

    def __init__(
        self, message: str, *, limit: int, setting: str | None = None, **kwargs: Unpack[StatusErrorArguments]
    ) -> None:
        self.limit = limit
        self.setting = setting
        super().__init__(message, **kwargs)


class AuthenticationError(APIStatusError):
    """401 after one token refresh and retry, or a failure of the token endpoint."""


class PermissionDeniedError(APIStatusError):
    """403: the credentials may not do this."""


class NotFoundError(APIStatusError):
    """404: no such resource (for bulk revoke, ``result`` holds the decoded revocation result)."""


class ProxyAuthenticationError(APIStatusError):
    """407: the proxy between the client and the API refused the request, so it never reached the
    API. Give the proxy its credentials in the URL (``proxy="http://user:password@host:port"``, or
    ``HTTP_PROXY``/``HTTPS_PROXY``); nothing is retried, and the API's status is unknown."""


class UnprocessableEntityError(APIStatusError):
    """422: the service understood the request and refused it (an allocation beyond the policy's
    funds, assignments that cannot be reminded or cancelled); the message carries its reason."""


class RateLimitError(APIStatusError):
    """429: too many requests. ``retry_after`` is the server's advice in seconds, if it gave one."""

    def __init__(
        self, message: str, *, retry_after: float | None = None, **kwargs: Unpack[StatusErrorArguments]
    ) -> None:
        self.retry_after = retry_after
        super().__init__(message, **kwargs)


class ServerError(APIStatusError):
    """5xx: the server failed."""


_BY_STATUS: Mapping[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    407: ProxyAuthenticationError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def status_error_class(status: int) -> type[APIStatusError]:
    """The error class for an HTTP status."""
    if status >= 500:
        return ServerError
    return _BY_STATUS.get(status, APIStatusError)
