"""The checks of each operation: its ``operationId``, tag, ``x-sdk-method``, parameters and
results, its ``x-sdk-service`` and ``x-sdk-job-results``; its pagination and chunks have checks
of their own."""

from __future__ import annotations

import keyword
from collections.abc import Iterator
from typing import Any

from codegen.source import Problem, pointer
from codegen.validation.chunks import chunks
from codegen.validation.nodes import Node, body_schema, object_schema, resolved
from codegen.validation.pagination import pagination

HTTP_METHODS = ("get", "post", "put", "patch", "delete")


OTHER_METHODS = ("head", "options", "trace")


def located_operations(document: Node) -> Iterator[tuple[str, str, str, Node]]:
    """(pointer, path, method, operation) of every operation the generator reads."""
    paths = document.get("paths")
    for path, item in (paths or {}).items() if isinstance(paths, dict) else ():
        for method in (*HTTP_METHODS, *OTHER_METHODS):
            if isinstance(item, dict) and isinstance(item.get(method), dict):
                yield pointer("paths", path, method), path, method, item[method]


def operations(document: Node) -> Iterator[Problem]:
    declared = {tag.get("name") for tag in document.get("tags") or () if isinstance(tag, dict)}
    methods: dict[tuple[str, str], str] = {}
    ids: dict[str, str] = {}
    for at, path, method, node in located_operations(document):
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
            yield from pagination(document, node, at)
        if "x-sdk-chunks" in node:
            yield from chunks(document, node, at)
        if "x-sdk-job-results" in node:
            yield from _job_results(document, node, at)


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
        parameter = resolved(document, parameter)
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


def _results(document: Node, node: Node, at: str) -> Iterator[Problem]:
    for status, response in (node.get("responses") or {}).items():
        response = resolved(document, response)
        if "x-sdk-empty-result" in response:
            yield from _empty_result(document, status, response, at + pointer("responses", status))
        fields = response.get("x-sdk-result")
        if fields is None:
            continue
        where = at + pointer("responses", status, "x-sdk-result")
        body = response.get("x-sdk-empty-result") or body_schema(document, response)
        schema = object_schema(document, body if isinstance(body, dict) else {})
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
    if not isinstance(model, dict) or set(model) != {"$ref"} or object_schema(document, model) is None:
        yield Problem(where, "x-sdk-empty-result is a $ref to the object schema the result is built as")


def service(document: Node, node: Node, at: str) -> Iterator[Problem]:
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


def _job_results(document: Node, node: Node, at: str) -> Iterator[Problem]:
    """``x-sdk-job-results``: a method name, ``rows`` a ``$ref`` to an object schema whose
    properties ``columns`` name, and ``link`` a property of the operation's 2xx model."""
    rule = node["x-sdk-job-results"]
    where = at + pointer("x-sdk-job-results")
    if not isinstance(rule, dict) or not str(rule.get("method", "")).isidentifier():
        yield Problem(where, "needs `method`: the name of the method that reads the results")
        return
    rows = resolved(document, rule.get("rows") or {})
    fields = set(rows.get("properties", {})) if isinstance(rows, dict) else set()
    columns = rule.get("columns")
    if not isinstance(columns, dict) or not columns or not set(columns.values()) <= fields:
        known = sorted(fields)
        yield Problem(where + pointer("columns"), f"must map CSV headers to properties of `rows` ({known})")
    success = [
        resolved(document, response)
        for status, response in node.get("responses", {}).items()
        if str(status).startswith("2")
    ]
    models = [
        resolved(document, media.get("schema", {}))
        for response in success
        for media in response.get("content", {}).values()
    ]
    if not any(rule.get("link") in model.get("properties", {}) for model in models):
        yield Problem(where + pointer("link"), "must name a property of the operation's 2xx model")
