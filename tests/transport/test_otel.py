"""Native OpenTelemetry, recorded by the real OpenTelemetry SDK (in-memory span exporter and metric
reader): a span per operation call, a child span per HTTP attempt with the HTTP client semantic
conventions, the request duration histogram and the retry and 429 counters; nothing without a
provider, and nothing breaks without opentelemetry-api.

The providers are the SDK's, handed to the client through the API's ``get_tracer_provider`` and
``get_meter_provider`` for the length of a test (the global ones can be set once per process).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from enterprise_async import APIStatusError
from enterprise_async.testing import Fault, Sandbox
from tests.conftest import Backoffs
from tests.without_extras import run_without

CATALOGS = "/enterprise/v2/enterprise-catalogs"
UNKNOWN = "00000000-0000-4000-8000-000000000000"


class Recorded:
    """The spans and metrics the SDK recorded."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        return [span for span in self.spans() if span.name == name]

    def points(self, metric: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        found = []
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for recorded in scope.metrics:
                    if recorded.name == metric:
                        found.extend(recorded.data.data_points)
        return found


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorded]:
    kept = Recorded()
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: kept.tracer_provider)
    monkeypatch.setattr(metrics, "get_meter_provider", lambda: kept.meter_provider)
    yield kept
    kept.tracer_provider.shutdown()
    kept.meter_provider.shutdown()


def attempts(recorded: Recorded) -> list[ReadableSpan]:
    return [span for span in recorded.spans() if span.kind is trace.SpanKind.CLIENT]


def api_attempts(recorded: Recorded) -> list[ReadableSpan]:
    return [span for span in attempts(recorded) if "/oauth2/" not in str(span.attributes["url.full"])]


async def test_a_call_is_one_span_named_by_its_operation_with_its_attempt_under_it(
    recorded: Recorded,
) -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client() as client:
        with pytest.raises(APIStatusError):
            await client.catalogs.course(UNKNOWN, "edX+DemoX")
    (operation,) = recorded.named("catalogs.course")
    (attempt,) = api_attempts(recorded)
    assert attempt.parent is not None
    assert attempt.parent.span_id == operation.context.span_id
    assert operation.status.status_code is trace.StatusCode.ERROR


async def test_an_attempt_span_follows_the_http_client_conventions(recorded: Recorded) -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client() as client:
        await client.catalogs.list().first_page()
        port = sandbox.port
    (attempt,) = api_attempts(recorded)
    attributes = dict(attempt.attributes or {})
    assert attempt.name == "GET"
    assert attributes["http.request.method"] == "GET"
    assert attributes["url.full"] == f"http://127.0.0.1:{port}{CATALOGS}"
    assert (attributes["server.address"], attributes["server.port"]) == ("127.0.0.1", port)
    assert attributes["http.response.status_code"] == 200
    assert attributes["enterprise.page"] == 1
    assert attributes["enterprise.request_id"]
    assert "error.type" not in attributes
    assert "http.request.resend_count" not in attributes


async def test_a_retry_is_an_attempt_span_with_its_resend_count_and_error_type(
    recorded: Recorded, no_sleep: Backoffs
) -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client(retry=no_sleep.policy) as client:
        sandbox.faults.inject(CATALOGS, Fault.server_error(503), times=1)
        await client.catalogs.list().first_page()
    first, second = sorted(api_attempts(recorded), key=lambda span: span.start_time or 0)
    assert (first.attributes or {})["error.type"] == "503"
    assert first.status.status_code is trace.StatusCode.ERROR
    assert (second.attributes or {})["http.request.resend_count"] == 1
    ids = {(span.attributes or {})["enterprise.request_id"] for span in (first, second)}
    assert len(ids) == 1
    (retries,) = recorded.points("enterprise.client.retries")
    assert retries.value == 1
    assert retries.attributes["error.type"] == "503"


async def test_a_listing_is_one_span_with_its_pages_requests_under_it(recorded: Recorded) -> None:
    async with Sandbox(seed=0, page_sizes={"catalogs": 1}) as sandbox, sandbox.client() as client:
        catalogs = await client.catalogs.list().to_list()
    (listing,) = recorded.named("catalogs.list")
    pages = api_attempts(recorded)
    assert len(pages) == len(catalogs) > 1
    assert {span.parent.span_id for span in pages if span.parent} == {listing.context.span_id}
    numbers = sorted((span.attributes or {})["enterprise.page"] for span in pages)
    assert numbers == list(range(1, len(pages) + 1))


async def test_request_durations_and_429s_are_recorded(recorded: Recorded) -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client() as client:
        sandbox.faults.inject(CATALOGS, Fault.rate_limited(0), times=1)
        await client.catalogs.list().first_page()
    durations = recorded.points("http.client.request.duration")
    statuses = sorted(point.attributes.get("http.response.status_code") for point in durations)
    assert statuses == [200, 200, 429]  # the token request, the 429, the retry
    assert all(point.count == 1 and point.sum >= 0 for point in durations)
    (throttled,) = recorded.points("enterprise.client.rate_limited")
    assert throttled.value == 1


async def test_no_secret_or_token_is_an_attribute(recorded: Recorded) -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client() as client:
        await client.catalogs.list().first_page()
        secret = sandbox.client_secret
    shown = repr([dict(span.attributes or {}) for span in recorded.spans()])
    assert secret not in shown
    assert "JWT" not in shown
    assert "Authorization" not in shown


async def test_without_a_provider_no_tracer_or_meter_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """opentelemetry-api's own providers (no SDK configured) record nothing: the client asks them
    for no tracer and no meter."""

    def never(*_: object, **__: object) -> None:
        raise AssertionError("an unconfigured provider was asked for a tracer or a meter")

    monkeypatch.setattr(trace, "get_tracer_provider", trace.NoOpTracerProvider)
    monkeypatch.setattr(metrics, "get_meter_provider", metrics.NoOpMeterProvider)
    monkeypatch.setattr(trace.NoOpTracerProvider, "get_tracer", never)
    monkeypatch.setattr(metrics.NoOpMeterProvider, "get_meter", never)
    async with Sandbox(seed=0) as sandbox, sandbox.client() as client:
        page = await client.catalogs.list().first_page()
    assert page.results


async def test_a_provider_set_between_two_calls_of_one_client_records_the_second_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each call looks at the global providers once, and its attempts go by that look: a provider
    set (or taken away) between two calls is seen by the next call, its span and its attempts'."""
    kept = Recorded()
    async with Sandbox(seed=0) as sandbox, sandbox.client() as client:
        await client.catalogs.list().first_page()
        with monkeypatch.context() as patched:
            patched.setattr(trace, "get_tracer_provider", lambda: kept.tracer_provider)
            patched.setattr(metrics, "get_meter_provider", lambda: kept.meter_provider)
            await client.catalogs.list().first_page()
        recorded_while_set = [span.name for span in kept.spans()]
        await client.catalogs.list().first_page()
    assert recorded_while_set == ["GET", "catalogs.list"]
    assert [span.name for span in kept.spans()] == recorded_while_set
    assert len(kept.points("http.client.request.duration")) == 1
    kept.tracer_provider.shutdown()
    kept.meter_provider.shutdown()


def test_without_opentelemetry_installed_calls_go_on() -> None:
    listed = run_without(("opentelemetry",), LIST_A_PAGE)
    assert listed.returncode == 0, listed.stderr
    assert int(listed.stdout) > 0


LIST_A_PAGE = """
import asyncio
from enterprise_async.testing import Sandbox

async def main():
    async with Sandbox(seed=0) as sandbox, sandbox.client() as client:
        page = await client.catalogs.list().first_page()
    print(len(page.results))

asyncio.run(main())
"""
