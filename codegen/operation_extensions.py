"""An operation's ``x-sdk-*`` rules written as the runtime's sources: ``Pagination(...)``,
``Chunking(...)``, ``Identity(...)``, ``JobResults(...)``, ``LimitRefusal(...)``, and the statuses
its responses mark (retried, JSON fallback, answered without a body)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from codegen.spec_reader import Schema, SpecReader, call_source
from enterprise_async.errors import status_error_class

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


def pagination(
    reader: SpecReader, result_hint: str, pagination: Schema, node: Schema
) -> tuple[str, str, str]:
    """The page type, the item type and the ``Pagination(...)`` source of a list operation."""
    bare = "items" in pagination and pagination["items"] is None  # a bare list has no fields
    values: dict[str, Any] = {
        key: pagination.get(key, None if bare and key.endswith("_field") else default)
        for key, default in PAGINATION_DEFAULTS.items()
    }
    values.update(page_sizes(reader, node, pagination, values["size_param"]))
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
    options.update(identity_options(reader.schemas.get(item_hint, {})))
    options.update(change_options(reader.schemas.get(item_hint, {})))
    source = call_source("Pagination", [page_model, item_hint], options)
    return page_hint, item_hint, source


def identity_options(schema: Schema) -> dict[str, str]:
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


def change_options(schema: Schema) -> dict[str, str]:
    """The ``Pagination`` options of a change feed (``x-sdk-changes``): the templates naming an item,
    and the fields that are no part of its content."""
    changes = schema.get("x-sdk-changes")
    if not isinstance(changes, dict):
        return {}
    return {
        "change_identity": repr(tuple(changes.get("identity", ()))),
        "not_content": repr(tuple(changes.get("not_content", ()))),
    }


def page_sizes(
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


def chunking(chunks: Schema | None, body: Schema) -> str | None:
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
    return call_source("Chunking", [repr(chunks["field"]), repr(size)], options)


def chunk_fields(chunks: Schema | None) -> tuple[str, ...]:
    if chunks is None:
        return ()
    across = chunks.get("across")
    return (chunks["field"], *chunks.get("aligned", ()), *((across,) if across else ()))


def identity(identity: Schema | None) -> str | None:
    """The ``Identity(...)`` source of ``x-sdk-identity``."""
    if identity is None:
        return None
    received = identity.get("received")
    options = {
        "type_field": repr(identity.get("type_field")),
        "types": repr(tuple(identity.get("types", ()))),
        "received": received if received else "None",
    }
    return call_source("Identity", [repr(identity["param"]), repr(identity["field"])], options)


def job_results(reader: SpecReader, results: Schema | None) -> str | None:
    """The ``JobResults(...)`` source of ``x-sdk-job-results``."""
    if results is None:
        return None
    columns = tuple((str(header), str(name)) for header, name in results["columns"].items())
    options = {"link_lifetime": repr(results.get("link-lifetime"))}
    arguments = [repr(results["method"]), repr(results["link"]), str(reader.ref_name(results["rows"]))]
    return call_source("JobResults", [*arguments, repr(columns)], options)


def results_hint(reader: SpecReader, results: Schema | None) -> str | None:
    return None if results is None else reader.ref_name(results["rows"])


def limit_refusals(node: Schema) -> tuple[str, ...]:
    """The ``LimitRefusal(...)`` sources of the responses marked ``x-sdk-limit-refusal``."""
    found = []
    for status, response in node.get("responses", {}).items():
        refusal = response.get("x-sdk-limit-refusal") if str(status).isdigit() else None
        if refusal:
            arguments = [str(int(status)), repr(refusal["detail"]), repr(refusal["maximum"])]
            arguments.append(repr(refusal.get("label", "")))
            found.append(call_source("LimitRefusal", arguments, {"setting": repr(refusal.get("setting"))}))
    return tuple(found)


def marked_statuses(node: Schema, extension: str) -> set[int]:
    """Statuses of an operation whose response is marked ``<extension>: true``."""
    return {
        int(status)
        for status, response in node.get("responses", {}).items()
        if str(status).isdigit() and response.get(extension)
    }


def retried_statuses(node: Schema) -> set[int]:
    """Statuses of an operation marked ``x-sdk-retry: true``: nothing was done, try later."""
    return {
        int(status)
        for status, response in node.get("responses", {}).items()
        if str(status).isdigit() and response.get("x-sdk-retry")
    }


def empty_statuses(reader: SpecReader, node: Schema) -> tuple[int, ...]:
    """Statuses answered with no body whose result is still a model (``x-sdk-empty-result``): a
    204 that confirms a bulk revocation without listing it."""
    return tuple(
        sorted(
            int(status)
            for status, response in node.get("responses", {}).items()
            if str(status).isdigit() and "x-sdk-empty-result" in reader.resolve(response)
        )
    )


def _documented(reader: SpecReader, node: Schema) -> list[tuple[int, Schema]]:
    """The operation's responses with a status, resolved, in status order."""
    responses = node.get("responses", {}).items()
    return sorted(
        (int(status), reader.resolve(answer)) for status, answer in responses if str(status).isdigit()
    )


def returns(reader: SpecReader, node: Schema) -> str:
    """What a call gives, in the spec's words: each success status and its description."""
    successes = [(status, answer) for status, answer in _documented(reader, node) if 200 <= status < 300]
    if len(successes) == 1:
        return " ".join(str(successes[0][1].get("description", "")).split())
    return " ".join(
        f"{status}: {' '.join(str(answer.get('description', '')).split())}" for status, answer in successes
    )


def raises(reader: SpecReader, node: Schema) -> tuple[tuple[str, str], ...]:
    """The typed error of each failure status the operation documents, with what it means; a
    status asked again in JSON (``x-sdk-json-fallback``) raises nothing of its own."""
    return tuple(
        (
            status_error_class(status).__name__,
            f"{status}: " + " ".join(str(answer.get("description", "")).split()),
        )
        for status, answer in _documented(reader, node)
        if status >= 400 and not answer.get("x-sdk-json-fallback")
    )
