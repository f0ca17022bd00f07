"""The OpenTelemetry example of enterprise_async/README.md, run as written: spans are named after
the request's trace.

With a tracer provider the SDK records spans of its own too (``tests/transport/test_otel.py``); the
example's are aiohttp instrumentation's, told apart by their instrumentation scope.

It runs in a subprocess, because OpenTelemetry's tracer provider and aiohttp instrumentation are
global to a process and cannot be undone cleanly.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

GUIDE = Path(__file__).resolve().parents[2] / "enterprise_async" / "README.md"

RUNNER = """
import asyncio, json, sys

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

exec(compile(sys.stdin.read(), "enterprise_async/README.md:tracing", "exec"), {"__name__": "readme_tracing"})

from enterprise_async.testing import Sandbox


async def main() -> None:
    async with Sandbox(page_sizes={"catalogs": 1}) as sandbox, sandbox.client() as client:
        await client.catalogs.list().to_list()


asyncio.run(main())
print(json.dumps([
    {"name": span.name, "scope": span.instrumentation_scope.name, **dict(span.attributes)}
    for span in exporter.get_finished_spans()
]))
"""


def opentelemetry_example() -> str:
    """The guide's OpenTelemetry block (the second Python block of its Tracing section)."""
    section = GUIDE.read_text(encoding="utf-8").split("## Tracing", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 2, "the Tracing section has a TraceConfig and an OpenTelemetry example"
    return str(blocks[1])


def spans() -> list[dict[str, Any]]:
    result = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=opentelemetry_example(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded: list[dict[str, Any]] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


def test_the_opentelemetry_example_names_each_span_after_its_request() -> None:
    everything = spans()
    recorded = [span for span in everything if span.pop("scope") != "enterprise_async"]
    assert [span["name"] for span in everything if span not in recorded].count("catalogs.list") == 1
    token = [span for span in recorded if span["name"] == "auth.token, attempt 1"]
    listing = sorted(
        (span for span in recorded if span["name"].startswith("catalogs.list")),
        key=lambda span: span["enterprise.page"],
    )
    assert len(token) == 1
    assert len(listing) > 1  # several pages, each its own span
    assert len(token) + len(listing) == len(recorded)
    assert [span["name"] for span in listing] == [
        f"catalogs.list page {page}, attempt 1" for page in range(1, len(listing) + 1)
    ]
    assert {span["enterprise.operation"] for span in listing} == {"catalogs.list"}
    assert {span["enterprise.attempt"] for span in recorded} == {1}
