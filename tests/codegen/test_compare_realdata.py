"""`compare` on the services' real documents (../shared/realdata/schemas/, read in place): nothing
beyond the differences listed in spec/service-differences.yaml, and every operation of the spec
names its service's method and path."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from codegen.compare import KNOWN, SPEC, main
from codegen.compare.documents import find, read_document
from codegen.compare.known import read_known
from codegen.compare.shapes import shape
from codegen.compare.walk import differences
from codegen.validation import problems

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT.parent / "shared" / "realdata" / "schemas"
SERVICES = ("license-manager", "enterprise-access")


@pytest.mark.skipif(not SCHEMAS.is_dir(), reason="../shared/realdata/schemas/ is not here")
@pytest.mark.parametrize("service", SERVICES)
def test_a_real_document_differs_only_where_listed(service: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([str(SCHEMAS / f"{service}.yaml"), "--service", service, "--json"])
    found = json.loads(capsys.readouterr().out)
    assert [item for item in found if item["kind"] != "unresolved"] == []
    assert code == 0


@pytest.mark.skipif(not SCHEMAS.is_dir(), reason="../shared/realdata/schemas/ is not here")
@pytest.mark.parametrize("service", SERVICES)
def test_every_listed_difference_is_still_found(service: str, capsys: pytest.CaptureFixture[str]) -> None:
    """With --all the listed differences come back: the list holds no entry the document has outgrown."""
    main([str(SCHEMAS / f"{service}.yaml"), "--service", service, "--json", "--all"])
    found = {(item["kind"], item["model"], item["field"]) for item in json.loads(capsys.readouterr().out)}
    listed = {entry.key for entry in read_known(KNOWN, service)}
    assert listed
    assert listed - found == set()


@pytest.mark.skipif(not SCHEMAS.is_dir(), reason="../shared/realdata/schemas/ is not here")
@pytest.mark.parametrize("service", SERVICES)
def test_every_operation_of_the_service_is_found_in_its_document(service: str) -> None:
    document = read_document(str(SCHEMAS / f"{service}.yaml"))
    spec = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    assert [item for item in differences(spec, document, service) if item.kind == "operation_missing"] == []


def test_every_operation_names_its_services_method_and_path() -> None:
    """`x-sdk-service` of each operation (the token issuer's aside: it is no service behind the
    gateway) has its service and `endpoint`, ``METHOD /path``."""
    spec = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    missing = []
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method not in ("get", "post", "put", "patch", "delete") or operation.get("x-sdk-internal"):
                continue
            rule = operation.get("x-sdk-service") or {}
            verb, _, where = str(rule.get("endpoint", "")).partition(" ")
            if (
                rule.get("service") not in spec["x-sdk-services"]
                or verb != method.upper()
                or not where.startswith("/")
            ):
                missing.append(f"{method.upper()} {path}")
    assert missing == []


@pytest.mark.parametrize(
    "endpoint", ["/api/v1/subscriptions/", "FETCH /api/v1/subscriptions/", "GET api/v1/x/", 7]
)
def test_an_endpoint_that_is_not_a_method_and_a_path_is_refused_before_generation(endpoint: object) -> None:
    document = copy.deepcopy(yaml.safe_load(SPEC.read_text(encoding="utf-8")))
    document["paths"]["/enterprise/v1/subscriptions"]["get"]["x-sdk-service"]["endpoint"] = endpoint
    found = [f"{problem.pointer}: {problem.message}" for problem in problems(document)]
    assert found == [
        "/paths/~1enterprise~1v1~1subscriptions/get/x-sdk-service/endpoint: must be the service's own method"
        " and path, e.g. `GET /api/v1/subscriptions/{uuid}/`"
    ]


def _field_names(document: dict[str, Any], schema: Any, seen: set[str], names: set[str]) -> None:
    """Every property name of the models an answer's schema reaches."""
    found = shape(document, schema)
    if found.ref in seen:
        return
    if found.ref:
        seen.add(found.ref)
    for name, node in found.properties.items():
        names.add(name)
        _field_names(document, node, seen, names)
    if found.items is not None:
        _field_names(document, found.items, seen, names)


def _listed(fields: list[Any]) -> set[str]:
    names: set[str] = set()
    for entry in fields:
        if isinstance(entry, str):
            names.add(entry)
        else:
            for name, nested in entry.items():
                names |= {name} | _listed(nested)
    return names


@pytest.mark.skipif(not SCHEMAS.is_dir(), reason="../shared/realdata/schemas/ is not here")
@pytest.mark.parametrize("service", SERVICES)
def test_the_sandbox_sends_no_field_the_services_document_lacks(service: str) -> None:
    """The services profile answers with an operation's `x-sdk-service` `fields` only: each is a
    field of a model the service's document gives for that operation's answers."""
    document = read_document(str(SCHEMAS / f"{service}.yaml"))
    spec = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    checked = {}
    for item in spec["paths"].values():
        for operation in item.values():
            rule = operation.get("x-sdk-service") if isinstance(operation, dict) else None
            if not rule or rule.get("service") != service or "fields" not in rule:
                continue
            method, _, path = rule["endpoint"].partition(" ")
            endpoint = find(document, method, path)
            assert endpoint is not None
            names: set[str] = set()
            for answer in endpoint.operation["responses"].values():
                body = (answer.get("content") or {}).get("application/json")
                if body:
                    _field_names(document, body["schema"], set(), names)
            checked[operation["operationId"]] = sorted(_listed(rule["fields"]) - names)
    assert checked
    assert checked == {operation: [] for operation in checked}
