"""Check the spec before anything is generated: OpenAPI 3.1 itself, then every convention of ours.

``openapi-spec-validator`` checks the document against OpenAPI 3.1. The checks here cover what the
generator relies on and OpenAPI leaves open (see `spec/README.md`): every ``$ref`` resolves, every
``type`` is a JSON Schema type, every operation has an ``operationId``, a declared tag and a unique
``x-sdk-method``, and every ``x-sdk-*`` extension names fields and parameters that exist.
Each check yields ``Problem``s; all of them are reported together.
"""

from __future__ import annotations

import difflib
import keyword
import string
from collections.abc import Iterator, Mapping
from typing import Any

from openapi_spec_validator.validation import OpenAPIV31SpecValidator

from codegen.source import Problem, pointer

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")
HTTP_METHODS = ("get", "post", "put", "patch", "delete")
OTHER_METHODS = ("head", "options", "trace")
EXTENSIONS = (
    "x-sdk-method",
    "x-sdk-pagination",
    "x-sdk-result",
    "x-sdk-variants",
    "x-sdk-fallback-variant",
    "x-sdk-max-combined-items",
    "x-sdk-internal",
    "x-sdk-computed",
    "x-sdk-max-product-items",
    "x-sdk-wire",
    "x-sdk-retry",
    "x-sdk-identity",
    "x-sdk-identity-field",
    "x-sdk-changes",
    "x-sdk-json-fallback",
    "x-sdk-retry-statuses",
    "x-sdk-request-id-headers",
    "x-sdk-request-id-placeholders",
    "x-sdk-request-id-header",
    "x-sdk-past-last-page",
    "x-sdk-empty-result",
    "x-sdk-chunks",
    "x-sdk-services",
    "x-sdk-service",
    "x-sdk-argument",
    "x-sdk-job-results",
    "x-sdk-limit-refusal",
)
PAGINATION_KEYS = (
    "items",
    "next_field",
    "count_field",
    "pages_field",
    "size_field",
    "page_param",
    "offset_param",
    "size_param",
    "bulk_size",
    "size_aliases",
)
DATA_KEYS = ("example", "examples", "default", "enum", "const")
"""Keys whose values are data, not spec: nothing inside them is checked."""

Node = Mapping[str, Any]


def problems(document: Node) -> list[Problem]:
    """Every problem of the spec; empty when the generator can run."""
    found = [*_references(document), *_types(document), *_extensions(document), *_top_level(document)]
    found.extend(_operations(document))
    found.extend(_openapi(document, quiet=bool(found)))
    return found


# ---------------------------------------------------------------------- OpenAPI 3.1


def _openapi(document: Node, *, quiet: bool) -> Iterator[Problem]:
    """The validator's findings. It stops with an exception on some broken documents (a dangling
    ``$ref``); ours have then already said what is wrong, else its exception is the finding."""
    reported = False
    try:
        for error in OpenAPIV31SpecValidator(document).iter_errors():
            path = list(getattr(error, "absolute_path", ()))
            message = f"not valid OpenAPI 3.1: {getattr(error, 'message', error)}"
            if _exists(document, path):
                reported = True
                yield Problem(pointer(*path), message)
            elif not quiet:  # a path inside a schema, relative to it: ours locate such problems
                reported = True
                yield Problem("", f"{message} (at {pointer(*path)} of some schema)")
    except Exception as error:
        if not (reported or quiet):
            name = type(error).__name__
            yield Problem("", f"openapi-spec-validator could not check the spec: {name}: {error}")


def _exists(document: Node, path: list[Any]) -> bool:
    node: Any = document
    for part in path:
        if not isinstance(node, (dict, list)):
            return False
        if not (part in node if isinstance(node, dict) else isinstance(part, int) and part < len(node)):
            return False
        node = node[part]
    return True


# ---------------------------------------------------------------------- whole-document walks


def _walk(node: Any, at: str = "") -> Iterator[tuple[str, Any]]:
    """Every (pointer, node) of the document, skipping data (examples, defaults, enums)."""
    yield at, node
    if isinstance(node, dict):
        for key, value in node.items():
            if key not in DATA_KEYS:
                yield from _walk(value, at + pointer(key))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _walk(item, f"{at}/{index}")


def _references(document: Node) -> Iterator[Problem]:
    for at, node in _walk(document):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if ref is None:
            continue
        if not isinstance(ref, str) or not ref.startswith("#/"):
            yield Problem(f"{at}/$ref", f"$ref {ref!r} is not local; only `#/...` references are supported")
        elif resolve(document, ref) is None:
            yield Problem(f"{at}/$ref", _dangling(document, ref))


def resolve(document: Node, ref: str) -> Any:
    """The node a local ``$ref`` points to, or None."""
    node: Any = document
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _dangling(document: Node, ref: str) -> str:
    parent, _, name = ref.rpartition("/")
    siblings = resolve(document, parent) if parent != "#" else document
    close = difflib.get_close_matches(name, list(siblings or ()), n=1)
    hint = f" (did you mean {parent}/{close[0]}?)" if close else f"; define {name!r} under {parent[2:]}"
    return f"$ref {ref!r} points to nothing{hint}"


def _types(document: Node) -> Iterator[Problem]:
    for at, node in _walk(document):
        if not isinstance(node, dict) or "/securitySchemes/" in at:
            continue
        kinds = node.get("type")
        for kind in kinds if isinstance(kinds, list) else [kinds]:
            if isinstance(kind, str) and kind not in JSON_TYPES:
                close = difflib.get_close_matches(kind, JSON_TYPES, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                yield Problem(
                    f"{at}/type", f"unknown type {kind!r}; {hint}use one of {', '.join(JSON_TYPES)}"
                )


def _extensions(document: Node) -> Iterator[Problem]:
    for at, node in _walk(document):
        if not isinstance(node, dict):
            continue
        for key in node:
            if isinstance(key, str) and key.startswith("x-sdk-") and key not in EXTENSIONS:
                known = ", ".join(EXTENSIONS)
                yield Problem(at + pointer(key), f"unknown extension {key!r}; the generator reads {known}")
        if "x-sdk-max-combined-items" in node:
            yield from _combined(node, at)
        if "x-sdk-variants" in node:
            yield from _variants(document, node, at)
        if "x-sdk-fallback-variant" in node:
            yield from _fallback_variant(node, at)
        if "x-sdk-service" in node:
            yield from _service(document, node, at)
        if "x-sdk-identity-field" in node:
            yield from _identity_field(document, node, at)
        if "x-sdk-changes" in node:
            yield from _changes(document, node, at)
        if "discriminator" in node and not (node.get("oneOf") or node.get("anyOf")):
            yield from _own_discriminator(node, at)


def _own_discriminator(node: Node, at: str) -> Iterator[Problem]:
    """A ``discriminator`` on a model schema (the types one model stands for): its property is one
    of the schema's, and every mapping value is the schema itself."""
    discriminator = node["discriminator"]
    name = discriminator.get("propertyName") if isinstance(discriminator, dict) else None
    if name not in (node.get("properties") or {}):
        yield Problem(
            at + pointer("discriminator"), f"propertyName {name!r} is not a property of this schema"
        )
    mapping = discriminator.get("mapping") if isinstance(discriminator, dict) else None
    for value, ref in (mapping or {}).items():
        if ref != f"#{at}":
            where = at + pointer("discriminator") + pointer("mapping") + pointer(value)
            yield Problem(where, f"maps to {ref!r}; a model's own discriminator maps every type to #{at}")


def _identity_field(document: Node, node: Node, at: str) -> Iterator[Problem]:
    """``x-sdk-identity-field``: a property of the schema, or of every variant of a union (the
    field a listing's cursor names its last item by); or ``{field, fallbacks}``, the fallbacks
    templates (``"{content_type}:{key}"``) whose every placeholder is a property of some variant."""
    value = node["x-sdk-identity-field"]
    where = at + pointer("x-sdk-identity-field")
    name = value.get("field") if isinstance(value, dict) else value
    variants = [_resolved(document, variant) for variant in node.get("anyOf") or node.get("oneOf") or ()]
    for schema in variants or [node]:
        if not isinstance(name, str) or name not in (schema.get("properties") or {}):
            yield Problem(where, f"{name!r} is not a property of every variant")
            return
    fallbacks = value.get("fallbacks", []) if isinstance(value, dict) else []
    known = {key for schema in variants or [node] for key in schema.get("properties") or {}}
    if not isinstance(fallbacks, list) or not all(isinstance(text, str) for text in fallbacks):
        yield Problem(where + pointer("fallbacks"), "must be a list of templates ('{content_type}:{key}')")
        return
    for text in fallbacks:
        names = [part[1] for part in string.Formatter().parse(text) if part[1] is not None]
        unknown = [part for part in names if part not in known]
        if not names or unknown:
            yield Problem(where + pointer("fallbacks"), f"{text!r} names no property, or unknown {unknown}")


def _changes(document: Node, node: Node, at: str) -> Iterator[Problem]:
    """``x-sdk-changes``: ``identity``, templates (``"{content_type}:{key}"``) whose every
    placeholder is a property of some variant, and ``not_content``, properties of some variant."""
    value = node["x-sdk-changes"]
    where = at + pointer("x-sdk-changes")
    if not isinstance(value, dict) or not value.get("identity"):
        yield Problem(where, "needs `identity`: a list of templates ('{content_type}:{key}')")
        return
    variants = [_resolved(document, variant) for variant in node.get("anyOf") or node.get("oneOf") or ()]
    known = {key for schema in variants or [node] for key in schema.get("properties") or {}}
    templates, ignored = value.get("identity"), value.get("not_content", [])
    if not isinstance(templates, list) or not all(isinstance(text, str) for text in templates):
        yield Problem(where + pointer("identity"), "must be a list of templates ('{content_type}:{key}')")
        return
    for text in templates:
        names = [part[1] for part in string.Formatter().parse(text) if part[1] is not None]
        unknown = [part for part in names if part not in known]
        if not names or unknown:
            yield Problem(where + pointer("identity"), f"{text!r} names no property, or unknown {unknown}")
    if not isinstance(ignored, list) or any(name not in known for name in ignored):
        yield Problem(where + pointer("not_content"), f"must list properties of the items, got {ignored!r}")


def _service(document: Node, node: Node, at: str) -> Iterator[Problem]:
    """``x-sdk-service``: names a service of ``x-sdk-services``, and its access rule one of the
    operation's parameters (the sandbox reads the rest as data; spec/README.md)."""
    rule = node["x-sdk-service"]
    where = at + pointer("x-sdk-service")
    services = document.get("x-sdk-services", {})
    if not isinstance(rule, dict) or rule.get("service") not in services:
        yield Problem(where, f"needs `service:` naming one of x-sdk-services ({', '.join(services)})")
        return
    endpoint = rule.get("endpoint")
    if endpoint is not None and not _is_endpoint(endpoint):
        yield Problem(
            where + pointer("endpoint"),
            "must be the service's own method and path, e.g. `GET /api/v1/subscriptions/{uuid}/`",
        )
    access = rule.get("access")
    if access is None:
        return
    parameters = [_dereferenced(document, parameter) for parameter in node.get("parameters", ())]
    if any(parameter is None for parameter in parameters):
        return  # a dangling $ref, reported on its own
    names = {parameter.get("name") for parameter in parameters if parameter is not None}
    if not isinstance(access, dict) or access.get("param") not in names:
        known = sorted(str(name) for name in names)
        yield Problem(where + pointer("access"), f"`param` must name a parameter of the operation ({known})")


def _is_endpoint(value: Any) -> bool:
    """``METHOD /path``: an HTTP method in capitals, one blank, an absolute path without blanks."""
    method, _, path = value.partition(" ") if isinstance(value, str) else ("", "", "")
    known = {"GET", "POST", "PUT", "PATCH", "DELETE"}
    return method in known and path.startswith("/") and " " not in path


def _dereferenced(document: Node, node: Node) -> Node | None:
    """The node a ``$ref`` chain ends at; None when it points to nothing."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = document
        for part in str(node["$ref"]).removeprefix("#/").split("/"):
            if not isinstance(target, dict) or part not in target:
                return None
            target = target[part]
        node = target
    return node


def _top_level(document: Node) -> Iterator[Problem]:
    """The document-wide lists: retry statuses are HTTP statuses, request-id headers are names."""
    statuses = document.get("x-sdk-retry-statuses", [])
    if not isinstance(statuses, list) or not all(_is_status(status) for status in statuses):
        yield Problem(pointer("x-sdk-retry-statuses"), "must be a list of HTTP statuses, e.g. [429]")
    headers = document.get("x-sdk-request-id-headers", [])
    if not isinstance(headers, list) or not all(isinstance(name, str) and name for name in headers):
        yield Problem(
            pointer("x-sdk-request-id-headers"), "must be a list of header names, e.g. [x-amzn-RequestId]"
        )
    placeholders = document.get("x-sdk-request-id-placeholders", [])
    if not isinstance(placeholders, list) or not all(isinstance(value, str) for value in placeholders):
        yield Problem(pointer("x-sdk-request-id-placeholders"), 'must be a list of texts, e.g. ["-", "none"]')
    sent = document.get("x-sdk-request-id-header")
    if sent is not None and not (isinstance(sent, str) and sent.strip() and " " not in sent):
        yield Problem(pointer("x-sdk-request-id-header"), "must be a header name, e.g. X-Request-ID")
    yield from _past_last_page(document)


def _past_last_page(document: Node) -> Iterator[Problem]:
    """``x-sdk-past-last-page``: the 4xx status, and the detail, of the answer to a page past the last."""
    if "x-sdk-past-last-page" not in document:
        return
    answer = document["x-sdk-past-last-page"]
    status = answer.get("status") if isinstance(answer, dict) else None
    detail = answer.get("detail") if isinstance(answer, dict) else None
    a_4xx = _is_status(status) and 400 <= status < 500
    if not isinstance(answer, dict) or set(answer) - {"status", "detail"} or not a_4xx:
        yield Problem(
            pointer("x-sdk-past-last-page"),
            'must be a mapping of a 4xx `status` and a `detail`, e.g. {status: 404, detail: "Invalid page."}',
        )
    elif detail is not None and (not isinstance(detail, str) or not detail):
        yield Problem(
            pointer("x-sdk-past-last-page", "detail"),
            "the answer's error detail is a non-empty string (or null: any body of that status)",
        )


def _is_status(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599


def _combined(schema: Node, at: str) -> Iterator[Problem]:
    rule = schema["x-sdk-max-combined-items"]
    where = at + pointer("x-sdk-max-combined-items")
    if not isinstance(rule, dict) or not isinstance(rule.get("maximum"), int) or not rule.get("fields"):
        yield Problem(where, "x-sdk-max-combined-items needs `fields: [array, ...]` and an integer `maximum`")
        return
    properties = schema.get("properties", {})
    for name in rule["fields"]:
        if properties.get(name, {}).get("type") != "array":
            yield Problem(
                where, f"x-sdk-max-combined-items names {name!r}, which is not an array property here"
            )


def _variants(document: Node, schema: Node, at: str) -> Iterator[Problem]:
    where = at + pointer("x-sdk-variants")
    options = [option.get("$ref", "") for option in schema.get("oneOf") or schema.get("anyOf") or ()]
    names = {ref.rpartition("/")[2]: ref for ref in options}
    markers = schema["x-sdk-variants"]
    if not isinstance(markers, dict):
        yield Problem(where, "x-sdk-variants maps a variant's schema name to fields only it carries")
        return
    for name, fields in markers.items():
        if name not in names:
            yield Problem(
                where + pointer(name), f"{name!r} is not a $ref variant of this union ({', '.join(names)})"
            )
            continue
        properties = (resolve(document, names[name]) or {}).get("properties", {})
        for field_name in [fields] if isinstance(fields, str) else fields or ():
            if field_name not in properties:
                yield Problem(
                    where + pointer(name), f"{name} has no field {field_name!r}; name one of its properties"
                )


def _fallback_variant(schema: Node, at: str) -> Iterator[Problem]:
    options = [option.get("$ref", "") for option in schema.get("oneOf") or schema.get("anyOf") or ()]
    names = [ref.rpartition("/")[2] for ref in options]
    fallback = schema["x-sdk-fallback-variant"]
    if fallback not in names:
        yield Problem(
            at + pointer("x-sdk-fallback-variant"),
            f"{fallback!r} is not a $ref variant of this union ({', '.join(names)})",
        )


# ---------------------------------------------------------------------- operations


def operations(document: Node) -> Iterator[tuple[str, str, str, Node]]:
    """(pointer, path, method, operation) of every operation the generator reads."""
    paths = document.get("paths")
    for path, item in (paths or {}).items() if isinstance(paths, dict) else ():
        for method in (*HTTP_METHODS, *OTHER_METHODS):
            if isinstance(item, dict) and isinstance(item.get(method), dict):
                yield pointer("paths", path, method), path, method, item[method]


def _operations(document: Node) -> Iterator[Problem]:
    declared = {tag.get("name") for tag in document.get("tags") or () if isinstance(tag, dict)}
    methods: dict[tuple[str, str], str] = {}
    ids: dict[str, str] = {}
    for at, path, method, node in operations(document):
        if method in OTHER_METHODS:
            yield Problem(
                at,
                f"{method.upper()} operations are not supported by the generator; use one of "
                "GET/POST/PUT/PATCH/DELETE",
            )
            continue
        label = f"{method.upper()} {path}"
        yield from _identity(node, at, ids, label)
        yield from _tag(node, at, declared)
        yield from _method(node, at, methods, label)
        yield from _parameters(document, node, at)
        yield from _results(document, node, at)
        if "x-sdk-pagination" in node:
            yield from _pagination(document, node, at)
        if "x-sdk-chunks" in node:
            yield from _chunks(document, node, at)
        if "x-sdk-job-results" in node:
            yield from _job_results(document, node, at)


def _job_results(document: Node, node: Node, at: str) -> Iterator[Problem]:
    """``x-sdk-job-results``: a method name, ``rows`` a ``$ref`` to an object schema whose
    properties ``columns`` name, and ``link`` a property of the operation's 2xx model."""
    rule = node["x-sdk-job-results"]
    where = at + pointer("x-sdk-job-results")
    if not isinstance(rule, dict) or not str(rule.get("method", "")).isidentifier():
        yield Problem(where, "needs `method`: the name of the method that reads the results")
        return
    rows = _resolved(document, rule.get("rows") or {})
    fields = set(rows.get("properties", {})) if isinstance(rows, dict) else set()
    columns = rule.get("columns")
    if not isinstance(columns, dict) or not columns or not set(columns.values()) <= fields:
        known = sorted(fields)
        yield Problem(where + pointer("columns"), f"must map CSV headers to properties of `rows` ({known})")
    success = [
        _resolved(document, response)
        for status, response in node.get("responses", {}).items()
        if str(status).startswith("2")
    ]
    models = [
        _resolved(document, media.get("schema", {}))
        for response in success
        for media in response.get("content", {}).values()
    ]
    if not any(rule.get("link") in model.get("properties", {}) for model in models):
        yield Problem(where + pointer("link"), "must name a property of the operation's 2xx model")


CHUNK_KEYS = ("field", "size", "aligned", "across", "concurrent")


def _chunks(document: Node, node: Node, at: str) -> Iterator[Problem]:
    """``x-sdk-chunks``: the arrays it cuts are array properties of the JSON body, the size a
    positive integer (taken from the body's ``x-sdk-max-product-items`` over ``field`` and
    ``across`` when left out, and never above it), ``concurrent`` a boolean."""
    where = at + pointer("x-sdk-chunks")
    rule = node["x-sdk-chunks"]
    if not isinstance(rule, dict) or not isinstance(rule.get("field"), str):
        yield Problem(where, "x-sdk-chunks needs `field`: the body array cut into chunks")
        return
    for key in rule:
        if key not in CHUNK_KEYS:
            yield Problem(
                where + pointer(key), f"unknown key {key!r}; x-sdk-chunks reads {', '.join(CHUNK_KEYS)}"
            )
    media = (_resolved(document, node.get("requestBody")).get("content") or {}).get("application/json") or {}
    body = _resolved(document, media.get("schema") if isinstance(media, dict) else None)
    properties = body.get("properties") or {}
    across = rule.get("across")
    aligned = rule.get("aligned", [])
    if not isinstance(aligned, list):
        yield Problem(where + pointer("aligned"), "must be a list of body arrays cut in step with `field`")
        aligned = []
    for name in [rule["field"], *aligned, *([across] if across is not None else [])]:
        if not isinstance(name, str) or _resolved(document, properties.get(name)).get("type") != "array":
            yield Problem(
                where, f"x-sdk-chunks names {name!r}, which is not an array property of the JSON body"
            )
    if not isinstance(rule.get("concurrent", False), bool):
        yield Problem(where + pointer("concurrent"), "must be true or false")
    yield from _chunk_size(rule, body, where)


def _chunk_size(rule: Node, body: Node, where: str) -> Iterator[Problem]:
    product = body.get("x-sdk-max-product-items")
    limit = product.get("maximum") if isinstance(product, dict) else None
    crossed = isinstance(product, dict) and set(product.get("fields") or ()) == {
        rule["field"],
        rule.get("across"),
    }
    size = rule.get("size", limit if crossed else None)
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        yield Problem(
            where,
            "x-sdk-chunks needs a positive integer `size` (or `across` with the body's "
            "x-sdk-max-product-items over `field` and `across`, whose maximum it then is)",
        )
    elif crossed and isinstance(limit, int) and size > limit:
        yield Problem(
            where + pointer("size"), f"{size} exceeds the body's x-sdk-max-product-items maximum {limit}"
        )


def _identity(node: Node, at: str, ids: dict[str, str], label: str) -> Iterator[Problem]:
    operation_id = node.get("operationId")
    if not isinstance(operation_id, str) or not operation_id.isidentifier():
        yield Problem(
            at,
            "the operation has no operationId (or one that is not an identifier); add one, e.g. "
            "`operationId: catalogs_list` (it names the operation's constant)",
        )
        return
    if operation_id in ids:
        yield Problem(
            at + "/operationId",
            f"operationId {operation_id!r} is already used at {ids[operation_id]}; make it unique",
        )
    ids.setdefault(operation_id, label)


def _tag(node: Node, at: str, declared: set[Any]) -> Iterator[Problem]:
    tags = node.get("tags")
    if not isinstance(tags, list) or not tags:
        yield Problem(
            at,
            "the operation has no tags; add `tags: [resource]` (tags[0] names the client resource, "
            "`client.<resource>`)",
        )
        return
    tag = tags[0]
    if tag not in declared:
        yield Problem(
            at + "/tags/0",
            f"tag {tag!r} is not declared in the top-level `tags:`; declare it there with a description (it "
            f"becomes `client.{tag}`)",
        )
    elif not str(tag).isidentifier() or keyword.iskeyword(str(tag)):
        yield Problem(at + "/tags/0", f"tag {tag!r} cannot be a Python attribute; use snake_case")


def _method(node: Node, at: str, methods: dict[tuple[str, str], str], label: str) -> Iterator[Problem]:
    if node.get("x-sdk-internal"):
        return
    name = node.get("x-sdk-method")
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        yield Problem(
            at,
            f"x-sdk-method {name!r} must name a Python method (e.g. `x-sdk-method: list`), or mark the "
            "operation `x-sdk-internal: true`",
        )
        return
    tags = node.get("tags") or [""]
    key = (str(tags[0]), name)
    if key in methods:
        yield Problem(
            at + "/x-sdk-method",
            f"{key[0]}.{name} is already the method of {methods[key]}; give one of them another x-sdk-method",
        )
    methods.setdefault(key, label)


def _parameters(document: Node, node: Node, at: str) -> Iterator[Problem]:
    for index, parameter in enumerate(node.get("parameters") or ()):
        parameter = _resolved(document, parameter)
        where = f"{at}/parameters/{index}"
        location = parameter.get("in")
        if location in ("header", "cookie"):
            yield Problem(
                where,
                f"{location} parameters are not supported by the generator; use a path or query parameter",
            )
        name = parameter.get("name")
        if isinstance(name, str) and (not name.isidentifier() or keyword.iskeyword(name)):
            yield Problem(where, f"parameter {name!r} cannot be a Python argument name; rename it")


def _resolved(document: Node, node: Any) -> Node:
    """``node`` with its ``$ref`` chain followed; an empty mapping where it dangles."""
    for _ in range(32):
        if not isinstance(node, dict) or "$ref" not in node:
            break
        node = resolve(document, str(node["$ref"])) if str(node["$ref"]).startswith("#/") else None
    return node if isinstance(node, dict) else {}


def _body_schema(document: Node, response: Node) -> Node:
    content = response.get("content") or {}
    media = content.get("application/json") or next(iter(content.values()), None)
    schema = media.get("schema") if isinstance(media, dict) else None
    return schema if isinstance(schema, dict) else {}


def _results(document: Node, node: Node, at: str) -> Iterator[Problem]:
    for status, response in (node.get("responses") or {}).items():
        response = _resolved(document, response)
        if "x-sdk-empty-result" in response:
            yield from _empty_result(document, status, response, at + pointer("responses", status))
        fields = response.get("x-sdk-result")
        if fields is None:
            continue
        where = at + pointer("responses", status, "x-sdk-result")
        body = response.get("x-sdk-empty-result") or _body_schema(document, response)
        schema = _envelope(document, body if isinstance(body, dict) else {})
        if not isinstance(fields, dict) or schema is None:
            yield Problem(
                where,
                "x-sdk-result sets fields of the decoded result: a mapping, on a response whose body is an "
                "object schema",
            )
            continue
        for name in fields:
            if name not in schema.get("properties", {}):
                yield Problem(
                    where + pointer(name),
                    f"the result has no field {name!r}; add it to the response schema (with "
                    "`x-sdk-computed: true`) or fix the name",
                )


def _empty_result(document: Node, status: Any, response: Node, at: str) -> Iterator[Problem]:
    """``x-sdk-empty-result``: a 2xx answered without a body, whose result is a named object model."""
    model = response["x-sdk-empty-result"]
    where = at + "/x-sdk-empty-result"
    if not str(status).startswith("2") or response.get("content"):
        yield Problem(where, "x-sdk-empty-result belongs on a 2xx response without `content` (a 204)")
    if not isinstance(model, dict) or set(model) != {"$ref"} or _envelope(document, model) is None:
        yield Problem(where, "x-sdk-empty-result is a $ref to the object schema the result is built as")


def _envelope(document: Node, schema: Node) -> Node | None:
    """The object schema of a body (or of its single object variant)."""
    schema = _resolved(document, schema)
    if "properties" in schema:
        return schema
    objects = [
        _resolved(document, variant)
        for variant in schema.get("oneOf") or schema.get("anyOf") or ()
        if "properties" in _resolved(document, variant)
    ]
    return objects[0] if len(objects) == 1 else None


def _pagination(document: Node, node: Node, at: str) -> Iterator[Problem]:
    where = at + "/x-sdk-pagination"
    rule = node["x-sdk-pagination"]
    if not isinstance(rule, dict):
        yield Problem(where, f"x-sdk-pagination is a mapping of {', '.join(PAGINATION_KEYS)}")
        return
    for key in rule:
        if key not in PAGINATION_KEYS:
            yield Problem(
                where + pointer(key),
                f"unknown key {key!r}; x-sdk-pagination reads {', '.join(PAGINATION_KEYS)}",
            )
    success = [
        _resolved(document, r) for s, r in (node.get("responses") or {}).items() if str(s).startswith("2")
    ]
    body = _body_schema(document, success[0]) if success else {}
    if rule.get("items", "results") is None:
        yield from _bare_list(document, rule, body, where)
    else:
        yield from _envelope_fields(document, rule, body, where)
    yield from _driven_parameters(document, node, rule, where)
    yield from _page_size_keys(document, node, rule, where)


def _page_size_keys(document: Node, node: Node, rule: Node, where: str) -> Iterator[Problem]:
    """``bulk_size`` is a page size the size parameter allows; ``size_aliases`` are other query
    parameters of the operation, sent under ``size_param``."""
    parameters = {
        _resolved(document, parameter).get("name"): _resolved(document, parameter)
        for parameter in node.get("parameters") or ()
        if _resolved(document, parameter).get("in") == "query"
    }
    size_param = rule.get("size_param")
    if ("bulk_size" in rule or "size_aliases" in rule) and size_param is None:
        yield Problem(where, "bulk_size and size_aliases need a size_param")
        return
    maximum = (parameters.get(size_param) or {}).get("schema", {}).get("maximum")
    bulk = rule.get("bulk_size")
    if "bulk_size" in rule and (
        not isinstance(bulk, int) or bulk < 1 or (maximum is not None and bulk > maximum)
    ):
        yield Problem(
            where + "/bulk_size", f"bulk_size must be a page size {size_param!r} allows, got {bulk!r}"
        )
    aliases = rule.get("size_aliases", [])
    if not isinstance(aliases, list):
        yield Problem(where + "/size_aliases", "size_aliases is a list of query parameter names")
        return
    for alias in aliases:
        if alias not in parameters or alias == size_param:
            yield Problem(
                where + "/size_aliases",
                f"size alias {alias!r} must be another query parameter of this operation",
            )


def _bare_list(document: Node, rule: Node, body: Node, where: str) -> Iterator[Problem]:
    if _resolved(document, body).get("type") != "array":
        yield Problem(
            where + "/items",
            "`items: null` means the body is a bare list, but the 2xx response schema is not an array",
        )
    for key in ("next_field", "count_field", "pages_field", "size_field"):
        if rule.get(key) is not None:
            yield Problem(where + pointer(key), f"a bare list has no fields; drop {key}")


def _envelope_fields(document: Node, rule: Node, body: Node, where: str) -> Iterator[Problem]:
    envelope = _envelope(document, body)
    if envelope is None and "$ref" in body and not _resolved(document, body):
        return  # the dangling $ref is reported by itself
    if envelope is None:
        yield Problem(
            where,
            "a paginated operation's 2xx response must be an envelope object schema ($ref it), or set "
            "`items: null` for a bare list",
        )
        return
    properties = envelope.get("properties", {})
    items = rule.get("items", "results")
    if items not in properties:
        yield Problem(
            where + "/items",
            f"the envelope has no field {items!r}; name the field holding the items "
            f"({', '.join(properties)})",
        )
    elif (
        not isinstance(_resolved(document, properties[items]).get("items"), dict)
        or "$ref" not in _resolved(document, properties[items])["items"]
    ):
        yield Problem(
            where + "/items",
            f"the envelope's {items!r} must be an array whose items are a $ref to a named schema",
        )
    defaults = {"next_field": "next", "count_field": "count", "pages_field": None, "size_field": None}
    for key, default in defaults.items():
        name = rule.get(key, default)
        if name is not None and name not in properties:
            yield Problem(
                where + (pointer(key) if key in rule else ""),
                f"the envelope has no field {name!r} for {key}; name the right field or set `{key}: null`",
            )


def _driven_parameters(document: Node, node: Node, rule: Node, where: str) -> Iterator[Problem]:
    query = {
        _resolved(document, parameter).get("name")
        for parameter in node.get("parameters") or ()
        if _resolved(document, parameter).get("in") == "query"
    }
    for key, default in (("page_param", "page"), ("offset_param", None), ("size_param", None)):
        name = rule.get(key, default)
        if name is not None and name not in query:
            yield Problem(
                where + (pointer(key) if key in rule else ""),
                f"{key} {name!r} is not a query parameter of this operation; declare it or set `{key}: null`",
            )
