"""Turn an operation and a call's arguments into the HTTP request the transport sends.

``prepare_request`` checks the arguments (``validation``) and makes the operation's own path, query
and body: path parameters are percent-encoded into the path; query parameters follow the spec's
style (``explode: false`` arrays as one comma-separated value, booleans as ``true``/``false``); the
body is JSON; arguments left as None are not sent at all. ``build_request`` completes it into an
``HTTPRequest``: the URL under ``base_url``, the headers every request carries (the format asked
for, the user agent, the client's and the call's own), the call's extra query and body merged over
the method's own (``merge_query``), its request id, and its timeout and retry policy. What every
request of a client shares (``RequestDefaults``) is worked out once, when the client is made.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from random import getrandbits
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import orjson
from attrs import define, frozen
from yarl import URL

from .._spec import Operation
from .._utils.constants import USER_AGENT
from .._utils.redaction import shown_url
from ..errors import ClientValidationError
from .options import ClientOptions, RequestOptions
from .retry import RetryPolicy
from .timeouts import Timeout
from .validation import query_pairs, query_value, validate_arguments

if TYPE_CHECKING:
    from .._decoding import Conversion

__all__ = [
    "ACCEPT",
    "HTTPRequest",
    "PreparedRequest",
    "Query",
    "RequestDefaults",
    "build_request",
    "call_label",
    "fresh_request_id",
    "merge_query",
    "prepare_request",
]

Query = tuple[tuple[str, str], ...]

# RFC 3986 pchar: course keys such as ``course-v1:Org+Num+Run`` travel as they are; "/" does not.
_PATH_SAFE = "!$&'()*+,;=:@"

ACCEPT = {"json": "application/json", "xml": "application/xml"}
"""The ``Accept`` header of each response format."""
URLS_KEPT = 256
"""Request URLs kept for reuse (``_url``)."""
_UUID4_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))
"""A UUID's version and variant bits, cleared..."""
_UUID4_SET = (0x4000 << 64) | (0x8000 << 48)
"""...and set to those of a random UUID (version 4, RFC 4122 variant)."""


@frozen
class PreparedRequest:
    """Everything needed to send one request of an operation; ``path`` is relative to ``base_url``."""

    operation: Operation[Any]
    path: str
    query: Query = ()
    body: bytes | None = None

    @property
    def method(self) -> str:
        return self.operation.method

    def with_query(self, query: Query) -> PreparedRequest:
        """The same request with another query (used by the pager for later pages)."""
        if query is self.query:
            return self
        return PreparedRequest(self.operation, self.path, query, self.body)


@define
class HTTPRequest:
    """One request as it goes on the wire. ``path`` (without host or query) is what logs and errors show.

    Never changed once built; not frozen, as a frozen attrs class sets each field through
    ``object.__setattr__``, and one is built for every request.
    """

    method: str
    url: URL
    path: str
    headers: Mapping[str, str]
    body: bytes | None = None
    idempotent: bool = False
    authenticated: bool = True
    retry_statuses: frozenset[int] = frozenset()
    """Statuses after which nothing was done, so a retry is safe whatever the method."""
    timeout: Timeout | None = None
    """Limits for this request alone (a call's ``timeout=``); None keeps the transport's."""
    retry: RetryPolicy | None = None
    """The retry policy of this request alone (a call's ``retry=``); None keeps the transport's."""
    operation: str = ""
    """The operation's name, for traces and log records."""
    page: int | None = None
    """The page number of a listing's page, for traces and log records."""
    request_id: str | None = None
    """The id the request is sent with (also in ``headers``), the same on each of its retries."""
    parent_span: Any = None
    """The OpenTelemetry span its attempts' spans go under, when not the current one (a listing's)."""

    @property
    def label(self) -> str:
        """What the user called, as errors name it: ``catalogs.contents page 10``."""
        return call_label(self.operation, self.page)

    @property
    def where(self) -> str:
        """The method and the whole URL, as errors name them (``GET https://host/api/...``): no user,
        password, query or fragment (``shown_url``)."""
        return f"{self.method} {shown_url(self.url)}"


@frozen
class RequestDefaults:
    """What every request of a client (or view) carries, worked out once from its options: the
    base URL, the headers (``Accept`` for the response format, the user agent, the client's own),
    the spec's request-id header and, when the client's own headers already set it, its value."""

    base: str
    headers: Mapping[str, str]
    request_id_header: str | None
    request_id: str | None

    @classmethod
    def of(cls, settings: ClientOptions, base_url: object, request_id_header: str | None) -> RequestDefaults:
        """The defaults of a client with these settings, its base URL and its spec's request-id header."""
        headers = {"Accept": ACCEPT[settings.response_format], "User-Agent": USER_AGENT, **settings.headers}
        given = _header_value(headers, request_id_header) if request_id_header is not None else None
        return cls(str(base_url).rstrip("/"), headers, request_id_header, given)


def call_label(operation: str, page: int | None = None) -> str:
    """An operation (and the page of a listing), as messages name what the user called:
    ``catalogs.contents page 10``, ``policies.allocate``."""
    return operation if page is None else f"{operation} page {page}"


def prepare_request(
    operation: Operation[Any], arguments: Mapping[str, Any], conversion: Conversion
) -> PreparedRequest:
    """Validate ``arguments`` and build the request (a model in the body written by ``conversion``);
    raises ``ClientValidationError`` before sending."""
    body = validate_arguments(operation, arguments, conversion)
    path_values: dict[str, str] = {}
    query: list[tuple[str, str]] = []
    for param in operation.params:  # one pass: every call of every operation goes through here
        if param.location == "path":
            path_values[param.name] = quote(query_value(arguments[param.name]), safe=_PATH_SAFE)
        elif param.location == "query" and (value := arguments.get(param.name)) is not None:
            query.extend(query_pairs(param, value))
    pagination = operation.pagination
    if query and pagination is not None and pagination.size_param is not None:
        aliases, size_param = pagination.size_aliases, pagination.size_param
        query = [(size_param if name in aliases else name, value) for name, value in query]
    return PreparedRequest(
        operation,
        operation.path.format_map(path_values) if path_values else operation.path,
        tuple(query),
        orjson.dumps(body) if operation.body is not None else None,
    )


def merge_query(base: Sequence[tuple[str, str]], overrides: Mapping[str, str | None] | None) -> Query:
    """``base`` with the parameters named in ``overrides`` set to their value where they first
    stand (None removes them; a repeated parameter becomes one), the others appended, order kept."""
    if not overrides:
        return tuple(base)
    merged: list[tuple[str, str]] = []
    placed: set[str] = set()
    for name, value in base:
        if name not in overrides:
            merged.append((name, value))
        elif name not in placed:
            placed.add(name)
            if (override := overrides[name]) is not None:
                merged.append((name, override))
    merged.extend(
        (name, value) for name, value in overrides.items() if name not in placed and value is not None
    )
    return tuple(merged)


def build_request(
    prepared: PreparedRequest,
    options: RequestOptions | None,
    defaults: RequestDefaults,
    *,
    page: int | None = None,
    parent_span: Any = None,
) -> HTTPRequest:
    """The request of a prepared call, with the client's ``defaults`` and the call's ``options``;
    it goes with a fresh request id unless the caller gave one of its own (the client's headers,
    a view's, or the call's ``extra_headers``: any case)."""
    headers = dict(defaults.headers)
    operation = prepared.operation
    body, query, request_id = prepared.body, prepared.query, defaults.request_id
    timeout = retry = None
    if options is not None:
        if options.extra_headers:
            headers.update(options.extra_headers)
            if defaults.request_id_header is not None:
                request_id = _header_value(headers, defaults.request_id_header)
        body = _with_extra_body(operation.method, body, options.extra_body)
        if options.extra_query:
            query = merge_query(query, options.extra_query)
        timeout, retry = options.timeout, options.retry
    if body is not None:
        headers["Content-Type"] = "application/json"
    if request_id is None and defaults.request_id_header is not None:
        request_id = headers[defaults.request_id_header] = fresh_request_id()
    return HTTPRequest(
        method=operation.method,
        url=_url(defaults.base, prepared.path, query),
        path=prepared.path,
        headers=headers,
        body=body,
        idempotent=operation.idempotent,
        retry_statuses=operation.retry_statuses,
        timeout=timeout,
        retry=retry,
        operation=operation.name,
        page=page,
        request_id=request_id,
        parent_span=parent_span,
    )


def _with_extra_body(method: str, body: bytes | None, extra: Mapping[str, Any] | None) -> bytes | None:
    """The JSON body with the extra fields set over the method's own."""
    if not extra:
        return body
    if body is None and method == "GET":
        raise ClientValidationError("extra_body", "a GET request carries no body; use extra_query")
    fields = orjson.loads(body) if body is not None else {}
    if not isinstance(fields, dict):
        raise ClientValidationError(
            "extra_body", "this request's body is not a JSON object, so it takes no fields"
        )
    return orjson.dumps({**fields, **extra})


def _header_value(headers: Mapping[str, str], name: str) -> str | None:
    """The value ``headers`` hold under ``name``, in any case; None when they hold none."""
    wanted = name.lower()
    return next((value for key, value in headers.items() if key.lower() == wanted), None)


def fresh_request_id() -> str:
    """A new request id: a random UUID (version 4) as text. Drawn from the ``random`` module's
    generator, which is reseeded in a forked child, not from the system's: an id that names a
    request in logs needs uniqueness, not secrecy, and ``uuid.uuid4()``'s system call would be
    the request's costliest step."""
    digits = "%032x" % ((getrandbits(128) & _UUID4_CLEAR) | _UUID4_SET)
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


@functools.lru_cache(maxsize=URLS_KEPT)
def _url(base: str, path: str, query: Query) -> URL:
    """The URL of a request. The latest are kept, keyed by all they are made of: a URL is
    immutable, and one used again (the same call made again, a retry) keeps what yarl and aiohttp
    worked out of it (its host, port...)."""
    text = base + path
    if query:
        text += "?" + urlencode(query, quote_via=quote, safe=",")
    return URL(text, encoded=True)
