"""The response schema table the generator writes for the sandbox follows the spec: a new
endpoint's success schemas and its security reach ``_generated/schemas.py``."""

from __future__ import annotations

import pathlib
from typing import Any

import yaml

from codegen.pipeline import SPEC
from codegen.schemas import read_schemas
from enterprise_async._generated import schemas
from enterprise_async._generated.operations import OPERATIONS

NEW_PATH = "/enterprise/v1/ledger-entries"


def _spec_with_new_endpoint(tmp_path: pathlib.Path, **extra: Any) -> pathlib.Path:
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    document["paths"][NEW_PATH] = {
        "post": {
            "tags": ["policies"],
            "operationId": "policies_record_entry",
            "x-sdk-method": "record_entry",
            "responses": {
                "201": {
                    "description": "Recorded.",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Catalog"}}},
                },
                "400": {"description": "Refused."},
            },
            **extra,
        }
    }
    path = tmp_path / "openapi.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def test_the_committed_table_has_the_responses_of_every_operation() -> None:
    assert set(schemas.RESPONSES) == set(OPERATIONS)


def test_every_operation_documents_a_success_status() -> None:
    assert all(schemas.RESPONSES[name] for name in OPERATIONS)


def test_a_new_endpoint_gets_its_success_schemas_by_status(tmp_path: pathlib.Path) -> None:
    table = read_schemas(_spec_with_new_endpoint(tmp_path))
    assert table["responses"]["policies.record_entry"] == {201: {"$ref": "#/components/schemas/Catalog"}}


def test_a_new_endpoint_needs_a_token_by_default(tmp_path: pathlib.Path) -> None:
    table = read_schemas(_spec_with_new_endpoint(tmp_path))
    assert "policies.record_entry" not in table["unauthenticated"]


def test_an_endpoint_with_empty_security_needs_no_token(tmp_path: pathlib.Path) -> None:
    table = read_schemas(_spec_with_new_endpoint(tmp_path, security=[]))
    assert table["unauthenticated"] == ["policies.record_entry"]


def test_documentation_keys_are_left_out_of_the_table() -> None:
    assert not [name for name, schema in schemas.COMPONENTS.items() if "description" in schema]


def test_a_field_named_description_stays_in_the_table() -> None:
    assert [
        name for name, schema in schemas.COMPONENTS.items() if "description" in schema.get("properties", {})
    ]
