"""The options of a client and of a call, and the trace context every request carries.

``ClientOptions`` is what a client (or a ``with_options`` view of it) sends with: its format,
concurrency, retries, timeout and headers. It is declared once, validated once, and travels whole:
the command line builds one, a queued job carries it as JSON, a worker's client is made from it.
``RequestOptions`` is what a call may change for itself (``timeout=``, ``extra_headers=``);
``RequestTrace`` is what a request tells an ``aiohttp.TraceConfig`` (as ``trace_request_ctx``) and
OpenTelemetry (through ``current_trace()``): which operation, which page, which attempt.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from typing import Any, Literal

import attrs
from attrs import field, frozen
from multidict import CIMultiDict, CIMultiDictProxy

from ._constants import DEFAULT_MAX_CONCURRENCY, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, RESPONSE_FORMATS
from .errors import ClientValidationError

__all__ = ["ClientOptions", "RequestOptions", "RequestTrace", "current_trace", "request_id_of"]

ResponseFormat = Literal["json", "xml"]

_FORBIDDEN_HEADERS = frozenset({"authorization", "host", "content-length"})


def _response_format(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value not in RESPONSE_FORMATS:
        raise ClientValidationError(attribute.name, f"must be 'json' or 'xml', got {value!r}")


def _count(minimum: int) -> Any:
    def check(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ClientValidationError(attribute.name, f"must be an integer >= {minimum}, got {value!r}")

    return check


def _seconds(value: object) -> float:
    seconds = check_timeout("timeout", value)
    if seconds is None:
        raise ClientValidationError("timeout", "must be a positive number of seconds, got None")
    return seconds


def _header_map(value: object) -> Mapping[str, str]:
    return check_headers(value, "headers") or {}


@frozen(kw_only=True)
class ClientOptions:
    """How a client sends: one typed, validated object, the same from the command line to a worker.

    ``max_concurrency`` is the one bound on this client's requests in flight, pages of every
    listing included; a listing fetches ahead at most that many pages.
    """

    response_format: ResponseFormat = field(default="json", validator=_response_format)
    max_concurrency: int = field(default=DEFAULT_MAX_CONCURRENCY, validator=_count(1))
    max_retries: int = field(default=DEFAULT_MAX_RETRIES, validator=_count(0))
    timeout: float = field(default=DEFAULT_TIMEOUT, converter=_seconds)
    headers: Mapping[str, str] = field(factory=dict, converter=_header_map)

    def evolve(self, **changes: Any) -> ClientOptions:
        """These options with ``changes`` (None keeps the current value), validated again."""
        given = {name: value for name, value in changes.items() if value is not None}
        if "headers" in given:
            given["headers"] = {**self.headers, **_header_map(given["headers"])}
        return attrs.evolve(self, **given)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data (for a queued job); ``from_json`` reads it back."""
        return {**attrs.asdict(self), "headers": dict(self.headers)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ClientOptions:
        """Options from ``to_json``'s data; a typed error names a bad or unknown field."""
        known = {attribute.name for attribute in attrs.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ClientValidationError("options", f"unknown {', '.join(unknown)}")
        return cls(**data)


@frozen
class RequestOptions:
    """What one call overrides: its timeout in seconds and headers added to its requests."""

    timeout: float | None = None
    extra_headers: Mapping[str, str] | None = None

    @classmethod
    def of(cls, timeout: object = None, extra_headers: object = None) -> RequestOptions | None:
        """Validated options, or None when the call overrides nothing (the common case costs nothing)."""
        if timeout is None and extra_headers is None:
            return None
        return cls(timeout=check_timeout("timeout", timeout), extra_headers=check_headers(extra_headers))


def check_timeout(name: str, value: object) -> float | None:
    """A positive number of seconds, or None; a typed error names anything else before it is sent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise ClientValidationError(name, f"must be a positive number of seconds, got {value!r}")
    return float(value)


def check_headers(value: object, name: str = "extra_headers") -> Mapping[str, str] | None:
    """Header names and values as strings; the SDK's own credentials headers cannot be replaced."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ClientValidationError(name, f"must be a mapping of header names to values, got {value!r}")
    for key, text in value.items():
        if not isinstance(key, str) or not key.strip() or not isinstance(text, str):
            raise ClientValidationError(name, f"names and values must be strings, got {key!r}: {text!r}")
        if key.lower() in _FORBIDDEN_HEADERS:
            raise ClientValidationError(name, f"{key!r} is set by the client and cannot be overridden")
    return dict(value)


@frozen
class RequestTrace:
    """The ``trace_request_ctx`` of every request the client sends.

    ``operation`` is the operation's name (``catalogs.contents``, ``auth.token`` for the token
    request), ``page`` the page number of a listing's page (None otherwise), ``attempt`` counts
    from 1 (a retry is attempt 2).
    """

    operation: str
    page: int | None = None
    attempt: int = 1

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


def request_id_of(headers: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    """The gateway's request id from response headers (``names``, case-insensitive), or None."""
    if isinstance(headers, CIMultiDictProxy | CIMultiDict):  # aiohttp's headers: no copy needed
        return next((value for name in names if (value := headers.get(name))), None)
    lowered = {name.lower(): value for name, value in headers.items()}
    for name in names:
        value = lowered.get(name.lower())
        if value:
            return value
    return None
