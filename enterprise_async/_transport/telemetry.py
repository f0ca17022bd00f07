"""Native OpenTelemetry, through ``opentelemetry-api`` alone (the ``[otel]`` extra).

When the application has configured a tracer provider, every operation call is one span named by
its operation (``catalogs.contents``; a listing is one span, its pages' requests under it), and
every HTTP attempt is a child span following the HTTP client semantic conventions
(``http.request.method``, ``url.full``, ``server.address``, ``server.port``,
``http.response.status_code``, ``http.request.resend_count``, ``error.type``), with the
operation, the page and the request id as ``enterprise.*`` attributes. With a meter provider, the
``http.client.request.duration`` histogram and the counters ``enterprise.client.retries`` and
``enterprise.client.rate_limited`` (429 answers) are recorded.

Without a provider nothing is emitted, and each call (a listing: each walk of its pages) costs a
look at the global providers, which its attempts go by; without ``opentelemetry-api`` installed,
one failed import, once. No token or secret is ever an attribute:
the token travels in a header no span reads, and ``url.full`` drops a URL's user and password and
passes the client's redactor.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, cast

from .._utils.redaction import Redactor
from .._version import __version__

if TYPE_CHECKING:
    from .._request.request import HTTPRequest
    from .._response.responses import RawResponse

__all__ = ["AttemptSpan", "ListingSpan", "Telemetry"]

SCOPE = "enterprise_async"
"""The instrumentation scope the SDK's spans and metrics are recorded under."""

_NOTHING: AbstractContextManager[object] = contextlib.nullcontext()
"""What a span is without a provider (a null context manager can be entered any number of times)."""
_MISSING = object()
_api: Any = None  # the opentelemetry modules once looked for; _MISSING when not installed


def _opentelemetry() -> Any:
    """``(trace, metrics)`` of opentelemetry-api, imported at the first use; None without it."""
    global _api
    if _api is None:
        try:
            from opentelemetry import metrics, trace
        except ImportError:
            _api = _MISSING
        else:
            _api = (trace, metrics)
    return None if _api is _MISSING else _api


class Telemetry:
    """A client's view of the application's tracer and meter providers (the global ones)."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._tracer: tuple[object, Any] | None = None  # (provider, its tracer or None)
        self._instruments: tuple[object, _Instruments | None] | None = None
        self._current: tuple[Any, _Instruments | None] | None = None
        """The tracer and instruments of the latest look (``look``), which attempts go by."""

    def look(self) -> Any:
        """Look at the global providers (a call's or a walk's start); the tracer, or None."""
        tracer = self.tracer()
        self._current = (tracer, self.instruments())
        return tracer

    def tracer(self) -> Any:
        """The SDK's tracer while a tracer provider is configured, else None. The global provider
        is looked up every time; what it gives is worked out once per provider."""
        api = _opentelemetry()
        if api is None:
            return None
        provider = api[0].get_tracer_provider()
        seen = self._tracer
        if seen is None or seen[0] is not provider:
            seen = self._tracer = (
                provider,
                provider.get_tracer(SCOPE, __version__) if _configured(provider) else None,
            )
        return seen[1]

    def instruments(self) -> _Instruments | None:
        """The SDK's histogram and counters while a meter provider is configured, else None
        (looked up as ``tracer`` is)."""
        api = _opentelemetry()
        if api is None:
            return None
        provider = api[1].get_meter_provider()
        seen = self._instruments
        if seen is None or seen[0] is not provider:
            seen = self._instruments = (
                provider,
                _Instruments(provider.get_meter(SCOPE, __version__)) if _configured(provider) else None,
            )
        return seen[1]

    def operation(self, name: str) -> AbstractContextManager[object]:
        """The span of one operation call, current while the call runs (its attempts under it)."""
        tracer = self.look()
        if tracer is None:
            return _NOTHING
        return cast(
            "AbstractContextManager[object]",
            tracer.start_as_current_span(name, attributes={"enterprise.operation": name}),
        )

    def listing(self, name: str) -> ListingSpan:
        """The span of a listing's walks (see ``ListingSpan``)."""
        return ListingSpan(self, name)

    def attempt(self, request: HTTPRequest, retries: int) -> AttemptSpan | None:
        """The span (and duration) of one HTTP attempt, begun now; None without a provider (as
        the latest look found them: the call's or the walk's)."""
        current = self._current
        if current is None:
            self.look()
            current = self._current
        tracer, instruments = current if current is not None else (None, None)
        if tracer is None and instruments is None:
            return None
        return AttemptSpan(tracer, instruments, request, retries, self._redactor)

    def retried(self, request: HTTPRequest, why: str) -> None:
        """Count a retry (``why``: the status, or ``timeout``, ``refused``, ``connection``)."""
        instruments = self.instruments()
        if instruments is not None:
            attributes = {"http.request.method": request.method, "enterprise.operation": _operation(request)}
            instruments.retries.add(1, {**attributes, "error.type": why})


class ListingSpan:
    """The span of a listing: opened when a walk of its pages (or ``first_page()``) begins and
    ended when it ends, with each page's request under it. It is never made the current span: a
    walk is a generator that yields to its caller between pages, so the pages' attempts name it as
    their parent instead (``HTTPRequest.parent_span``)."""

    def __init__(self, telemetry: Telemetry, name: str) -> None:
        self._telemetry = telemetry
        self._name = name
        self.span: Any = None
        """The span of the walk under way, while there is one."""

    def walk(self) -> AbstractContextManager[object]:
        """Hold the listing's span over one walk (nothing to hold without a provider)."""
        tracer = self._telemetry.look()
        return _NOTHING if tracer is None else self._held(tracer)

    @contextlib.contextmanager
    def _held(self, tracer: Any) -> Iterator[None]:
        outer = self.span
        self.span = span = tracer.start_span(self._name, attributes={"enterprise.operation": self._name})
        try:
            yield
        except BaseException as error:
            _failed(span, error)
            raise
        finally:
            span.end()
            self.span = outer


class AttemptSpan:
    """One HTTP attempt's span and duration; ``end`` gives it its answer or its error."""

    def __init__(
        self,
        tracer: Any,
        instruments: _Instruments | None,
        request: HTTPRequest,
        retries: int,
        redactor: Redactor,
    ) -> None:
        self._instruments = instruments
        self._started = time.perf_counter()
        url = request.url
        self._attributes: dict[str, Any] = {
            "http.request.method": request.method,
            "server.address": url.host or "",
            "server.port": url.port or 0,
        }
        self._span = None if tracer is None else self._begin(tracer, request, retries, redactor)

    def _begin(self, tracer: Any, request: HTTPRequest, retries: int, redactor: Redactor) -> Any:
        from opentelemetry import trace

        url = request.url.with_user(None) if request.url.user or request.url.password else request.url
        attributes: dict[str, Any] = {
            **self._attributes,
            "url.full": redactor.text(str(url)),
            "enterprise.operation": _operation(request),
        }
        if retries:
            attributes["http.request.resend_count"] = retries
        if request.page is not None:
            attributes["enterprise.page"] = request.page
        if request.request_id is not None:
            attributes["enterprise.request_id"] = redactor.text(request.request_id)
        parent = trace.set_span_in_context(request.parent_span) if request.parent_span is not None else None
        return tracer.start_span(
            request.method, context=parent, kind=trace.SpanKind.CLIENT, attributes=attributes
        )

    def end(self, answer: RawResponse | None, error: BaseException | None) -> None:
        """End the attempt: with the answer's status (``error.type`` from 400 on), or the error."""
        attributes = self._attributes
        if answer is not None:
            attributes["http.response.status_code"] = answer.status
            if answer.status >= 400:
                attributes["error.type"] = str(answer.status)
        elif error is not None:
            attributes["error.type"] = type(error).__qualname__
        if self._instruments is not None:
            self._instruments.record(attributes, time.perf_counter() - self._started, answer)
        span = self._span
        if span is None:
            return
        span.set_attributes(attributes)
        if "error.type" in attributes:
            from opentelemetry.trace import Status, StatusCode

            span.set_status(Status(StatusCode.ERROR, attributes["error.type"]))
        span.end()


class _Instruments:
    """The SDK's metric instruments on one meter."""

    def __init__(self, meter: Any) -> None:
        self.duration = meter.create_histogram(
            "http.client.request.duration", unit="s", description="Duration of HTTP client requests."
        )
        self.retries = meter.create_counter(
            "enterprise.client.retries", unit="{retry}", description="Retries the client made, by cause."
        )
        self.rate_limited = meter.create_counter(
            "enterprise.client.rate_limited",
            unit="{response}",
            description="429 answers the client received.",
        )

    def record(self, attributes: dict[str, Any], seconds: float, answer: RawResponse | None) -> None:
        self.duration.record(seconds, attributes)
        if answer is not None and answer.status == 429:
            self.rate_limited.add(1, {"http.request.method": attributes["http.request.method"]})


def _operation(request: HTTPRequest) -> str:
    return request.operation or request.path


def _failed(span: Any, error: BaseException) -> None:
    """Mark ``span`` failed with ``error`` (its type as ``error.type``)."""
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("error.type", type(error).__qualname__)
    span.record_exception(error)
    span.set_status(Status(StatusCode.ERROR, type(error).__qualname__))


def _configured(provider: object) -> bool:
    """Whether ``provider`` is one the application configured (an SDK's): opentelemetry-api's own
    providers, its no-op ones and the placeholders it hands out before one is set, record nothing."""
    return not type(provider).__module__.startswith("opentelemetry.trace") and not type(
        provider
    ).__module__.startswith("opentelemetry.metrics")
