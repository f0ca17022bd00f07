"""Holding our operations against a service's document: each operation's query parameters, request
body and answers, followed down to every model and field, one `Difference` for each thing that parts.

A request is read as it is sent (a ``readOnly`` field of theirs is not part of it), an answer as it
is received (a ``writeOnly`` field is not). A type differs when the side that reads cannot take what
the other writes: in an answer, a type of theirs that ours lacks; in a request, one of ours that
theirs lacks.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from attrs import frozen

from codegen.compare.documents import Endpoint, find, parameters
from codegen.compare.records import check_fields
from codegen.compare.shapes import Direction, Shape, UnresolvableError, resolve, shape

KINDS = (
    "missing_in_spec",
    "missing_in_service",
    "type_differs",
    "nullable_differs",
    "required_differs",
    "enum_differs",
    "operation_missing",
    "unresolved",
)


@frozen
class Difference:
    """One place where our spec and the service's document part (or one the document cannot say)."""

    kind: str
    model: str
    field: str
    ours: str
    theirs: str
    where: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.model, self.field)

    def line(self) -> str:
        name = f"{self.model}.{self.field}" if self.field else self.model
        return f"{self.kind} {name}: ours {self.ours or '-'}; theirs {self.theirs or '-'} (at {self.where})"

    def as_json(self) -> dict[str, str]:
        return {
            "kind": self.kind,
            "model": self.model,
            "field": self.field,
            "ours": self.ours,
            "theirs": self.theirs,
            "where": self.where,
        }


def differences(spec: Mapping[str, Any], document: Mapping[str, Any], service: str) -> list[Difference]:
    """Every difference between the operations of ours served by ``service`` and ``document``,
    each (kind, model, field) once, in the order found."""
    walker = _Walker(spec, document)
    for operation_id, operation, endpoint in _our_operations(spec, service):
        walker.operation(operation_id, operation, endpoint)
    return walker.found


def _our_operations(spec: Mapping[str, Any], service: str) -> Iterator[tuple[str, Mapping[str, Any], str]]:
    for path_item in (spec.get("paths") or {}).values():
        for method in ("get", "post", "put", "patch", "delete"):
            operation = path_item.get(method) if isinstance(path_item, dict) else None
            if not isinstance(operation, dict):
                continue
            rule = operation.get("x-sdk-service")
            if isinstance(rule, dict) and rule.get("service") == service and rule.get("endpoint"):
                shared = path_item.get("parameters") or []
                with_shared = {**operation, "parameters": [*shared, *operation.get("parameters", [])]}
                yield str(operation.get("operationId", method)), with_shared, str(rule["endpoint"])


class _Walker:
    def __init__(self, spec: Mapping[str, Any], document: Mapping[str, Any]) -> None:
        self.spec = spec
        self.document = document
        self.found: list[Difference] = []
        self._keys: set[tuple[str, str, str]] = set()
        self._visited: set[tuple[str, str, str]] = set()

    def add(self, kind: str, model: str, field: str, ours: str, theirs: str, where: str) -> None:
        difference = Difference(kind, model, field, ours, theirs, where)
        if difference.key not in self._keys:
            self._keys.add(difference.key)
            self.found.append(difference)

    # ------------------------------------------------------------------ operations

    def operation(self, operation_id: str, ours: Mapping[str, Any], endpoint: str) -> None:
        method, _, path = endpoint.partition(" ")
        theirs = find(self.document, method, path)
        if theirs is None:
            self.add(
                "operation_missing", operation_id, "", endpoint, "", f"paths (no {method} of this shape)"
            )
            return
        self._query(operation_id, ours, theirs)
        self._request(operation_id, ours, theirs)
        self._responses(operation_id, ours, theirs)

    def _query(self, operation_id: str, ours: Mapping[str, Any], theirs: Endpoint) -> None:
        our_params = parameters(self.spec, {}, ours)
        their_params = parameters(self.document, theirs.item, theirs.operation)
        where = f"{theirs.where} query"
        for name, node in their_params.items():
            if name not in our_params:
                self.add("missing_in_spec", operation_id, f"?{name}", "", self._describe_doc(node), where)
        for name in our_params:
            if name not in their_params:
                self.add("missing_in_service", operation_id, f"?{name}", "present", "", where)
        for name in our_params.keys() & their_params.keys():
            ours_shape = self._shape(self.spec, our_params[name].get("schema"))
            theirs_shape = self._shape(self.document, their_params[name].get("schema"))
            if ours_shape is None or theirs_shape is None:
                continue
            self._field(operation_id, f"?{name}", ours_shape, theirs_shape, where, "request")

    def _request(self, operation_id: str, ours: Mapping[str, Any], theirs: Endpoint) -> None:
        our_body = _json_schema(self.spec, ours.get("requestBody"))
        if our_body is None:
            return
        their_body = _json_schema(self.document, theirs.operation.get("requestBody"))
        where = f"{theirs.where} request"
        if their_body is None:
            self.add("unresolved", operation_id, "request", "a JSON body", "no request body", where)
            return
        self._schema(f"{operation_id}.request", "", our_body, their_body, where, "request")

    def _responses(self, operation_id: str, ours: Mapping[str, Any], theirs: Endpoint) -> None:
        their_answers = theirs.operation.get("responses") or {}
        for status, answer in (ours.get("responses") or {}).items():
            if not str(status).startswith("2"):
                continue
            our_body = _json_schema(self.spec, answer)
            if our_body is None:
                continue
            code: Any = str(status) if str(status) in their_answers else status
            if code not in their_answers:  # the one success status of theirs, whatever its number
                success = [each for each in their_answers if str(each).startswith("2")]
                code = success[0] if len(success) == 1 else status
            picked = their_answers.get(code)
            their_body = _json_schema(self.document, picked) if picked is not None else None
            where = f"{theirs.where} {code}"
            if their_body is None:
                said = (picked or {}).get("description") if isinstance(picked, dict) else None
                self.add(
                    "unresolved",
                    operation_id,
                    f"response {status}",
                    "a JSON body",
                    said or "no response",
                    where,
                )
                continue
            self._schema(f"{operation_id}.response", "", our_body, their_body, where, "response")
            check_fields(self.document, operation_id, ours, their_body, where, self.add)

    # ------------------------------------------------------------------ schemas

    def _shape(self, document: Mapping[str, Any], schema: Any) -> Shape | None:
        try:
            return shape(document, schema)
        except UnresolvableError:
            return None

    def _describe_doc(self, parameter: Mapping[str, Any]) -> str:
        found = self._shape(self.document, parameter.get("schema"))
        return found.describe() if found is not None else "unresolved"

    def _schema(
        self, model: str, field: str, ours: Any, theirs: Any, where: str, direction: Direction
    ) -> None:
        """Compare two schemas standing at one place (a body, a field, an array's items)."""
        our_shape = self._shape(self.spec, ours)
        their_shape = self._shape(self.document, theirs)
        if our_shape is None or their_shape is None:
            self.add("unresolved", model, field, "", "a $ref to nothing", where)
            return
        if their_shape.ref:
            where = f"{where.split(' #/')[0]} #/components/schemas/{their_shape.ref}"
        if our_shape.ref:
            model, field = our_shape.ref, ""
        if our_shape.fields_listed and their_shape.fields_listed:
            self._object(model, field, our_shape, their_shape, where, direction)
        if "array" in our_shape.kinds and "array" in their_shape.kinds:
            our_items = self._shape(self.spec, our_shape.items)
            their_items = self._shape(self.document, their_shape.items)
            if our_items is not None and their_items is not None:
                self._field(model, f"{field}[]", our_items, their_items, where, direction)
            self._schema(model, f"{field}[]", our_shape.items, their_shape.items, where, direction)

    def _object(
        self, model: str, prefix: str, ours: Shape, theirs: Shape, where: str, direction: Direction
    ) -> None:
        visit = (f"{model}.{prefix}", theirs.ref or where, direction)
        if visit in self._visited:
            return
        self._visited.add(visit)
        name = (lambda field: f"{prefix}.{field}") if prefix else (lambda field: field)
        their_fields = {key for key in theirs.properties if theirs.sent(key, direction)}
        our_fields = {key for key, node in ours.properties.items() if not _computed(node)}
        for key in theirs.properties:
            if key in their_fields and key not in our_fields:
                described = self._shape(self.document, theirs.properties[key])
                self.add(
                    "missing_in_spec", model, name(key), "", described.describe() if described else "", where
                )
        for key in sorted(our_fields, key=list(ours.properties).index):
            if key not in theirs.properties:
                self.add(
                    "missing_in_service", model, name(key), self._our_type(ours.properties[key]), "", where
                )
        self._required(model, prefix, ours, theirs, their_fields & our_fields, where)
        for key in ours.properties:
            if key not in their_fields or key not in our_fields:
                continue
            our_field = self._shape(self.spec, ours.properties[key])
            their_field = self._shape(self.document, theirs.properties[key])
            if our_field is None or their_field is None:
                self.add("unresolved", model, name(key), "", "a $ref to nothing", where)
                continue
            self._field(model, name(key), our_field, their_field, where, direction)
            self._schema(model, name(key), ours.properties[key], theirs.properties[key], where, direction)

    def _our_type(self, schema: Any) -> str:
        found = self._shape(self.spec, schema)
        return found.describe() if found is not None else ""

    def _required(
        self, model: str, prefix: str, ours: Shape, theirs: Shape, shared: set[str], where: str
    ) -> None:
        theirs_required = sorted((theirs.required or frozenset()) & shared)
        if ours.required is None:
            if theirs_required:
                field = prefix
                self.add(
                    "required_differs", model, field, "no required list", ", ".join(theirs_required), where
                )
            return
        name = (lambda field: f"{prefix}.{field}") if prefix else (lambda field: field)
        for key in sorted(shared):
            ours_says, theirs_says = key in ours.required, key in (theirs.required or frozenset())
            if ours_says != theirs_says:
                said = {True: "required", False: "optional"}
                self.add("required_differs", model, name(key), said[ours_says], said[theirs_says], where)

    def _field(
        self, model: str, field: str, ours: Shape, theirs: Shape, where: str, direction: Direction
    ) -> None:
        """The scalar facts of one field: its type, format, nullability and enum."""
        if ours.kinds and theirs.kinds:
            reader, writer = (ours, theirs) if direction == "response" else (theirs, ours)
            if not writer.kinds <= reader.kinds or ours.format != theirs.format:
                self.add("type_differs", model, field, _bare(ours), _bare(theirs), where)
        if ours.nullable != theirs.nullable:
            self.add("nullable_differs", model, field, _null(ours), _null(theirs), where)
        if ours.enum is not None and theirs.enum is not None and ours.enum != theirs.enum:
            only_ours = ", ".join(sorted(map(str, ours.enum - theirs.enum)))
            only_theirs = ", ".join(sorted(map(str, theirs.enum - ours.enum)))
            self.add("enum_differs", model, field, only_ours, only_theirs, where)


def _computed(node: Any) -> bool:
    """A property the SDK sets itself (``x-sdk-computed``): no service sends it."""
    return isinstance(node, dict) and bool(node.get("x-sdk-computed"))


def _bare(found: Shape) -> str:
    kinds = "|".join(sorted(found.kinds))
    return f"{kinds}({found.format})" if found.format else kinds


def _null(found: Shape) -> str:
    return "nullable" if found.nullable else "not nullable"


def _json_schema(document: Mapping[str, Any], node: Any) -> Any:
    """The JSON schema of a request body or response (its ``$ref`` followed), or None."""
    try:
        while isinstance(node, dict) and "$ref" in node:
            node = resolve(document, str(node["$ref"]))
    except UnresolvableError:
        return None
    content = node.get("content") if isinstance(node, dict) else None
    if not isinstance(content, dict):
        return None
    for media, body in content.items():
        if str(media).split(";")[0].strip() in ("application/json", "*/*") and isinstance(body, dict):
            return body.get("schema")
    return None
