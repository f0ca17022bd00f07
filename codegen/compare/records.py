"""The sandbox's record fields held against the service's document.

Under its services profile the sandbox answers an operation with the fields its ``x-sdk-service``
``fields`` lists (spec/README.md), the serializer's. Those lists are data of the spec like the
models, so `compare` checks them too: a field the document's records have and the list lacks is
``missing_in_spec`` (the sandbox would not send what the service does), one the list names and the
records lack ``missing_in_service``. Both are named ``<operationId>`` ``fields.<name>``.

The records are the items of the listing's ``x-sdk-pagination`` ``items`` field, or, for an answer
that is not a page, of every array of objects at its top (an allocation's ``created``, ``updated``
and ``no_change``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from codegen.compare.shapes import Shape, UnresolvableError, shape

Report = Callable[[str, str, str, str, str, str], None]


def check_fields(
    document: Mapping[str, Any],
    operation_id: str,
    ours: Mapping[str, Any],
    answer: Any,
    where: str,
    report: Report,
) -> None:
    """Report where ``ours``'s ``x-sdk-service`` ``fields`` and the records of ``answer`` (a schema
    of ``document``) part."""
    listed = (ours.get("x-sdk-service") or {}).get("fields")
    if not isinstance(listed, list):
        return
    items = (ours.get("x-sdk-pagination") or {}).get("items")
    for record, component in _records(document, answer, items):
        _compare(document, operation_id, "fields", listed, record, f"{where} {component}", report)


def _records(document: Mapping[str, Any], answer: Any, items: str | None) -> Iterator[tuple[Shape, str]]:
    envelope = _shape(document, answer)
    if envelope is None:
        return
    names = [items] if items else list(envelope.properties)
    for name in names:
        field = _shape(document, envelope.properties.get(name))
        if field is None or "array" not in field.kinds:
            continue
        record = _shape(document, field.items)
        if record is not None and record.fields_listed:
            yield record, f"#/components/schemas/{record.ref}" if record.ref else name


def _compare(
    document: Mapping[str, Any],
    operation_id: str,
    prefix: str,
    listed: list[Any],
    record: Shape,
    where: str,
    report: Report,
) -> None:
    nested = {name: value for entry in listed if isinstance(entry, dict) for name, value in entry.items()}
    names = [entry for entry in listed if isinstance(entry, str)] + list(nested)
    sent = [name for name, node in record.properties.items() if not _write_only(node)]
    for name in sent:
        if name not in names:
            report("missing_in_spec", operation_id, f"{prefix}.{name}", "", "sent", where)
    for name in names:
        if name not in record.properties:
            report("missing_in_service", operation_id, f"{prefix}.{name}", "listed", "", where)
    for name, inner in nested.items():
        field = _shape(document, record.properties.get(name))
        if field is None or not isinstance(inner, list):
            continue
        items = _shape(document, field.items) if "array" in field.kinds else field
        if items is not None and items.fields_listed:
            _compare(document, operation_id, f"{prefix}.{name}", inner, items, where, report)


def _write_only(node: Any) -> bool:
    return isinstance(node, dict) and bool(node.get("writeOnly"))


def _shape(document: Mapping[str, Any], schema: Any) -> Shape | None:
    if schema is None:
        return None
    try:
        return shape(document, schema)
    except UnresolvableError:
        return None
