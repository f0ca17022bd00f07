"""`python -m codegen compare` on small hand-written documents: one test per kind of difference and
per quirk of drf-spectacular's output, the exit codes, ``--json``, ``--all`` and the URL form."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from codegen.compare import main

SERVICE = "thing-service"


def ours(
    properties: dict[str, Any],
    *,
    required: list[str] | None = None,
    endpoint: str = "GET /api/v1/things/{thing_uuid}/",
    query: dict[str, Any] | None = None,
    body: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Our spec: one operation at the gateway's path, served by SERVICE at ``endpoint``."""
    thing: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        thing["required"] = required
    operation: dict[str, Any] = {
        "operationId": "things_read",
        "x-sdk-service": {"service": SERVICE, "endpoint": endpoint},
        "parameters": [
            {"name": "thing_uuid", "in": "path", "required": True, "schema": {"type": "string"}},
            *({"name": name, "in": "query", "schema": schema} for name, schema in (query or {}).items()),
        ],
        "responses": {
            "200": {
                "description": "The thing.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}},
            }
        },
    }
    if body is not None:
        operation["requestBody"] = {"content": {"application/json": {"schema": body}}}
    return {
        "openapi": "3.1.0",
        "x-sdk-services": {SERVICE: {"formats": ["application/json"]}},
        "paths": {"/gateway/v1/things/{thing_id}": {"get": operation}},
        "components": {"schemas": {"Thing": thing}},
    }


def theirs(
    properties: dict[str, Any],
    *,
    required: list[str] | None = None,
    path: str = "/api/v1/things/{uuid}/",
    method: str = "get",
    query: dict[str, Any] | None = None,
    body: dict[str, Any] | None = None,
    response: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A service's drf-spectacular document (OpenAPI 3.0) with one operation."""
    thing: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        thing["required"] = required
    answer = response or {
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ThingResponse"}}},
        "description": "",
    }
    operation: dict[str, Any] = {
        "operationId": "api_v1_things_retrieve",
        "parameters": [
            {"in": "path", "name": "uuid", "schema": {"type": "string"}, "required": True},
            *({"in": "query", "name": name, "schema": schema} for name, schema in (query or {}).items()),
        ],
        "responses": {"200": answer},
    }
    if body is not None:
        operation["requestBody"] = {"content": {"application/json": {"schema": body}}}
    return {
        "openapi": "3.0.3",
        "paths": {path: {method: operation}},
        "components": {"schemas": {"ThingResponse": thing, **(extra or {})}},
    }


def run(
    tmp_path: Path, spec: dict[str, Any], document: dict[str, Any] | str, *options: str, known: Any = None
) -> tuple[int, list[dict[str, str]]]:
    """Run compare with ``--json``; the exit code and the differences."""
    (tmp_path / "openapi.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    schema = document if isinstance(document, str) else str(tmp_path / "schema.yaml")
    if not isinstance(document, str):
        (tmp_path / "schema.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    (tmp_path / "known.yaml").write_text(yaml.safe_dump(known or {}), encoding="utf-8")
    arguments = [schema, "--service", SERVICE, "--json", *options]
    arguments += ["--spec", str(tmp_path / "openapi.yaml"), "--known", str(tmp_path / "known.yaml")]
    code = main(arguments)
    return code, []


@pytest.fixture
def compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    def go(spec: dict[str, Any], document: dict[str, Any] | str, *options: str, known: Any = None) -> Any:
        code, _ = run(tmp_path, spec, document, *options, known=known)
        out = capsys.readouterr().out
        return code, json.loads(out) if out.strip() else []

    return go


def kinds(found: list[dict[str, str]]) -> list[tuple[str, str, str]]:
    return [(item["kind"], item["model"], item["field"]) for item in found]


# ---------------------------------------------------------------------- nothing differs


def test_the_same_model_in_both_dialects_differs_in_nothing(compare: Any) -> None:
    spec = ours(
        {"uuid": {"type": "string", "format": "uuid"}, "note": {"type": ["string", "null"]}},
        required=["uuid", "note"],
    )
    document = theirs(
        {
            "uuid": {"type": "string", "format": "uuid", "readOnly": True},
            "note": {"type": "string", "nullable": True},
        },
        required=["uuid", "note"],
    )
    assert compare(spec, document) == (0, [])


# ---------------------------------------------------------------------- one test per kind


def test_a_field_the_service_has_and_the_spec_lacks_is_missing_in_spec(compare: Any) -> None:
    code, found = compare(
        ours({"uuid": {"type": "string"}}), theirs({"uuid": {"type": "string"}, "title": {"type": "string"}})
    )
    assert code == 1
    assert found == [
        {
            "kind": "missing_in_spec",
            "model": "Thing",
            "field": "title",
            "ours": "",
            "theirs": "string",
            "where": "GET /api/v1/things/{uuid}/ 200 #/components/schemas/ThingResponse",
        }
    ]


def test_a_query_parameter_the_service_reads_and_the_operation_lacks_is_missing_in_spec(compare: Any) -> None:
    code, found = compare(ours({}), theirs({}, query={"search": {"type": "string"}}))
    assert (code, kinds(found)) == (1, [("missing_in_spec", "things_read", "?search")])
    assert found[0]["where"] == "GET /api/v1/things/{uuid}/ query"


def test_a_field_of_ours_the_service_no_longer_has_is_missing_in_service(compare: Any) -> None:
    code, found = compare(
        ours({"uuid": {"type": "string"}, "old": {"type": "integer"}}), theirs({"uuid": {"type": "string"}})
    )
    assert (code, kinds(found)) == (1, [("missing_in_service", "Thing", "old")])
    assert found[0]["ours"] == "integer"


@pytest.mark.parametrize(
    ("our_type", "their_type", "shown"),
    [
        ({"type": "integer"}, {"type": "string"}, ("integer", "string")),
        ({"type": "string"}, {"type": "string", "format": "uuid"}, ("string", "string(uuid)")),
        (
            {"type": "string", "format": "date"},
            {"type": "string", "format": "date-time"},
            ("string(date)", "string(date-time)"),
        ),
        (
            {"type": "number"},
            {"type": "string", "format": "decimal", "pattern": "^-?\\d{0,8}(?:\\.\\d{0,2})?$"},
            ("number", "string(decimal)"),
        ),
        ({"type": "object", "properties": {}}, {"type": "array", "items": {}}, ("object", "array")),
    ],
)
def test_types_and_the_counted_formats_differ(
    compare: Any, our_type: Any, their_type: Any, shown: Any
) -> None:
    code, found = compare(ours({"value": our_type}), theirs({"value": their_type}))
    assert (code, kinds(found)) == (1, [("type_differs", "Thing", "value")])
    assert (found[0]["ours"], found[0]["theirs"]) == shown


def test_other_formats_do_not_count(compare: Any) -> None:
    code, _ = compare(
        ours({"mail": {"type": "string"}}), theirs({"mail": {"type": "string", "format": "email"}})
    )
    assert code == 0


def test_nullable_in_one_dialect_and_not_the_other_is_nullable_differs(compare: Any) -> None:
    code, found = compare(
        ours({"note": {"type": "string"}}), theirs({"note": {"type": "string", "nullable": True}})
    )
    assert (code, kinds(found)) == (1, [("nullable_differs", "Thing", "note")])
    assert (found[0]["ours"], found[0]["theirs"]) == ("not nullable", "nullable")


def test_a_field_required_on_one_side_only_is_required_differs(compare: Any) -> None:
    spec = ours({"uuid": {"type": "string"}, "note": {"type": "string"}}, required=["uuid"])
    document = theirs({"uuid": {"type": "string"}, "note": {"type": "string"}}, required=["uuid", "note"])
    code, found = compare(spec, document)
    assert (code, kinds(found)) == (1, [("required_differs", "Thing", "note")])
    assert (found[0]["ours"], found[0]["theirs"]) == ("optional", "required")


def test_a_model_with_no_required_list_is_one_required_differs_naming_theirs(compare: Any) -> None:
    spec = ours({"uuid": {"type": "string"}, "note": {"type": "string"}})
    document = theirs({"uuid": {"type": "string"}, "note": {"type": "string"}}, required=["uuid", "note"])
    code, found = compare(spec, document)
    assert (code, kinds(found)) == (1, [("required_differs", "Thing", "")])
    assert (found[0]["ours"], found[0]["theirs"]) == ("no required list", "note, uuid")


def test_enum_values_one_side_lacks_are_enum_differs(compare: Any) -> None:
    spec = ours({"state": {"type": "string", "enum": ["allocated", "cancelled"]}})
    document = theirs({"state": {"type": "string", "enum": ["allocated", "accepted"]}})
    code, found = compare(spec, document)
    assert (code, kinds(found)) == (1, [("enum_differs", "Thing", "state")])
    assert (found[0]["ours"], found[0]["theirs"]) == ("cancelled", "accepted")


def test_an_operation_whose_service_path_the_document_lacks_is_operation_missing(compare: Any) -> None:
    code, found = compare(ours({}), theirs({}, path="/api/v1/other-things/{uuid}/"))
    assert (code, kinds(found)) == (1, [("operation_missing", "things_read", "")])
    assert found[0]["ours"] == "GET /api/v1/things/{thing_uuid}/"


def test_an_operation_of_another_method_is_missing_too(compare: Any) -> None:
    code, found = compare(ours({}), theirs({}, method="post"))
    assert (code, kinds(found)) == (1, [("operation_missing", "things_read", "")])


def test_a_response_the_document_could_not_resolve_is_unresolved_once_and_no_difference(compare: Any) -> None:
    code, found = compare(
        ours({"uuid": {"type": "string"}}), theirs({}, response={"description": "No response body"})
    )
    assert code == 0
    assert found == [
        {
            "kind": "unresolved",
            "model": "things_read",
            "field": "response 200",
            "ours": "a JSON body",
            "theirs": "No response body",
            "where": "GET /api/v1/things/{uuid}/ 200",
        }
    ]


def test_a_request_body_is_compared_as_sent(compare: Any) -> None:
    """readOnly fields of theirs are not part of a request; writeOnly ones are."""
    spec = ours(
        {}, body={"type": "object", "properties": {"emails": {"type": "array", "items": {"type": "string"}}}}
    )
    document = theirs(
        {},
        body={
            "type": "object",
            "properties": {
                "emails": {"type": "array", "items": {"type": "string"}},
                "uuid": {"type": "string", "readOnly": True},
                "notify": {"type": "boolean", "writeOnly": True},
            },
        },
    )
    code, found = compare(spec, document)
    assert (code, kinds(found)) == (1, [("missing_in_spec", "things_read.request", "notify")])


# ---------------------------------------------------------------------- drf-spectacular's quirks


def test_a_regular_expression_route_matches_the_path_without_its_empty_variable(compare: Any) -> None:
    document = theirs({}, path="/api/v1/{var}things/{thing_uuid}/")
    document["paths"]["/api/v1/{var}things/{thing_uuid}/"]["get"]["parameters"].append(
        {"in": "path", "name": "var", "schema": {"type": "string"}, "required": True, "allowEmptyValue": True}
    )
    assert compare(ours({}), document) == (0, [])


def test_paths_match_by_shape_whatever_the_parameter_names(compare: Any) -> None:
    assert compare(ours({}, endpoint="GET /api/v1/things/{x}/"), theirs({}, path="/api/v1/things/{pk}/")) == (
        0,
        [],
    )


def test_a_same_shaped_path_wins_over_a_regular_expression_route(compare: Any) -> None:
    document = theirs({"title": {"type": "string"}}, path="/api/v1/{var}things/{uuid}/")
    document["paths"]["/api/v1/learner-things/{uuid}/"] = {
        "get": {"responses": {"200": {"description": "No response body"}}}
    }
    code, found = compare(ours({}, endpoint="GET /api/v1/learner-things/{uuid}/"), document)
    assert (code, kinds(found)) == (0, [("unresolved", "things_read", "response 200")])


def test_a_paginated_envelope_is_followed_to_its_items(compare: Any) -> None:
    spec = ours({})
    spec["components"]["schemas"]["ThingPage"] = {
        "type": "object",
        "required": ["count", "results"],
        "properties": {
            "count": {"type": "integer"},
            "results": {"type": "array", "items": {"$ref": "#/components/schemas/Thing"}},
        },
    }
    spec["components"]["schemas"]["Thing"] = {
        "type": "object",
        "required": [],
        "properties": {"uuid": {"type": "string"}},
    }
    spec["paths"]["/gateway/v1/things/{thing_id}"]["get"]["responses"]["200"]["content"]["application/json"][
        "schema"
    ] = {"$ref": "#/components/schemas/ThingPage"}
    page = {
        "type": "object",
        "required": ["count", "results"],
        "properties": {
            "count": {"type": "integer", "example": 123},
            "next": {"type": "string", "nullable": True, "format": "uri"},
            "results": {"type": "array", "items": {"$ref": "#/components/schemas/ThingResponse"}},
        },
    }
    document = theirs(
        {"uuid": {"type": "string", "format": "uuid"}},
        response={
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PaginatedThingList"}}}
        },
        extra={"PaginatedThingList": page},
    )
    code, found = compare(spec, document)
    assert (code, kinds(found)) == (
        1,
        [("missing_in_spec", "ThingPage", "next"), ("type_differs", "Thing", "uuid")],
    )
    assert found[1]["where"].endswith("#/components/schemas/ThingResponse")


def test_read_only_and_write_only_fields_are_read_by_direction(compare: Any) -> None:
    """An answer holds readOnly fields and never writeOnly ones."""
    document = theirs(
        {"uuid": {"type": "string", "readOnly": True}, "secret": {"type": "string", "writeOnly": True}}
    )
    assert compare(ours({"uuid": {"type": "string"}}), document) == (0, [])


def test_nullable_enums_blank_enums_and_all_of_wrappers_read_as_one_field(compare: Any) -> None:
    document = theirs(
        {
            "state": {
                "nullable": True,
                "oneOf": [
                    {"$ref": "#/components/schemas/StateEnum"},
                    {"$ref": "#/components/schemas/BlankEnum"},
                    {"$ref": "#/components/schemas/NullEnum"},
                ],
            },
            "kind": {"allOf": [{"$ref": "#/components/schemas/KindEnum"}], "readOnly": True},
        },
        extra={
            "StateEnum": {"enum": ["open", "closed"], "type": "string"},
            "BlankEnum": {"enum": [""]},
            "NullEnum": {"enum": [None]},
            "KindEnum": {"enum": ["a", "b"], "type": "string"},
        },
    )
    spec = ours(
        {
            "state": {"type": ["string", "null"], "enum": ["open", "closed", "", None]},
            "kind": {"anyOf": [{"$ref": "#/components/schemas/Kind"}, {"type": "string"}]},
        }
    )
    spec["components"]["schemas"]["Kind"] = {"type": "string", "enum": ["a", "b"]}
    assert compare(spec, document) == (0, [])


def test_a_nested_model_is_named_by_our_component(compare: Any) -> None:
    spec = ours({"owner": {"anyOf": [{"$ref": "#/components/schemas/Owner"}, {"type": "null"}]}})
    spec["components"]["schemas"]["Owner"] = {"type": "object", "properties": {"name": {"type": "string"}}}
    document = theirs(
        {"owner": {"allOf": [{"$ref": "#/components/schemas/OwnerResponse"}], "nullable": True}},
        extra={"OwnerResponse": {"type": "object", "properties": {"name": {"type": "integer"}}}},
    )
    code, found = compare(spec, document)
    assert (code, kinds(found)) == (1, [("type_differs", "Owner", "name")])
    assert found[0]["where"].endswith("#/components/schemas/OwnerResponse")


# ---------------------------------------------------------------------- deliberate differences

KNOWN = {
    SERVICE: [
        {
            "kind": "missing_in_spec",
            "model": "Thing",
            "field": "title",
            "why": "gateway",
            "reason": "The gateway strips it.",
        }
    ]
}


def test_a_listed_difference_is_left_out_unless_all(compare: Any) -> None:
    spec, document = ours({}), theirs({"title": {"type": "string"}})
    assert compare(spec, document, known=KNOWN) == (0, [])
    code, found = compare(spec, document, "--all", known=KNOWN)
    assert (code, kinds(found)) == (1, [("missing_in_spec", "Thing", "title")])


@pytest.mark.parametrize(
    "entry",
    [
        {"kind": "missing_in_spec", "model": "Thing", "field": "title", "why": "gateway"},
        {"kind": "missing_in_spec", "model": "Thing", "field": "title", "why": "whim", "reason": "r"},
        {"kind": "missing_in_spec", "model": "Thing", "field": "title", "why": "document", "reason": "r"},
        {"kind": "looks_odd", "model": "Thing", "field": "title", "why": "spec", "reason": "r"},
    ],
)
def test_a_listed_difference_without_its_reason_or_serializer_is_unreadable(
    compare: Any, capsys: pytest.CaptureFixture[str], entry: dict[str, str]
) -> None:
    code, _ = compare(ours({}), theirs({}), known={SERVICE: [entry]})
    assert code == 2


# ---------------------------------------------------------------------- inputs and outputs


AT = "GET /api/v1/things/{uuid}/ 200 #/components/schemas/ThingResponse"


def test_the_text_form_is_one_line_a_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "openapi.yaml").write_text(
        yaml.safe_dump(ours({"old": {"type": "integer"}})), encoding="utf-8"
    )
    (tmp_path / "schema.yaml").write_text(
        yaml.safe_dump(theirs({"new": {"type": "string"}})), encoding="utf-8"
    )
    code = main(
        [
            str(tmp_path / "schema.yaml"),
            "--service",
            SERVICE,
            "--spec",
            str(tmp_path / "openapi.yaml"),
            "--known",
            str(tmp_path / "none.yaml"),
        ]
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert out == [
        f"missing_in_spec Thing.new: ours -; theirs string (at {AT})",
        f"missing_in_service Thing.old: ours integer; theirs - (at {AT})",
    ]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "cannot read"),
        ("paths: [unclosed", "is not YAML or JSON"),
        ("openapi: 3.0.3\n", "not an OpenAPI document"),
    ],
)
def test_an_unreadable_document_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, said: str
) -> None:
    (tmp_path / "openapi.yaml").write_text(yaml.safe_dump(ours({})), encoding="utf-8")
    schema = tmp_path / "schema.yaml"
    if content is not None:
        schema.write_text(content, encoding="utf-8")
    code = main([str(schema), "--service", SERVICE, "--spec", str(tmp_path / "openapi.yaml")])
    err = capsys.readouterr().err
    assert code == 2
    assert said in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_an_unknown_service_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "openapi.yaml").write_text(yaml.safe_dump(ours({})), encoding="utf-8")
    (tmp_path / "schema.yaml").write_text(yaml.safe_dump(theirs({})), encoding="utf-8")
    code = main(
        [str(tmp_path / "schema.yaml"), "--service", "nobody", "--spec", str(tmp_path / "openapi.yaml")]
    )
    assert code == 2
    assert "unknown service 'nobody'" in capsys.readouterr().err


@pytest.fixture
def schema_server() -> Iterator[tuple[str, dict[str, Any]]]:
    """A loopback server answering /api/schema/ with what the test puts in ``served["body"]``."""
    served: dict[str, Any] = {"body": b"", "status": 200}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/api/schema/":
                self.send_error(404)
                return
            self.send_response(served["status"])
            self.send_header("Content-Type", "application/vnd.oai.openapi; charset=utf-8")
            self.end_headers()
            self.wfile.write(served["body"])

        def log_message(self, *_: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", served
    finally:
        server.shutdown()
        server.server_close()


def test_the_schema_is_read_from_a_services_url(
    compare: Any, schema_server: tuple[str, dict[str, Any]]
) -> None:
    base, served = schema_server
    served["body"] = yaml.safe_dump(theirs({"title": {"type": "string"}})).encode()
    code, found = compare(ours({}), f"{base}/api/schema/")
    assert (code, kinds(found)) == (1, [("missing_in_spec", "Thing", "title")])


def test_a_url_that_answers_an_error_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], schema_server: tuple[str, dict[str, Any]]
) -> None:
    base, _ = schema_server
    (tmp_path / "openapi.yaml").write_text(yaml.safe_dump(ours({})), encoding="utf-8")
    code = main([f"{base}/nothing/", "--service", SERVICE, "--spec", str(tmp_path / "openapi.yaml")])
    err = capsys.readouterr().err
    assert code == 2
    assert "HTTP 404" in err
    assert len(err.strip().splitlines()) == 1


def test_a_property_the_sdk_computes_is_no_services(compare: Any) -> None:
    spec = ours({"uuid": {"type": "string"}, "partial": {"type": "boolean", "x-sdk-computed": True}})
    assert compare(spec, theirs({"uuid": {"type": "string"}})) == (0, [])


def test_a_model_or_its_uuid_is_compared_as_the_model(compare: Any) -> None:
    spec = ours(
        {
            "owner": {
                "oneOf": [
                    {"$ref": "#/components/schemas/Owner"},
                    {"type": "string", "format": "uuid"},
                    {"type": "null"},
                ]
            }
        }
    )
    spec["components"]["schemas"]["Owner"] = {"type": "object", "properties": {"name": {"type": "string"}}}
    document = theirs(
        {"owner": {"$ref": "#/components/schemas/OwnerResponse"}},
        extra={
            "OwnerResponse": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "uuid": {"type": "string"}},
            }
        },
    )
    code, found = compare(spec, document)
    assert (code, kinds(found)) == (
        1,
        [("nullable_differs", "Thing", "owner"), ("missing_in_spec", "Owner", "uuid")],
    )


def test_the_sandboxs_record_fields_are_held_to_the_services_records(compare: Any) -> None:
    """`x-sdk-service` `fields` (what the sandbox's services profile sends) against the items of
    the answer's arrays, nested lists included."""
    spec = ours({"created": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}})
    spec["components"]["schemas"]["Item"] = {
        "type": "object",
        "properties": {
            "uuid": {"type": "string"},
            "title": {"type": "string"},
            "actions": {
                "type": "array",
                "items": {"type": "object", "properties": {"kind": {"type": "string"}}},
            },
        },
    }
    operation = spec["paths"]["/gateway/v1/things/{thing_id}"]["get"]
    operation["x-sdk-service"]["fields"] = ["uuid", "gone", {"actions": ["kind", "old"]}]
    item = {
        "type": "object",
        "properties": {
            "uuid": {"type": "string"},
            "title": {"type": "string"},
            "secret": {"type": "string", "writeOnly": True},
            "actions": {"type": "array", "items": {"$ref": "#/components/schemas/Action"}},
        },
    }
    document = theirs(
        {"created": {"type": "array", "items": {"$ref": "#/components/schemas/ItemResponse"}}},
        extra={
            "ItemResponse": item,
            "Action": {"type": "object", "properties": {"kind": {"type": "string"}}},
        },
    )
    code, found = compare(spec, document)
    assert (code, kinds(found)) == (
        1,
        [
            ("missing_in_spec", "things_read", "fields.title"),
            ("missing_in_service", "things_read", "fields.gone"),
            ("missing_in_service", "things_read", "fields.actions.old"),
        ],
    )
    assert found[0]["where"] == "GET /api/v1/things/{uuid}/ 200 #/components/schemas/ItemResponse"


def test_an_answer_under_another_success_status_is_compared_and_named_by_theirs(compare: Any) -> None:
    document = theirs({"title": {"type": "string"}})
    answers = document["paths"]["/api/v1/things/{uuid}/"]["get"]["responses"]
    answers["201"] = answers.pop("200")
    code, found = compare(ours({}), document)
    assert (code, kinds(found)) == (1, [("missing_in_spec", "Thing", "title")])
    assert found[0]["where"] == "GET /api/v1/things/{uuid}/ 201 #/components/schemas/ThingResponse"


def test_parameters_of_our_path_item_count_as_the_operations(compare: Any) -> None:
    spec = ours({})
    item = spec["paths"]["/gateway/v1/things/{thing_id}"]
    item["parameters"] = [{"name": "search", "in": "query", "schema": {"type": "string"}}]
    assert compare(spec, theirs({}, query={"search": {"type": "string"}})) == (0, [])
