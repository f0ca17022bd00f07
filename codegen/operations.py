"""Read the paths of `spec/` into operation descriptions (``OperationSpec``, ``ResourceSpec``).

What they hold becomes the operation table (`_generated/operations.py`: every documented rule
written down as data for the runtime: parameters and their JSON Schema constraints, body rules,
status outcomes, pagination) and the resources (`_generated/resources.py`: thin typed methods that
hand their arguments to the runtime together with their operation); ``rendering`` writes both.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml
from attrs import field, frozen

ERROR_SCHEMA = "#/components/schemas/ErrorBody"
HTTP_METHODS = ("get", "post", "put", "patch", "delete")
SCHEMA_PREFIX = "#/components/schemas/"

Schema = Mapping[str, Any]


class SpecError(Exception):
    """The spec breaks a convention the generator relies on; ``pointer`` says where (JSON pointer)."""

    def __init__(self, message: str, pointer: str = "") -> None:
        super().__init__(message)
        self.pointer = pointer


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


class SpecReader:
    """Resolves references of one OpenAPI document and turns schemas into rules and type hints."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.schemas: Mapping[str, Schema] = document["components"]["schemas"]
        self.retry_statuses: frozenset[int] = frozenset(
            int(status) for status in document.get("x-sdk-retry-statuses", ())
        )
        self.past_last_page: Mapping[str, Any] = document.get("x-sdk-past-last-page", {})
        """The answer to a page past the last one (``status``, ``detail``); none when unsaid."""

    # ------------------------------------------------------------------ references
    def resolve(self, node: Schema) -> Schema:
        while "$ref" in node:
            node = self._lookup(node["$ref"])
        return node

    def _lookup(self, ref: str) -> Schema:
        if not ref.startswith("#/"):
            raise SpecError(f"only local references are supported: {ref}")
        node: Any = self.document
        for part in ref[2:].split("/"):
            node = node[part]
        return node  # type: ignore[no-any-return]

    @staticmethod
    def ref_name(node: Schema) -> str | None:
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(SCHEMA_PREFIX):
            return ref.removeprefix(SCHEMA_PREFIX)
        return None

    def is_enum(self, name: str) -> bool:
        return "enum" in self.schemas[name]

    def open_enum(self, schema: Schema) -> str | None:
        """The enum of ``anyOf: [{$ref: Enum}, {type: string}]``, the spec's way to write an open enum."""
        variants = schema.get("anyOf", ())
        for variant in variants:
            name = self.ref_name(variant)
            if name and self.is_enum(name):
                return name
        return None

    # ------------------------------------------------------------------ type hints
    def hint(self, schema: Schema) -> str:
        """The Python type a resource method accepts for a value of this schema."""
        if enum := self.open_enum(schema):
            return f"{enum} | str"
        if name := self.ref_name(schema):
            if self.is_enum(name):
                return f"{name} | str"
            return f"{name} | Mapping[str, Any]"
        kind = _primary_type(schema)
        if kind == "array":
            return f"Sequence[{self.hint(schema.get('items', {}))}]"
        return {
            "string": "str",
            "integer": "int",
            "number": "float",
            "boolean": "bool",
            "object": "Mapping[str, Any]",
        }.get(kind, "Any")

    # ------------------------------------------------------------------ rules
    def rule(self, schema: Schema) -> str:
        """Source of a ``Rule(...)`` for the schema."""
        if enum := self.open_enum(schema):
            return _call("Rule", ["'string'"], {"enum": enum})
        if name := self.ref_name(schema):
            target = self.schemas[name]
            if self.is_enum(name):
                return _call("Rule", ["'string'"], {"enum": name})
            return self.object_rule(target, model=name)
        kind = _primary_type(schema)
        if kind == "object" and "properties" in schema:
            return self.object_rule(schema)
        options: dict[str, str] = {}
        if _nullable(schema):
            options["nullable"] = "True"
        for key, option in (
            ("format", "format"),
            ("const", "const"),
            ("pattern", "pattern"),
        ):
            if key in schema:
                options[option] = repr(schema[key])
        for key, option in (
            ("minimum", "minimum"),
            ("maximum", "maximum"),
            ("minLength", "min_length"),
            ("minItems", "min_items"),
            ("maxItems", "max_items"),
        ):
            if key in schema:
                options[option] = repr(schema[key])
        if kind == "array":
            options["items"] = self.rule(schema.get("items", {}))
        return _call("Rule", [repr(kind)], options)

    def object_rule(self, schema: Schema, *, model: str | None = None) -> str:
        properties = schema.get("properties", {})
        options: dict[str, str] = {}
        if properties:
            entries = ", ".join(f"{name!r}: {self.rule(prop)}" for name, prop in properties.items())
            options["properties"] = "{" + entries + "}"
        if required := schema.get("required"):
            options["required"] = "frozenset({" + ", ".join(repr(name) for name in required) + "})"
        if schema.get("additionalProperties") is False:
            options["closed"] = "True"
        if model:
            options["model"] = model
        if checks := self.checks(schema):
            options["checks"] = "(" + "".join(f"{check}, " for check in checks) + ")"
        if wire := schema.get("x-sdk-wire"):
            options["wire"] = f"NamedValue({wire['name_field']!r}, {wire['value_field']!r})"
        return _call("Rule", ["'object'"], options)

    def checks(self, schema: Schema) -> list[str]:
        """Cross-field rules of an object schema, as ``Check`` sources."""
        found: list[str] = []
        exclusive = schema.get("not", {}).get("required")
        if exclusive:
            found.append(f"NeverTogether({tuple(exclusive)!r})")
        alternatives = schema.get("anyOf", ())
        if alternatives and all(set(option) == {"required"} for option in alternatives):
            fields = tuple(name for option in alternatives for name in option["required"])
            found.append(f"AtLeastOneOf({fields!r})")
        if combined := schema.get("x-sdk-max-combined-items"):
            found.append(
                f"MaxCombinedItems({tuple(combined['fields'])!r}, {combined['maximum']!r}, "
                f"{combined.get('description', '')!r})"
            )
        if product := schema.get("x-sdk-max-product-items"):
            found.append(
                f"MaxProductItems({tuple(product['fields'])!r}, {product['maximum']!r}, "
                f"{product.get('description', '')!r})"
            )
        return found

    # ------------------------------------------------------------------ responses
    def response_model(self, response: Schema) -> str | None:
        """The model a response body decodes to, or None when the spec leaves the body open."""
        response = self.resolve(response)
        content = response.get("content", {})
        media = content.get("application/json") or next(iter(content.values()), None)
        if not media:
            return None
        schema = media.get("schema", {})
        if name := self.ref_name(schema):
            return name
        if _primary_type(schema) == "array" and (name := self.ref_name(schema.get("items", {}))):
            return f"list[{name}]"
        variants = [
            variant
            for variant in schema.get("oneOf", schema.get("anyOf", ()))
            if variant.get("$ref") != ERROR_SCHEMA
        ]
        if len(variants) == 1 and (name := self.ref_name(variants[0])):
            return name
        if not schema:
            return None
        raise SpecError(f"cannot name the model of response schema {schema!r}")

    def page_model(self, name: str) -> str:
        """The envelope class of a list response (the object variant of ``oneOf`` envelope-or-array)."""
        schema = self.schemas[name]
        if "properties" in schema:
            return name
        for variant in schema.get("oneOf", ()):
            if (ref := self.ref_name(variant)) and "properties" in self.schemas[ref]:
                return ref
        raise SpecError(f"{name} has no envelope variant")

    def item_model(self, page: str, items_field: str) -> str:
        items = self.schemas[page]["properties"][items_field]["items"]
        name = self.ref_name(items)
        if not name:
            raise SpecError(f"{page}.{items_field} items must be a $ref")
        return name


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
    result_hint = success[0] if len(success) == 1 and success[0] != "None" else "Any"
    constant = node["operationId"].upper()
    page_hint = item_hint = pagination_source = None
    if pagination:
        page_hint, item_hint, pagination_source = _pagination(reader, result_hint, pagination, node)
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
        retry_statuses=tuple(sorted(reader.retry_statuses | _retried_statuses(node))),
        identity=_identity(node.get("x-sdk-identity")),
        json_fallback_statuses=tuple(sorted(_marked_statuses(node, "x-sdk-json-fallback"))),
        empty_statuses=_empty_statuses(reader, node),
        chunking=_chunking(node.get("x-sdk-chunks"), body_schema),
        chunk_fields=_chunk_fields(node.get("x-sdk-chunks")),
        job_results=_job_results(reader, node.get("x-sdk-job-results")),
        results_method=(node.get("x-sdk-job-results") or {}).get("method"),
        results_hint=_results_hint(reader, node.get("x-sdk-job-results")),
        limit_refusals=_limit_refusals(node),
    )


def _results_hint(reader: SpecReader, results: Schema | None) -> str | None:
    return None if results is None else reader.ref_name(results["rows"])


def _job_results(reader: SpecReader, results: Schema | None) -> str | None:
    """The ``JobResults(...)`` source of ``x-sdk-job-results``."""
    if results is None:
        return None
    columns = tuple((str(header), str(name)) for header, name in results["columns"].items())
    options = {"link_lifetime": repr(results.get("link-lifetime"))}
    arguments = [repr(results["method"]), repr(results["link"]), str(reader.ref_name(results["rows"]))]
    return _call("JobResults", [*arguments, repr(columns)], options)


def _limit_refusals(node: Schema) -> tuple[str, ...]:
    """The ``LimitRefusal(...)`` sources of the responses marked ``x-sdk-limit-refusal``."""
    found = []
    for status, response in node.get("responses", {}).items():
        refusal = response.get("x-sdk-limit-refusal") if str(status).isdigit() else None
        if refusal:
            arguments = [str(int(status)), repr(refusal["detail"]), repr(refusal["maximum"])]
            arguments.append(repr(refusal.get("label", "")))
            found.append(_call("LimitRefusal", arguments, {"setting": repr(refusal.get("setting"))}))
    return tuple(found)


def _chunk_fields(chunks: Schema | None) -> tuple[str, ...]:
    if chunks is None:
        return ()
    across = chunks.get("across")
    return (chunks["field"], *chunks.get("aligned", ()), *((across,) if across else ()))


def _chunking(chunks: Schema | None, body: Schema) -> str | None:
    """The ``Chunking(...)`` source of ``x-sdk-chunks``; with ``across`` and no ``size``, the size is
    the body's ``x-sdk-max-product-items`` maximum (the product the service limits)."""
    if chunks is None:
        return None
    size = chunks.get("size", body.get("x-sdk-max-product-items", {}).get("maximum"))
    options = {
        "aligned": repr(tuple(chunks.get("aligned", ()))),
        "across": repr(chunks.get("across")),
        "concurrent": repr(bool(chunks.get("concurrent", False))),
    }
    return _call("Chunking", [repr(chunks["field"]), repr(size)], options)


def _identity(identity: Schema | None) -> str | None:
    """The ``Identity(...)`` source of ``x-sdk-identity``."""
    if identity is None:
        return None
    received = identity.get("received")
    options = {
        "type_field": repr(identity.get("type_field")),
        "types": repr(tuple(identity.get("types", ()))),
        "received": received if received else "None",
    }
    return _call("Identity", [repr(identity["param"]), repr(identity["field"])], options)


def _marked_statuses(node: Schema, extension: str) -> set[int]:
    """Statuses of an operation whose response is marked ``<extension>: true``."""
    return {
        int(status)
        for status, response in node.get("responses", {}).items()
        if str(status).isdigit() and response.get(extension)
    }


def _retried_statuses(node: Schema) -> set[int]:
    """Statuses of an operation marked ``x-sdk-retry: true``: nothing was done, try later."""
    return {
        int(status)
        for status, response in node.get("responses", {}).items()
        if str(status).isdigit() and response.get("x-sdk-retry")
    }


PAGINATION_DEFAULTS: Mapping[str, str | None] = {
    "items": "results",
    "next_field": "next",
    "count_field": "count",
    "pages_field": None,
    "size_field": None,
    "page_param": "page",
    "offset_param": None,
    "size_param": None,
}
"""The ``x-sdk-pagination`` vocabulary and the value of each key the spec leaves out."""


def _pagination(
    reader: SpecReader, result_hint: str, pagination: Schema, node: Schema
) -> tuple[str, str, str]:
    """The page type, the item type and the ``Pagination(...)`` source of a list operation."""
    bare = "items" in pagination and pagination["items"] is None  # a bare list has no fields
    values: dict[str, Any] = {
        key: pagination.get(key, None if bare and key.endswith("_field") else default)
        for key, default in PAGINATION_DEFAULTS.items()
    }
    values.update(_page_sizes(reader, node, pagination, values["size_param"]))
    items_field = values["items"]
    if items_field is None:  # a bare list: the page is the list itself
        page_hint = result_hint
        item_hint = result_hint.removeprefix("list[").removesuffix("]")
        page_model = "list"
    else:
        page_hint = page_model = reader.page_model(result_hint)
        item_hint = reader.item_model(page_hint, items_field)
    options = {key: repr(value) for key, value in values.items()}
    options["past_last_status"] = repr(reader.past_last_page.get("status"))
    options["past_last_detail"] = repr(reader.past_last_page.get("detail"))
    options.update(_identity_options(reader.schemas.get(item_hint, {})))
    options.update(_change_options(reader.schemas.get(item_hint, {})))
    source = _call("Pagination", [page_model, item_hint], options)
    return page_hint, item_hint, source


def _identity_options(schema: Schema) -> dict[str, str]:
    """The ``Pagination`` options naming an item (``x-sdk-identity-field``): its field, the
    templates tried where an item lacks it, and, for a union, its discriminator and the value of
    each variant's class (what a template's discriminator placeholder reads when the item names none)."""
    identity = schema.get("x-sdk-identity-field")
    if identity is None:
        return {}
    if not isinstance(identity, dict):
        return {"identity": repr(identity)}
    options = {"identity": repr(identity["field"])}
    fallbacks = tuple(identity.get("fallbacks", ()))
    if fallbacks:
        options["identity_fallbacks"] = repr(fallbacks)
    discriminator = schema.get("discriminator") or {}
    if discriminator.get("mapping"):
        mapping = discriminator["mapping"].items()
        types = tuple(sorted((str(ref).rsplit("/", 1)[-1], str(value)) for value, ref in mapping))
        options["identity_type_field"] = repr(discriminator["propertyName"])
        options["identity_types"] = repr(types)
    return options


def _change_options(schema: Schema) -> dict[str, str]:
    """The ``Pagination`` options of a change feed (``x-sdk-changes``): the templates naming an item,
    and the fields that are no part of its content."""
    changes = schema.get("x-sdk-changes")
    if not isinstance(changes, dict):
        return {}
    return {
        "change_identity": repr(tuple(changes.get("identity", ()))),
        "not_content": repr(tuple(changes.get("not_content", ()))),
    }


def _page_sizes(
    reader: SpecReader, node: Schema, pagination: Schema, size_param: str | None
) -> dict[str, Any]:
    """What the service applies to the page size: the size parameter's ``default`` and
    ``maximum``, the size bulk reads ask for, and the other names the size goes by."""
    schema: Schema = {}
    for parameter in node.get("parameters", ()):
        resolved = reader.resolve(parameter)
        if size_param is not None and resolved["name"] == size_param:
            schema = resolved.get("schema", {})
    maximum = schema.get("maximum")
    return {
        "default_size": schema.get("default"),
        "max_size": maximum,
        "bulk_size": pagination.get("bulk_size", maximum),
        "size_aliases": tuple(pagination.get("size_aliases", ())),
    }


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
    )


def _json_body_schema(reader: SpecReader, body: Schema) -> Schema:
    body = reader.resolve(body)
    media = body.get("content", {}).get("application/json")
    if not media:
        raise SpecError("request bodies must be application/json")
    schema = reader.resolve(media["schema"])
    if _primary_type(schema) != "object":
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


def _empty_statuses(reader: SpecReader, node: Schema) -> tuple[int, ...]:
    """Statuses answered with no body whose result is still a model (``x-sdk-empty-result``): a
    204 that confirms a bulk revocation without listing it."""
    return tuple(
        sorted(
            int(status)
            for status, response in node.get("responses", {}).items()
            if str(status).isdigit() and "x-sdk-empty-result" in reader.resolve(response)
        )
    )


def _check_names(path: str, arguments: list[Argument]) -> None:
    seen: set[str] = set()
    for argument in arguments:
        if not argument.name.isidentifier() or keyword.iskeyword(argument.name):
            raise SpecError(f"{path}: {argument.name!r} cannot be a Python argument name")
        if argument.name in seen:
            raise SpecError(f"{path}: {argument.name!r} appears twice (path, query and body share names)")
        seen.add(argument.name)


def _primary_type(schema: Schema) -> str:
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kinds = [item for item in kind if item != "null"]
        return kinds[0] if kinds else "any"
    return str(kind)


def _nullable(schema: Schema) -> bool:
    kind = schema.get("type")
    return isinstance(kind, list) and "null" in kind


def _call(name: str, args: list[str], options: Mapping[str, str]) -> str:
    parts = [*args, *(f"{key}={value}" for key, value in options.items())]
    return f"{name}({', '.join(parts)})"


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[_\-\s]+", name))
