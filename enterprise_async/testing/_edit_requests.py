"""The sandbox's own endpoint for catalog edits, so that a sandbox served in another process (by
``enterprise-async sandbox``) can be changed between two exports: ``enterprise-async sandbox-edit``
sends its edits here. It is no part of the API: only a sandbox answers it.

``POST /_sandbox/catalog-edits`` with a valid token of the sandbox and one JSON object:

- ``{"edit": "create", "catalog": UUID, "item": {...}, "at": 3}``: the item, as the service would
  send it, at that position (the end when ``at`` is left out); answers the item as it will be served;
- ``{"edit": "update", "catalog": UUID, "place": 3 | "KEY", "fields": {"title": "..."}}``: replace
  top-level fields of an item (by position from 0, or by content key or uuid);
- ``{"edit": "remove", "catalog": UUID, "place": ...}``: take it out;
- ``{"edit": "touch", "catalog": UUID, "place": ...}``: move its modification time and nothing else;
- ``{"edit": "customer", "customer": UUID}``: a change to the customer: every item of its
  catalogs is served with a later ``content_last_modified``.

Each is ``CatalogEdits``' method of that name (``sandbox.edits`` in code). The answer is 200 with
what was done (201 with the item for a create); 400 names what is wrong with the request, 404 a
catalog, item or customer the sandbox does not have, 401 a missing or dead token.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import orjson

from ._catalog_edits import CatalogEdits, Place
from ._replies import ApiError, Reply

__all__ = ["EDITS", "EDITS_PATH", "catalog_edit"]

EDITS_PATH: Final = "/_sandbox/catalog-edits"
EDITS: Final = ("create", "update", "remove", "touch", "customer")
"""The edits the endpoint makes, by the name its body gives (``edit``)."""


def catalog_edit(edits: CatalogEdits, body: bytes, has_customer: Callable[[str], bool]) -> Reply:
    """Make the edit ``body`` asks for on ``edits``; ``has_customer`` says whether the sandbox has
    a customer of that uuid."""
    try:
        data = orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        raise _bad('send one JSON object: {"edit": ..., "catalog": ...}')
    kind = data.get("edit")
    if kind == "customer":
        customer = _text(data, "customer")
        if not has_customer(customer):
            raise ApiError(404, {"detail": f"no customer {customer} in the sandbox"})
        edits.change_customer(customer)
        return Reply({"edit": kind, "customer": customer})
    if kind not in EDITS:
        raise _bad(f"edit must be one of {', '.join(EDITS)}; got {kind!r}")
    catalog = _text(data, "catalog")
    try:
        return _catalog_edit(edits, kind, catalog, data)
    except (KeyError, IndexError) as error:  # a catalog or an item it does not have
        raise ApiError(404, {"detail": str(error.args[0]) if error.args else str(error)}) from None


def _catalog_edit(edits: CatalogEdits, kind: str, catalog: str, data: Mapping[str, Any]) -> Reply:
    if kind == "create":
        item, at = data.get("item"), data.get("at")
        if not isinstance(item, dict):
            raise _bad("item must be a JSON object: the item as the service would send it")
        if at is not None and (not isinstance(at, int) or isinstance(at, bool) or at < 0):
            raise _bad("at must be a position from 0")
        made = edits.create(catalog, item, at=at)
        return Reply({"edit": kind, "catalog": catalog, "item": made}, 201)
    place = _place(data)
    if kind == "update":
        fields = data.get("fields")
        if not isinstance(fields, dict) or not fields:
            raise _bad('fields must be a JSON object of the fields to replace: {"title": "..."}')
        edits.update(catalog, place, **fields)
    elif kind == "remove":
        edits.remove(catalog, place)
    else:
        edits.touch(catalog, place)
    return Reply({"edit": kind, "catalog": catalog, "place": place})


def _text(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value:
        raise _bad(f"{name} must be a uuid")
    return value


def _place(data: Mapping[str, Any]) -> Place:
    place = data.get("place")
    if isinstance(place, bool) or not isinstance(place, (int, str)) or place == "":
        raise _bad("place must be an item's position (from 0) or its key")
    return place


def _bad(detail: str) -> ApiError:
    return ApiError(400, {"detail": detail})
