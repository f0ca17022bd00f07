"""The options of a client and of a call, and the trace context every request carries.

``ClientOptions`` is what a client (or a ``with_options`` view of it) sends with: its format,
concurrency, retries and their policy, timeouts and headers. It is declared once, validated once,
and travels whole: the command line builds one, a queued job carries it as JSON, a worker's client
is made from it. ``RequestOptions`` is what a call may change for itself (``timeout=``, ``retry=``,
``extra_headers=``, ``extra_query=``, ``extra_body=``). The extras are the way to send what the
spec does not know yet (a new filter, a new body field): they are checked here, before anything is
sent, and merged over the method's own values when the request is built (``_request.request``). A
query value is written as the servers read the method's own (``true``/``false``, a list as one
comma-separated value; ``validation.query_value``); ``None`` removes the parameter.
``RequestTrace`` is what a request tells an ``aiohttp.TraceConfig`` (as ``trace_request_ctx``) and
OpenTelemetry (through ``current_trace()``): which operation, which page, which attempt.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Mapping
from typing import Any, Literal

import attrs
import orjson
from attrs import field, frozen

from .._decoding.enums import OpenEnum
from .._utils.constants import (
    AUTO_CONCURRENCY_BOUNDS,
    DEFAULT_MAX_CONCURRENCY,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    RESPONSE_FORMATS,
)
from ..errors import ClientValidationError
from .retry import RetryPolicy, check_retry_policy
from .timeouts import Timeout, check_timeout
from .validation import query_value

__all__ = [
    "ClientOptions",
    "RequestOptions",
    "RequestTrace",
    "check_extra_body",
    "check_extra_query",
    "current_trace",
    "encode_json",
]

ResponseFormat = Literal["json", "xml"]
Concurrency = int | Literal["auto"]

_FORBIDDEN_HEADERS = frozenset({"authorization", "host", "content-length"})
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""RFC 9110's token: what a header name may be made of."""
_HEADER_VALUE = re.compile(r"[^\r\n\x00]*")
"""A header value holds no line break (which would start another header) and no NUL."""


def _response_format(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value not in RESPONSE_FORMATS:
        raise ClientValidationError(attribute.name, f"must be 'json' or 'xml', got {value!r}")


def _count(minimum: int) -> Any:
    def check(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ClientValidationError(attribute.name, f"must be an integer >= {minimum}, got {value!r}")

    return check


def _concurrency(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value == "auto":
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ClientValidationError(attribute.name, f"must be an integer >= 1 or 'auto', got {value!r}")


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _bounds(value: object) -> tuple[int, int]:
    """``(minimum, maximum)`` of an adaptive concurrency; a list (from JSON) is read as a pair."""
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(_positive(end) for end in value):
        minimum, maximum = value
        if minimum <= maximum:
            return (minimum, maximum)
    raise ClientValidationError(
        "concurrency_bounds",
        f"must be (minimum, maximum), integers with 1 <= minimum <= maximum, got {value!r}",
    )


def _timeout(value: object) -> Timeout:
    timeout = check_timeout(value)
    if timeout is None:
        raise ClientValidationError("timeout", "must be a positive number of seconds or a Timeout, got None")
    return timeout


def _retry(value: object) -> RetryPolicy:
    policy = check_retry_policy(value)
    return policy if policy is not None else RetryPolicy()


def _header_map(value: object) -> Mapping[str, str]:
    return check_headers(value, "headers") or {}


@frozen(kw_only=True)
class ClientOptions:
    """How a client sends: one typed, validated object, the same from the command line to a worker.

    ``max_concurrency`` is the one bound on this client's requests in flight, pages of every
    listing included; a listing fetches ahead at most that many pages. ``"auto"`` adapts it to
    the answers (grows while they are healthy, halves on a 429, a 5xx or a latency climb) within
    ``concurrency_bounds``, which only ``"auto"`` reads. ``timeout`` is a
    ``Timeout`` (a plain number given here is its ``total``); ``retry`` the ``RetryPolicy`` saying
    how long to wait between the ``max_retries`` retries and after which statuses.
    """

    response_format: ResponseFormat = field(default="json", validator=_response_format)
    max_concurrency: Concurrency = field(default=DEFAULT_MAX_CONCURRENCY, validator=_concurrency)
    max_retries: int = field(default=DEFAULT_MAX_RETRIES, validator=_count(0))
    timeout: Timeout = field(default=Timeout(total=DEFAULT_TIMEOUT), converter=_timeout)
    retry: RetryPolicy = field(factory=RetryPolicy, converter=_retry)
    headers: Mapping[str, str] = field(factory=dict, converter=_header_map)
    max_response_bytes: int = field(default=DEFAULT_MAX_RESPONSE_BYTES, validator=_count(1))
    """The most one answer may inflate to; past it, ``ResponseTooLargeError`` and nothing kept."""
    concurrency_bounds: tuple[int, int] = field(default=AUTO_CONCURRENCY_BOUNDS, converter=_bounds)
    """The least and the most requests in flight ``max_concurrency="auto"`` may settle on."""

    @property
    def most_in_flight(self) -> int:
        """The most requests in flight these options may ever allow (how far a listing reads ahead)."""
        if self.max_concurrency == "auto":
            return self.concurrency_bounds[1]
        return self.max_concurrency

    def evolve(self, **changes: Any) -> ClientOptions:
        """These options with ``changes`` (None keeps the current value), validated again."""
        given = {name: value for name, value in changes.items() if value is not None}
        if "headers" in given:
            given["headers"] = {**self.headers, **_header_map(given["headers"])}
        return attrs.evolve(self, **given)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data (for a queued job); ``from_json`` reads it back."""
        timeout = self.timeout
        plain = timeout.total is not None and timeout == Timeout(total=timeout.total)
        return {
            **attrs.asdict(self, recurse=False),
            "timeout": timeout.total if plain else attrs.asdict(timeout),
            "retry": self.retry.to_json(),
            "headers": dict(self.headers),
            "concurrency_bounds": list(self.concurrency_bounds),
        }

    def overrides(self) -> dict[str, Any]:
        """``to_json``'s data of the options that differ from the SDK's defaults: what a command
        gave, which a queued job carries so that a worker's own options apply to the rest."""
        defaults = ClientOptions().to_json()
        return {name: value for name, value in self.to_json().items() if defaults[name] != value}

    def merged(self, data: Mapping[str, Any]) -> ClientOptions:
        """These options with ``data`` (``to_json``'s, or part of it) over them, validated: a bad or
        unknown field is a ``ClientValidationError`` naming it."""
        if not isinstance(data, Mapping):
            raise ClientValidationError("options", f"must be an object, got {type(data).__name__}")
        return ClientOptions.from_json({**self.to_json(), **data})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ClientOptions:
        """Options from ``to_json``'s data; a typed error names a bad or unknown field."""
        known = {attribute.name for attribute in attrs.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ClientValidationError("options", f"unknown {', '.join(unknown)}")
        return cls(**data)


@frozen(kw_only=True)
class RequestOptions:
    """What one call overrides: its timeouts and retry policy, and what it adds to its requests
    (headers, query parameters, body fields the spec does not know)."""

    timeout: Timeout | None = None
    retry: RetryPolicy | None = None
    extra_headers: Mapping[str, str] | None = None
    extra_query: Mapping[str, str | None] | None = None
    extra_body: Mapping[str, Any] | None = None

    @classmethod
    def of(
        cls,
        timeout: object = None,
        extra_headers: object = None,
        extra_query: object = None,
        extra_body: object = None,
        retry: object = None,
    ) -> RequestOptions | None:
        """Validated options, or None when the call overrides nothing (the common case costs nothing)."""
        if (
            timeout is None
            and extra_headers is None
            and extra_query is None
            and extra_body is None
            and retry is None
        ):
            return None
        return cls(
            timeout=check_timeout(timeout),
            retry=check_retry_policy(retry),
            extra_headers=check_headers(extra_headers),
            extra_query=check_extra_query(extra_query),
            extra_body=check_extra_body(extra_body),
        )


def check_headers(value: object, name: str = "extra_headers") -> Mapping[str, str] | None:
    """Header names and values as strings; the SDK's own credentials headers cannot be replaced."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ClientValidationError(name, f"must be a mapping of header names to values, got {value!r}")
    for key, text in value.items():
        if not isinstance(key, str) or not key.strip() or not isinstance(text, str):
            raise ClientValidationError(name, f"names and values must be strings, got {key!r}: {text!r}")
        if not _HEADER_NAME.fullmatch(key):
            raise ClientValidationError(name, f"{key!r} is not a header name (letters, digits, -, no blanks)")
        if not _HEADER_VALUE.fullmatch(text):
            raise ClientValidationError(name, f"the value of {key!r} holds a line break or NUL")
        if key.lower() in _FORBIDDEN_HEADERS:
            raise ClientValidationError(name, f"{key!r} is set by the client and cannot be overridden")
    return dict(value)


_SCALARS = (str, int, float, bool, OpenEnum)


def check_extra_query(value: object, name: str = "extra_query") -> dict[str, str | None] | None:
    """Query parameters as the wire writes them; a typed error names a name or value it cannot send."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ClientValidationError(name, f"must be a mapping of parameter names to values, got {value!r}")
    encoded: dict[str, str | None] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not key:
            raise ClientValidationError(name, f"parameter names must be non-empty strings, got {key!r}")
        encoded[key] = _query_text(name, key, item)
    return encoded


def _query_text(name: str, key: str, item: object) -> str | None:
    if item is None:
        return None
    if isinstance(item, (list, tuple)) and all(isinstance(part, _SCALARS) for part in item):
        return ",".join(query_value(part) for part in item)
    if isinstance(item, _SCALARS):
        return query_value(item)
    raise ClientValidationError(name, f"{key}: a value must be a string, number, boolean or a list of them")


def check_extra_body(value: object, name: str = "extra_body") -> dict[str, Any] | None:
    """Body fields that can be written as JSON; a typed error names a value that cannot."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise ClientValidationError(name, f"must be a mapping of field names to JSON values, got {value!r}")
    encode_json(name, dict(value))
    return dict(value)


def encode_json(name: str, value: object) -> bytes:
    """``value`` as JSON bytes, or a typed error naming the argument whose value is not JSON."""
    try:
        return orjson.dumps(value)
    except TypeError as error:
        raise ClientValidationError(name, f"cannot be written as JSON: {error}") from None


@frozen
class RequestTrace:
    """The ``trace_request_ctx`` of every request the client sends.

    ``operation`` is the operation's name (``catalogs.contents``, ``auth.token`` for the token
    request), ``page`` the page number of a listing's page (None otherwise), ``attempt`` counts
    from 1 (a retry is attempt 2), ``request_id`` is the id the request is sent with
    (``X-Request-ID``), the same on each attempt.
    """

    operation: str
    page: int | None = None
    attempt: int = 1
    request_id: str | None = None

    def __str__(self) -> str:
        page = f" page {self.page}" if self.page is not None else ""
        return f"{self.operation}{page}, attempt {self.attempt}"


_CURRENT: contextvars.ContextVar[RequestTrace | None] = contextvars.ContextVar(
    "enterprise_async_trace", default=None
)


def current_trace() -> RequestTrace | None:
    """The trace of the request being sent in this task, for hooks that only see the span and
    the request (OpenTelemetry's aiohttp-client ``request_hook``)."""
    return _CURRENT.get()


def set_current_trace(trace: RequestTrace | None) -> contextvars.Token[RequestTrace | None]:
    """Make ``trace`` the current one (the transport does so around each attempt)."""
    return _CURRENT.set(trace)


def reset_current_trace(token: contextvars.Token[RequestTrace | None]) -> None:
    """Restore the trace before ``set_current_trace``."""
    _CURRENT.reset(token)
