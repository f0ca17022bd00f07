"""B8: the services' real catalog items (``../shared/realdata/``): decode time and memory held.

Side by side in one process, for the catalog items of the real payloads (courses, course runs,
programs, as edx-enterprise and enterprise-catalog emit them):

- the SDK: ``from_dict(list[ContentItem], orjson.loads(body))``;
- openapi-python-client (``OPC_VERSION``, attrs + httpx), a client generated from our own
  ``spec/openapi.yaml`` into a temporary directory at bench time, never committed: each item's
  ``Model.from_dict``, the class chosen by its ``content_type`` as its users would;
- pydantic v2 models generated from the same spec by datamodel-code-generator (``_pydantic``);
- plain dicts from ``orjson.loads``, for memory.

Real items hold values their declared types do not allow: the other two refuse some items, so
time and memory are compared on the items all three decode; the SDK's time over every item, and
what the tolerant path costs (an item with odd values against the same item without them), are
reported too. Memory held is what ``tracemalloc`` counts as still allocated for ``COPIES`` items.
"""

from __future__ import annotations

import copy
import gc
import importlib.util
import logging
import os
import re
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from enterprise_async.models import ContentItem, from_dict

from ._harness import Row, collector_off, median
from ._pydantic import SPEC, pydantic_models
from .decode import cpu_per_call

__all__ = ["OPC_VERSION", "REALDATA", "run"]

REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata"
OPC_VERSION = "0.29.1"
"""openapi-python-client, pinned: installed by the ``dev`` extra."""
CATALOG_MODELS = ("ContentItem", "Course", "CourseRun", "Program")
KINDS = {"course": "Course", "courserun": "CourseRun", "program": "Program"}
COPIES = 20_000
CALLS = 10
TWIN_CALLS = 100
TWIN_BATCHES = 5


def catalog_items() -> list[tuple[str, dict[str, Any]]]:
    """The real catalog items, each with the class it belongs to."""
    items = []
    for path in sorted(REALDATA.glob("*.json")):
        for record in orjson.loads(path.read_bytes()):
            if record["model"] in CATALOG_MODELS:
                payload = record["payload"]
                kind = KINDS.get(payload.get("content_type"), record["model"])
                items.append((kind if kind != "ContentItem" else "Course", payload))
    return items


def opc_models() -> Any:
    """The models module of a client that openapi-python-client generates from our spec, now."""
    folder = Path(tempfile.mkdtemp(prefix="enterprise-bench-opc-"))
    output = folder / "enterprise_bench_opc"
    command = [
        str(Path(sys.executable).with_name("openapi-python-client")),
        "generate",
        "--path",
        str(SPEC),
        "--output-path",
        str(output),
        "--meta",
        "none",
    ]
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(command, check=True, capture_output=True, env=environment)
    spec = importlib.util.spec_from_file_location(
        "enterprise_bench_opc", output / "__init__.py", submodule_search_locations=[str(output)]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import the generated client from {output}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["enterprise_bench_opc"] = module
    spec.loader.exec_module(module)
    return importlib.import_module("enterprise_bench_opc.models")


def _decodes(decode: Callable[[str, dict[str, Any]], object], kind: str, payload: dict[str, Any]) -> bool:
    try:
        decode(kind, payload)
    except Exception:
        return False
    return True


def _tolerant_cost(odd: dict[str, Any], clean: dict[str, Any], rounds: int) -> float:
    """Time of ``odd`` / time of ``clean``: the best of several alternating batches, each round."""
    ratios = []
    for _ in range(rounds):
        best = {"odd": float("inf"), "clean": float("inf")}
        for _ in range(TWIN_BATCHES):
            for name, payload in (("odd", odd), ("clean", clean)):
                with collector_off():
                    seconds = cpu_per_call(partial(from_dict, ContentItem, payload), TWIN_CALLS)
                best[name] = min(best[name], seconds)
        ratios.append(best["odd"] / best["clean"])
    return median(ratios)


def held_bytes(build: Callable[[], object]) -> int:
    """Bytes still allocated once ``build()``'s result is built (the result kept alive)."""
    gc.collect()
    tracemalloc.start()
    result = build()
    gc.collect()
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return held


def _odd_twins(items: list[tuple[str, dict[str, Any]]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each item that takes the tolerant path, and the same item without its odd values (each value
    removed where it is: a course whose run holds an odd value keeps the run)."""
    logger = logging.getLogger("enterprise_async")
    found: list[str] = []

    class Paths(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            found.append(str(getattr(record, "sdk_path", "")))

    handler, level = Paths(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    twins = []
    try:
        for _, payload in items:
            found.clear()
            from_dict(ContentItem, payload)
            if found:
                clean = copy.deepcopy(payload)
                for path in found:
                    _drop(clean, path)
                twins.append((payload, clean))
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    return twins


def _drop(payload: dict[str, Any], path: str) -> None:
    """Remove the value at ``path`` (``course_runs[0].level_type``, as the DEBUG records name it), and
    only it: the rest of the item, nested models included, stays for the clean twin to decode."""
    *parents, leaf = re.findall(r"[^.\[\]]+", path)
    value: Any = payload
    for step in parents:
        value = value[int(step)] if step.isdigit() else value.get(step)
        if value is None:
            return
    if isinstance(value, dict):
        value.pop(leaf, None)
    elif isinstance(value, list) and leaf.isdigit() and int(leaf) < len(value):
        del value[int(leaf)]


def run(rounds: int) -> list[Row]:
    if not REALDATA.is_dir():
        return [Row("B8", "real catalog items", f"skipped: no {REALDATA}", "n/a", None)]
    items = catalog_items()
    opc = opc_models()
    pydantic = pydantic_models("Course", "CourseRun", "Program")

    def opc_decode(kind: str, payload: dict[str, Any]) -> object:
        return getattr(opc, kind).from_dict(payload)

    def pydantic_decode(kind: str, payload: dict[str, Any]) -> object:
        return pydantic[kind].model_validate(payload)

    shared = [
        (kind, payload)
        for kind, payload in items
        if _decodes(opc_decode, kind, payload) and _decodes(pydantic_decode, kind, payload)
    ]
    body = orjson.dumps([payload for _, payload in shared])
    all_body = orjson.dumps([payload for _, payload in items])
    kinds = [kind for kind, _ in shared]
    opc_classes = [getattr(opc, kind) for kind in kinds]
    pydantic_classes = [pydantic[kind] for kind in kinds]
    contenders: dict[str, Callable[[], object]] = {
        "sdk": lambda: from_dict(list[ContentItem], orjson.loads(body)),
        "opc": lambda: [cls.from_dict(x) for cls, x in zip(opc_classes, orjson.loads(body), strict=True)],
        "pydantic": lambda: [
            cls.model_validate(x) for cls, x in zip(pydantic_classes, orjson.loads(body), strict=True)
        ],
        "sdk, every item": lambda: from_dict(list[ContentItem], orjson.loads(all_body)),
    }
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, decode in contenders.items():
            with collector_off():
                times[name].append(cpu_per_call(decode, CALLS))
    per_item = {
        name: median(values) * 1e6 / len(shared) for name, values in times.items() if "odd" not in name
    }
    per_item["sdk, every item"] = median(times["sdk, every item"]) * 1e6 / len(items)
    versus_opc = median([s / o for s, o in zip(times["sdk"], times["opc"], strict=True)])
    tolerant = [_tolerant_cost(odd, clean, rounds) for odd, clean in _odd_twins(items)]
    memory = _memory(shared, opc_classes, pydantic_classes)
    return _rows(len(items), len(shared), per_item, versus_opc, tolerant, memory)


def _memory(
    shared: list[tuple[str, dict[str, Any]]], opc_classes: list[Any], pydantic_classes: list[Any]
) -> dict[str, float]:
    copies = COPIES // len(shared) + 1
    count = copies * len(shared)
    body = orjson.dumps([payload for _, payload in shared] * copies)
    opc_all, pydantic_all = opc_classes * copies, pydantic_classes * copies
    builds: dict[str, Callable[[], object]] = {
        "dicts": lambda: orjson.loads(body),
        "sdk": lambda: from_dict(list[ContentItem], orjson.loads(body)),
        "opc": lambda: [cls.from_dict(x) for cls, x in zip(opc_all, orjson.loads(body), strict=True)],
        "pydantic": lambda: [
            cls.model_validate(x) for cls, x in zip(pydantic_all, orjson.loads(body), strict=True)
        ],
    }
    return {name: held_bytes(build) / count for name, build in builds.items()}


def _rows(
    every: int,
    shared: int,
    per_item: dict[str, float],
    versus_opc: float,
    tolerant: list[float],
    memory: dict[str, float],
) -> list[Row]:
    worst = max(tolerant, default=1.0)
    held_ok = memory["sdk"] <= memory["opc"] and memory["sdk"] <= memory["dicts"]
    return [
        Row(
            "B8",
            f"decode of real catalog items (../shared/realdata): SDK / openapi-python-client {OPC_VERSION}",
            f"{versus_opc:.2f}x ({per_item['sdk']:.0f} µs against {per_item['opc']:.0f} µs per item; "
            f"pydantic v2 {per_item['pydantic']:.0f} µs)",
            "<= 1x",
            versus_opc <= 1,
            (
                f"The {shared} of {every} real catalog items that openapi-python-client's and pydantic's "
                "models both accept (the others hold values their declared types refuse); the SDK decodes "
                f"all {every} at {per_item['sdk, every item']:.0f} µs per item. Each includes orjson.loads; "
                "CPU time, collector off.",
            ),
        ),
        Row(
            "B8",
            "tolerant path: an item with odd values / the same item without them (SDK)",
            f"at most {worst:.2f}x over {len(tolerant)} items",
            "<= 2x",
            worst <= 2,
            ("Per item: " + ", ".join(f"{ratio:.2f}x" for ratio in tolerant) + ".",),
        ),
        Row(
            "B8",
            f"memory held per real catalog item ({COPIES:,}+ held): SDK / openapi-python-client / dicts",
            f"SDK {memory['sdk']:,.0f} B; openapi-python-client {memory['opc']:,.0f} B; pydantic v2 "
            f"{memory['pydantic']:,.0f} B; plain dicts {memory['dicts']:,.0f} B "
            f"(SDK {memory['sdk'] / memory['dicts']:.2f}x dicts)",
            "<= theirs and <= dicts",
            held_ok,
            ("tracemalloc's count of what stays allocated while the decoded items are held.",),
        ),
    ]


if __name__ == "__main__":  # pragma: no cover - a quick look: python -m tests.bench.realdata
    started = time.perf_counter()
    for row in run(1):
        print(row.key, row.measures, "|", row.result, "|", row.target, row.met)
    print(f"{time.perf_counter() - started:.0f} s")
