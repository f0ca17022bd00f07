"""B2: decoding courses (the largest model) from JSON: the SDK, the floor, and pydantic v2.

The same body, a JSON array of 200 courses as the sandbox generates them (about 3 MB, with their
runs, seats, staff and organisations), is decoded by:

- the SDK: ``from_dict(list[Course], orjson.loads(body))``, the decoder the client uses;
- the floor: ``orjson.loads`` and the attrs classes built by hand (``_floor``);
- pydantic v2 models generated from the same spec: ``TypeAdapter(list[Course]).validate_json``.

The SDK's and the floor's results are checked equal before anything is timed.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from typing import Any

import orjson
from pydantic import TypeAdapter

from enterprise_async.models import Course, from_dict
from enterprise_async.testing import DataSize, SandboxData

from ._floor import floor_courses
from ._harness import Row, collector_off, median
from ._pydantic import pydantic_course_model

__all__ = ["course_items", "cpu_per_call", "run"]

COURSES = 200
CALLS = 5
ANCHOR = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def course_items(count: int) -> list[dict[str, Any]]:
    """The first ``count`` courses of a sandbox catalog, as the sandbox sends them."""
    data = SandboxData(0, DataSize(customers=1, catalogs_per_customer=1, catalog_items=2 * count), ANCHOR)
    catalog = data.catalogs[0]
    indices = [index for index in range(2 * count) if data.content.kind(index) == "course"]
    return [data.item(catalog, index) for index in indices[:count]]


def cpu_per_call(function: Callable[[], object], calls: int) -> float:
    """CPU seconds per call of ``function`` over a batch of ``calls``: the process's own time, which a
    machine shared with other busy processes does not stretch as it stretches the wall clock (decoding
    is single-threaded: every contender runs on the calling thread alone)."""
    started = time.process_time()
    for _ in range(calls):
        function()
    return (time.process_time() - started) / calls


def run(rounds: int) -> list[Row]:
    body = orjson.dumps(course_items(COURSES))
    adapter = TypeAdapter(list[pydantic_course_model()])

    def sdk() -> object:
        return from_dict(list[Course], orjson.loads(body))

    def floor() -> object:
        return floor_courses(orjson.loads(body))

    def pydantic() -> object:
        return adapter.validate_json(body)

    if sdk() != floor():
        raise AssertionError("the floor does not build the models the SDK builds")
    times: dict[str, list[float]] = {"sdk": [], "floor": [], "pydantic": []}
    for _ in range(rounds):
        for name, decode in (("sdk", sdk), ("floor", floor), ("pydantic", pydantic)):
            with collector_off():
                times[name].append(cpu_per_call(decode, CALLS))
    ratio = median([sdk / floor for sdk, floor in zip(times["sdk"], times["floor"], strict=True)])
    versus_pydantic = median([sdk / p for sdk, p in zip(times["sdk"], times["pydantic"], strict=True)])
    floor_versus_pydantic = median([f / p for f, p in zip(times["floor"], times["pydantic"], strict=True)])
    milliseconds = {name: median(values) * 1000 for name, values in times.items()}
    sizes = f"{COURSES} courses, {len(body) / 1e6:.1f} MB of JSON"
    return [
        Row(
            "B2",
            "decode of courses from JSON: SDK time / floor time (orjson + attrs classes built by hand)",
            f"{ratio:.2f}x",
            "<= 1.3x",
            ratio <= 1.3,
            (
                f"{sizes}: SDK {milliseconds['sdk']:.1f} ms, floor {milliseconds['floor']:.1f} ms, "
                f"pydantic v2 {milliseconds['pydantic']:.1f} ms of CPU per decode (each includes parsing "
                "the JSON), timed with the cyclic collector off, as timeit does.",
            ),
        ),
        Row(
            "B2",
            "the same decode: SDK time / pydantic v2 models of the same spec (`validate_json`)",
            f"{versus_pydantic:.2f}x (the floor: {floor_versus_pydantic:.2f}x)",
            "<= 1x",
            versus_pydantic <= 1.0,
        ),
    ]
