"""Read the paths of `spec/` into operation descriptions (``OperationSpec``, ``ResourceSpec``).

What they hold becomes the operation table (`_generated/operations.py`: every documented rule
written down as data for the runtime: parameters and their JSON Schema constraints, body rules,
status outcomes, pagination) and the resources (`_generated/resources.py`: thin typed methods that
hand their arguments to the runtime together with their operation); ``rendering`` writes both.
``spec_reader`` reads the schemas, ``operation_extensions`` an operation's ``x-sdk-*`` rules.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml
from attrs import field, frozen

from codegen import operation_extensions as extensions
from codegen.spec_reader import (
    ERROR_SCHEMA,
    SCHEMA_PREFIX,
    Schema,
    SpecError,
    SpecReader,
    literal_alias,
    primary_type,
)

HTTP_METHODS = ("get", "post", "put", "patch", "delete")


@frozen
class Argument:
    """One argument of a resource method: a path/query parameter or a body field."""

    name: str
    location: str  # path | query | body
    hint: str
    rule: str
    required: bool
    positional: bool
    description: str
    explode: bool = True
    wire: str | None = None
    """The parameter's name on the wire when the argument is named otherwise (``x-sdk-argument``)."""
    alias: tuple[str, str] | None = None
    """The name and ``Literal[...]`` of the closed enum the argument takes, when the spec names it."""


@frozen
class OperationSpec:
    """Everything the templates need about one endpoint."""

    constant: str
    name: str
    resource: str
    method_name: str
    http_method: str
    path: str
    summary: str
    description: str
    arguments: tuple[Argument, ...]
    body_rule: str | None
    outcomes: tuple[tuple[int, str, str], ...]
    result_hint: str
    pagination: str | None
    item_hint: str | None
    page_hint: str | None
    retry_statuses: tuple[int, ...] = ()
    identity: str | None = None
    json_fallback_statuses: tuple[int, ...] = ()
    empty_statuses: tuple[int, ...] = ()
    """Statuses answered without a body whose result is a model built empty (``x-sdk-empty-result``)."""
    chunking: str | None = None
    """The ``Chunking(...)`` source of ``x-sdk-chunks``: the operation has an ``..._in_chunks`` method."""
    chunk_fields: tuple[str, ...] = ()
    """The arrays ``..._in_chunks`` cuts: it takes any iterable of items for them."""
    job_results: str | None = None
    """The ``JobResults(...)`` source of ``x-sdk-job-results``: the operation reports on a job whose
    results file a second method (``results_method``) waits for and reads."""
    results_method: str | None = None
    results_hint: str | None = None
    """The model of one row of the results file."""
    limit_refusals: tuple[str, ...] = ()
    """The ``LimitRefusal(...)`` sources of the operation's ``x-sdk-limit-refusal`` responses."""
    returns: str = ""
    """What the method gives, for its docstring: the success answers' descriptions."""
    raises: tuple[tuple[str, str], ...] = ()
    """The error each documented failure status raises, with what the spec says it means."""

    @property
    def positional(self) -> tuple[Argument, ...]:
        return tuple(argument for argument in self.arguments if argument.positional)

    @property
    def keyword(self) -> tuple[Argument, ...]:
        return tuple(argument for argument in self.arguments if not argument.positional)

    @property
    def params(self) -> tuple[Argument, ...]:
        return tuple(argument for argument in self.arguments if argument.location != "body")


@frozen
class ResourceSpec:
    """A client namespace (a tag of the spec) and its methods."""

    name: str
    class_name: str
    description: str
    operations: tuple[OperationSpec, ...] = field(factory=tuple)


@frozen
class RequestIds:
    """How answers name their request: the headers, in order of preference
    (``x-sdk-request-id-headers``), and what such a header holds when it names none
    (``x-sdk-request-id-placeholders``)."""

    headers: tuple[str, ...] = ()
    placeholders: tuple[str, ...] = ()
    sent: str | None = None
    """The header each request sends its own id in (``x-sdk-request-id-header``)."""


def read_request_ids(spec_path: Path) -> RequestIds:
    """The spec's request-id headers and placeholders, and the header a request sends its id in."""
    document = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    return RequestIds(
        tuple(document.get("x-sdk-request-id-headers", ())),
        tuple(document.get("x-sdk-request-id-placeholders", ())),
        document.get("x-sdk-request-id-header"),
    )


def read_operations(spec_path: Path) -> tuple[ResourceSpec, ...]:
    """All resources of the spec, with their operations, in the order of the spec's tags."""
    document = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    reader = SpecReader(document)
    operations = [
        _located(reader, path, method, node)
        for path, method, node in _iter_operations(document)
        if not node.get("x-sdk-internal")
    ]
    resources = []
    for tag in document.get("tags", ()):
        members = tuple(operation for operation in operations if operation.resource == tag["name"])
        if members:
            resources.append(
                ResourceSpec(
                    name=tag["name"],
                    class_name=_camel(tag["name"]) + "Resource",
                    description=tag.get("description", ""),
                    operations=members,
                )
            )
    return tuple(resources)


def _located(reader: SpecReader, path: str, method: str, node: Schema) -> OperationSpec:
    """``_operation``, its ``SpecError``s located at the operation."""
    try:
        return _operation(reader, path, method, node)
    except SpecError as error:
        if error.pointer:
            raise
        escaped = path.replace("~", "~0").replace("/", "~1")
        raise SpecError(str(error), f"/paths/{escaped}/{method}") from None


def _iter_operations(document: Mapping[str, Any]) -> Iterator[tuple[str, str, Schema]]:
    for path, item in document["paths"].items():
        for method in HTTP_METHODS:
            if method in item:
                yield path, method, item[method]


def _required_by_service(body_schema: Schema, node: Schema) -> Schema:
    """The body schema with the fields its service requires (``x-sdk-service: body-required``)
    added to ``required``: the signature asks for them and the client refuses a call without
    them, before anything is sent, as the service would (400 "This field is required")."""
    extra = (node.get("x-sdk-service") or {}).get("body-required", ())
    known = list(body_schema.get("required", ()))
    added = [name for name in extra if name not in known]
    if not added:
        return body_schema
    return {**body_schema, "required": [*known, *added]}


def _operation(reader: SpecReader, path: str, method: str, node: Schema) -> OperationSpec:
    resource = node["tags"][0]
    method_name = node.get("x-sdk-method")
    if not method_name or not method_name.isidentifier() or keyword.iskeyword(method_name):
        raise SpecError(f"{method.upper()} {path}: x-sdk-method must name a Python method")
    pagination = node.get("x-sdk-pagination")
    driven = {pagination.get("page_param", "page"), pagination.get("offset_param")} if pagination else set()
    arguments = [
        _parameter_argument(reader, reader.resolve(parameter))
        for parameter in node.get("parameters", ())
        if reader.resolve(parameter)["name"] not in driven
    ]
    body_rule = None
    body_schema: Schema = {}
    if "requestBody" in node:
        body_schema = _required_by_service(_json_body_schema(reader, node["requestBody"]), node)
        body_rule = reader.object_rule(body_schema)
        required = set(body_schema.get("required", ()))
        arguments.extend(
            Argument(
                name=name,
                location="body",
                hint=reader.hint(prop),
                rule=reader.rule(prop),
                required=name in required,
                positional=False,
                description=prop.get("description", ""),
            )
            for name, prop in body_schema.get("properties", {}).items()
        )
    _check_names(path, arguments)
    outcomes = _outcomes(reader, node)
    success = sorted({model for status, model, _ in outcomes if 200 <= status < 300})
    result_hint = success[0] if len(success) == 1 else "Any"  # "None": every success has no body
    constant = node["operationId"].upper()
    page_hint = item_hint = pagination_source = None
    if pagination:
        page_hint, item_hint, pagination_source = extensions.pagination(reader, result_hint, pagination, node)
    return OperationSpec(
        constant=constant,
        name=f"{resource}.{method_name}",
        resource=resource,
        method_name=method_name,
        http_method=method.upper(),
        path=path,
        summary=node.get("summary", "").strip(),
        description=node.get("description", "").strip(),
        arguments=tuple(sorted(arguments, key=lambda argument: not argument.positional)),
        body_rule=body_rule,
        outcomes=tuple(outcomes),
        result_hint=result_hint,
        pagination=pagination_source,
        item_hint=item_hint,
        page_hint=page_hint,
        retry_statuses=tuple(sorted(reader.retry_statuses | extensions.retried_statuses(node))),
        identity=extensions.identity(node.get("x-sdk-identity")),
        json_fallback_statuses=tuple(sorted(extensions.marked_statuses(node, "x-sdk-json-fallback"))),
        empty_statuses=extensions.empty_statuses(reader, node),
        chunking=extensions.chunking(node.get("x-sdk-chunks"), body_schema),
        chunk_fields=extensions.chunk_fields(node.get("x-sdk-chunks")),
        job_results=extensions.job_results(reader, node.get("x-sdk-job-results")),
        results_method=(node.get("x-sdk-job-results") or {}).get("method"),
        results_hint=extensions.results_hint(reader, node.get("x-sdk-job-results")),
        limit_refusals=extensions.limit_refusals(node),
        returns=extensions.returns(reader, node),
        raises=extensions.raises(reader, node),
    )


def _parameter_argument(reader: SpecReader, parameter: Schema) -> Argument:
    location = parameter["in"]
    if location not in ("path", "query"):
        raise SpecError(f"parameter {parameter['name']}: only path and query parameters are supported")
    required = bool(parameter.get("required")) or location == "path"
    schema = parameter.get("schema", {})
    return Argument(
        name=parameter.get("x-sdk-argument", parameter["name"]),
        location=location,
        hint=reader.hint(schema),
        rule=reader.rule(schema),
        required=required,
        positional=required,
        description=parameter.get("description", ""),
        explode=parameter.get("explode", parameter.get("style", "form") == "form"),
        wire=parameter["name"] if "x-sdk-argument" in parameter else None,
        alias=literal_alias(schema),
    )


def _json_body_schema(reader: SpecReader, body: Schema) -> Schema:
    body = reader.resolve(body)
    media = body.get("content", {}).get("application/json")
    if not media:
        raise SpecError("request bodies must be application/json")
    schema = reader.resolve(media["schema"])
    if primary_type(schema) != "object":
        raise SpecError("request bodies must be objects")
    return schema


def _outcomes(reader: SpecReader, node: Schema) -> list[tuple[int, str, str]]:
    outcomes = []
    for status, response in node.get("responses", {}).items():
        if not str(status).isdigit():
            continue
        resolved = reader.resolve(response)
        model = reader.response_model(resolved) or reader.ref_name(resolved.get("x-sdk-empty-result", {}))
        if model == ERROR_SCHEMA.removeprefix(SCHEMA_PREFIX):
            continue  # the generic error body: the status's error class says all there is
        fields = resolved.get("x-sdk-result", {})
        fields_source = "{" + ", ".join(f"{key!r}: {value!r}" for key, value in fields.items()) + "}"
        outcomes.append((int(status), model or "None", fields_source))
    return sorted(outcomes)


def _check_names(path: str, arguments: list[Argument]) -> None:
    seen: set[str] = set()
    for argument in arguments:
        if not argument.name.isidentifier() or keyword.iskeyword(argument.name):
            raise SpecError(f"{path}: {argument.name!r} cannot be a Python argument name")
        if argument.name in seen:
            raise SpecError(f"{path}: {argument.name!r} appears twice (path, query and body share names)")
        seen.add(argument.name)


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[_\-\s]+", name))
