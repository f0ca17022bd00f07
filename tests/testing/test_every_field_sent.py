"""The sandbox sends every field the spec documents, optional ones too, as the services would
(codegen/README.md, "Adding a field"), over every answer of a stateful handler that the demo's
tour gets, under both profiles (JSON: the services; XML: the reference); a field a maintainer
adds to every schema at once (``ADDED``, optional, that no record knows) included.

Each answer is seen as the server sends it, and held against the spec alone: every object of a
named schema holds each property its schema documents, except what the spec says is not sent: a
field the SDK computes (``x-sdk-computed``), the optional fields of a stored document (a variant
of a discriminated union: a catalog's content item), a listing's envelope beyond its pagination,
and, under the services profile, a field the operation's ``x-sdk-service`` ``fields`` (its
serializer's) leaves out.
"""

from __future__ import annotations

import asyncio
import io
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from attrs import frozen
from rich.console import Console

from enterprise_async.cli._demo import run_demo
from enterprise_async.testing import GENERATED_SPEC, Sandbox
from enterprise_async.testing import _synthesis as synthesis
from enterprise_async.testing._replies import Reply

COMPONENTS = GENERATED_SPEC.components
ADDED = "added_by_a_maintainer"
"""An optional property added to every object schema of the spec, known to no handler's record."""


@frozen
class Seen:
    operation: str
    schema: Any
    data: Any


def _variants() -> set[str]:
    """The schemas a discriminated union chooses among, read from the spec."""
    found: set[str] = set()
    for schema in COMPONENTS.values():
        options = [*schema.get("oneOf", ()), *schema.get("anyOf", ())]
        if "discriminator" in schema and options:
            found.update(option["$ref"].rsplit("/", 1)[-1] for option in options if "$ref" in option)
    return found


STORED = _variants()


def _resolve(schema: Any) -> tuple[str | None, Mapping[str, Any]]:
    name = None
    while isinstance(schema, Mapping) and "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = COMPONENTS[name]
    return name, schema


def _emitted(fields: list[Any]) -> dict[str, Any]:
    """A ``fields`` rule as {name: its own rule or None}."""
    found: dict[str, Any] = {}
    for entry in fields:
        found.update(entry if isinstance(entry, dict) else {entry: None})
    return found


Rule = dict[str, Any] | None
"""The fields an object's serializer emits (None: every documented one)."""


def lacking(seen: Seen, services: bool, counted: Counter[str]) -> list[str]:
    """The documented fields an answer lacks that the rule says it sends, as paths."""
    rules = GENERATED_SPEC.service.get(seen.operation, {}) if services else {}
    fields = _emitted(rules["fields"]) if "fields" in rules else None
    operation = GENERATED_SPEC.operations.get(seen.operation)
    listing = operation is not None and operation.pagination is not None
    missing: list[str] = []

    def walk(
        value: Any, schema: Any, path: str, rule: dict[str, Any] | None, top: bool, stored: bool
    ) -> None:
        name, resolved = _resolve(schema)
        if isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, resolved.get("items", {}), f"{path}[{index}]", rule, False, stored)
            return
        properties = resolved.get("properties", {})
        if not isinstance(value, dict) or not properties:
            return
        stored = stored or name in STORED
        if name is not None and rule is None and fields is not None and not top:
            rule = fields if path.count("[") == 1 else None  # the objects the answer lists
        counted["objects"] += 1
        required = set(resolved.get("required", ()))
        for field, part in properties.items():
            if field in value:
                below = rule.get(field) if rule is not None else None
                walk(value[field], part, f"{path}.{field}", _emitted(below) if below else None, False, stored)
                continue
            if field in required:
                missing.append(f"{path}.{field} (required)")
            elif (
                _resolve(part)[1].get("x-sdk-computed")
                or stored
                or (top and listing)
                or (rule is not None and field not in rule)
            ):
                continue
            else:
                missing.append(f"{path}.{field}")

    walk(seen.data, seen.schema, seen.operation, None, True, False)
    return missing


def tour(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, response_format: str) -> list[Seen]:
    """The answers of the stateful handlers the demo's tour gets, as the server sends them."""
    seen: list[Seen] = []
    original = synthesis.Synthesizer.completer

    def completer(self: Any, name: str, responses: Mapping[int, Any], **shaping: Any) -> Callable[..., Reply]:
        complete = original(self, name, responses, **shaping)

        def recorded(reply: Reply, params: Mapping[str, str]) -> Reply:
            done = complete(reply, params)
            schema = responses.get(done.status)
            if schema is not None and done.data is not None:
                seen.append(Seen(name, schema, done.data))
            return done

        return recorded

    monkeypatch.setattr(synthesis.Synthesizer, "completer", completer)
    console = Console(file=io.StringIO(), width=120)
    out = tmp_path / response_format
    asyncio.run(run_demo(console, seed=0, catalog_items=12, out=out, response_format=response_format))
    return seen


@pytest.mark.parametrize("added", [False, True], ids=["as it is", "with a field added to every schema"])
@pytest.mark.parametrize(("response_format", "services"), [("json", True), ("xml", False)])
def test_every_answer_holds_every_documented_field_it_should(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, response_format: str, services: bool, added: bool
) -> None:
    if added:
        for name, schema in list(COMPONENTS.items()):
            if schema.get("properties"):
                properties = {**schema["properties"], ADDED: {"type": ["string", "null"]}}
                monkeypatch.setitem(COMPONENTS, name, {**schema, "properties": properties})  # type: ignore[index]
    seen = tour(monkeypatch, tmp_path, response_format)
    operations = {answer.operation for answer in seen}
    assert len(operations) >= 12, sorted(operations)  # the tour calls every resource
    counted: Counter[str] = Counter()
    missing = {answer.operation: lacking(answer, services, counted) for answer in seen}
    assert {name: paths[:5] for name, paths in missing.items() if paths} == {}
    assert counted["objects"] > 100
    if added:  # the new field is there wherever the rule says it goes
        assert any(f"'{ADDED}'" in repr(answer.data) for answer in seen)


async def test_a_field_filled_in_reads_the_same_on_every_page_it_is_listed_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A value the sandbox draws for a field its records lack belongs to the object, not to the
    request: the same catalog listed one to a page and all on one page holds the same value."""
    schema = COMPONENTS["Catalog"]
    properties = {**schema["properties"], ADDED: {"type": "integer"}}
    monkeypatch.setitem(COMPONENTS, "Catalog", {**schema, "properties": properties})  # type: ignore[index]
    async with Sandbox(seed=0, profile="reference") as sandbox, sandbox.client() as client:

        async def values(page_size: int) -> dict[str, Any]:
            found: dict[str, Any] = {}
            page = 1
            while True:
                answer: Any = await client.request(
                    "GET", "/enterprise/v2/enterprise-catalogs", params={"page_size": page_size, "page": page}
                )
                found.update({item["uuid"]: item[ADDED] for item in answer["results"]})
                if not answer["next"]:
                    return found
                page += 1

        one_a_page, all_at_once = await values(1), await values(100)
    assert len(one_a_page) > 1
    assert one_a_page == all_at_once
    assert len(set(one_a_page.values())) > 1  # drawn per object, not one value for all
