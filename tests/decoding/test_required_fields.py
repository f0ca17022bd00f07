"""What the spec says the services guarantee (`required`), checked against their real payloads.

Every response schema lists its `required` properties with the `# service:` note that names where
the guarantee comes from. No record of `../shared/realdata/*.json` (read in place) may lack a field
its schema calls required, nor send null where the schema allows none. And an answer that breaks
the promise is an error that names the model and the field, never a silent None.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest
import yaml

from enterprise_async import models
from enterprise_async._decoding.fields import WIRE, model_fields, wire_name
from enterprise_async.errors import ResponseDecodeError
from enterprise_async.models import from_dict
from tests.decoding.test_realdata import is_document

ROOT = Path(__file__).resolve().parents[2]
REALDATA = ROOT.parent / "shared" / "realdata"
SPEC = ROOT / "spec" / "openapi.yaml"

REQUEST_ONLY = frozenset({"BulkRevokeFilter"})
"""Object schemas that only describe what the SDK sends."""


def _schemas() -> Mapping[str, Any]:
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    schemas: Mapping[str, Any] = document["components"]["schemas"]
    return schemas


def _response_objects() -> list[str]:
    return sorted(
        name
        for name, schema in _schemas().items()
        if schema.get("type") == "object" and "properties" in schema and name not in REQUEST_ONLY
    )


def _nullable(schema: Mapping[str, Any]) -> bool:
    kinds = schema.get("type")
    if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
        return True
    alternatives = schema.get("oneOf", []) + schema.get("anyOf", [])
    return any(_nullable(alternative) for alternative in alternatives)


def test_every_response_schema_lists_what_is_required_with_its_source() -> None:
    lines = SPEC.read_text(encoding="utf-8").splitlines()
    where: dict[str, int] = {}
    current = None
    for number, line in enumerate(lines):
        if match := re.fullmatch(r"    ([A-Za-z0-9_]+):\s*", line):
            current = match.group(1)
        if line.startswith("      required:") and current is not None:
            where[current] = number
    schemas = _schemas()
    for name in _response_objects():
        schema = schemas[name]
        assert "required" in schema, f"{name} lists no `required`"
        assert set(schema["required"]) <= set(schema["properties"]), name
        assert name in where, name
        above = lines[where[name] - 1].strip()
        assert above.startswith("# service: "), f"{name}: no `# service:` note above `required:`"


def _notes() -> dict[str, str]:
    """Each response object schema's ``# service:`` note, the line above its ``required:``."""
    lines = SPEC.read_text(encoding="utf-8").splitlines()
    notes: dict[str, str] = {}
    current = None
    for number, line in enumerate(lines):
        if match := re.fullmatch(r"    ([A-Za-z0-9_]+):\s*", line):
            current = match.group(1)
        if line.startswith("      required:") and current is not None:
            notes[current] = lines[number - 1].strip()
    return notes


def test_every_guarantee_names_the_line_of_code_that_makes_it() -> None:
    """spec/README.md, "Required by a written rule": a required field is there because a line of the
    producing code emits it (or a standard the service follows); stored JSON says so."""
    notes, schemas = _notes(), _schemas()
    unnamed = [
        name
        for name in _response_objects()
        if schemas[name]["required"]
        and not re.search(r"\.(py|yaml):\d+|RFC \d+", notes[name])
        and "stored JSON" not in notes[name]
    ]
    assert unnamed == []


def _catalog_item_schemas() -> set[str]:
    """Every object schema a catalog item can hold: its variants and what they nest, at any depth."""
    schemas, found, todo = _schemas(), set(), ["ContentItem"]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        todo += re.findall(r"#/components/schemas/([A-Za-z0-9_]+)", json.dumps(schemas[name]))
    return {name for name in found if name in _response_objects()}


def test_stored_json_guarantees_only_a_catalog_items_content_key() -> None:
    """enterprise-catalog serves an item's json_metadata as stored and edx-enterprise passes
    course-discovery's documents on: only the content key is held against an item, and nothing
    inside it (an entitlement's price, an image's src, an organization's uuid, a program's title)."""
    schemas = _schemas()
    held = {name: schemas[name]["required"] for name in _catalog_item_schemas() if schemas[name]["required"]}
    assert held == {"Course": ["key"], "CourseRun": ["key"], "Program": ["uuid"]}
    for name in _catalog_item_schemas():
        assert "stored JSON" in _notes()[name], name
    assert {"Entitlement", "Image", "Organization", "Subject", "Staff", "Seat"} <= _catalog_item_schemas()


def test_the_identities_every_service_sends_are_required() -> None:
    schemas = _schemas()
    for name, field in [
        ("Catalog", "uuid"),
        ("Course", "key"),
        ("SubscriptionPlan", "uuid"),
        ("Assignment", "uuid"),
        ("BulkEnrollmentJob", "job_id"),
        ("AssignmentConfiguration", "uuid"),
    ]:
        assert field in schemas[name]["required"], (name, field)
        assert not _nullable(schemas[name]["properties"][field]), (name, field)


def _records() -> Iterator[tuple[str, str, Any]]:
    """Every record but the documents that leave out what the service always sends (refused, named:
    ``tests/decoding/test_realdata.py``, ``DOCUMENTS``)."""
    for path in sorted(REALDATA.glob("*.json")):
        for record in json.loads(path.read_text(encoding="utf-8")):
            if not is_document(record):
                yield f"{path.name}: {record['name']}", record["model"], record["payload"]


def _models_in(value: Any) -> Iterator[Any]:
    if isinstance(value, list):
        for item in value:
            yield from _models_in(item)
    elif attrs.has(type(value)):
        yield value
        for field in model_fields(type(value)):
            yield from _models_in(getattr(value, field.name))


@pytest.mark.skipif(not sorted(REALDATA.glob("*.json")), reason=f"no real payloads at {REALDATA}")
def test_no_real_payload_lacks_a_required_field_or_sends_it_null() -> None:
    schemas = _schemas()
    broken: list[str] = []
    checked = 0
    for name, model, payload in _records():
        decoded = from_dict(getattr(models, model), payload)
        for found in _models_in(decoded):
            schema = schemas.get(type(found).__name__, {})
            record = getattr(found, WIRE)
            for field in model_fields(type(found)):
                wire = wire_name(field)
                if wire not in schema.get("required", ()):
                    continue
                checked += 1
                if wire in record.left_out:
                    broken.append(f"{name}: {type(found).__name__}.{wire} left out")
                elif getattr(found, field.name) is None and not _nullable(schema["properties"][wire]):
                    broken.append(f"{name}: {type(found).__name__}.{wire} null")
    assert not broken, "\n".join(broken)
    assert checked > 5000  # every record, and the models inside them, were looked at


def test_a_model_lacking_a_required_field_names_the_model_and_the_field() -> None:
    with pytest.raises(ResponseDecodeError, match=r"Catalog\.uuid is required and was left out"):
        from_dict(models.Catalog, {"title": "x", "enterprise_customer": "c"})
    with pytest.raises(ResponseDecodeError, match=r"Catalog\.title is required and was sent as null"):
        from_dict(models.Catalog, {"uuid": "u", "title": None, "enterprise_customer": "c"})


def test_a_required_nullable_field_may_be_null_but_not_left_out() -> None:
    plan = {"usd": None, "usd_cents": None}
    assert from_dict(models.ListPrice, plan).usd is None
    with pytest.raises(ResponseDecodeError, match=r"ListPrice\.usd_cents is required and was left out"):
        from_dict(models.ListPrice, {"usd": 1.5})


def test_an_item_lacking_a_required_field_is_named_by_its_place_in_the_page() -> None:
    catalog = {"uuid": "u", "title": "t", "enterprise_customer": "c"}
    page = {"count": 2, "next": None, "previous": None, "results": [catalog, {"title": "t2"}]}
    with pytest.raises(ResponseDecodeError, match=r"results\[1\]: Catalog\.uuid is required"):
        from_dict(models.CatalogPage, page)


def test_a_nested_model_lacking_a_required_field_is_never_kept_as_sent() -> None:
    assignment = {
        "uuid": "a",
        "assignment_configuration": "b",
        "learner_email": "learner@example.com",
        "lms_user_id": None,
        "content_key": "k",
        "parent_content_key": None,
        "is_assigned_course_run": False,
        "content_title": None,
        "content_quantity": -100,
        "state": "allocated",
        "transaction_uuid": None,
        "actions": [{"uuid": "x", "created": "2024-01-01T00:00:00Z"}],
        "earliest_possible_expiration": {"date": "2024-01-01T00:00:00Z", "reason": "r"},
    }
    with pytest.raises(ResponseDecodeError, match=r"actions\[0\]: AssignmentAction\.modified is required"):
        from_dict(models.Assignment, assignment)
    with pytest.raises(ResponseDecodeError, match=r"\[0\]\.actions\[0\]: AssignmentAction\.modified"):
        from_dict(list[models.Assignment], [assignment])


def test_a_content_item_lacking_its_key_is_an_error_whatever_its_variant() -> None:
    with pytest.raises(ResponseDecodeError, match=r"CourseRun\.key is required and was left out"):
        from_dict(models.ContentItem, {"content_type": "courserun", "title": "x"})  # type: ignore[arg-type]
