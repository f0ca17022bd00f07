"""The rejects file of a catalog's export: the items the export could not read, each as sent.

An item that breaks a promise of the spec (a required field left out) cannot be read as its model;
it never stops the export of its catalog. It is written to ``<uuid>.rejects.jsonl`` beside the
catalog's export, one JSON line each, and every other item of the catalog is exported::

    {"page": 3, "index": 17, "position": 217, "identity": "course:HarvardX+EXEC.1x",
     "reason": "catalogs.contents page 3, item 17: results[17].entitlements[0]: Entitlement.price
     is required and was left out (request id ...)", "item": {...as the service sent it...}}

``page`` is the page it came on (from 1, at the export's page size), ``index`` its place in that
page (from 0), ``position`` its place in the whole listing (from 0), ``identity`` its name in a
change feed (None when it has none), ``reason`` why it could not be read and ``item`` the item as
the service sent it (from XML: the JSON it stands for).
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from .._response.item_reading import UnreadableItem

__all__ = ["REJECTS_SUFFIX", "reject_line"]

REJECTS_SUFFIX: Final = ".rejects.jsonl"
"""What a catalog's rejects file adds to its uuid."""


def reject_line(item: UnreadableItem, position: int, identity: str | None) -> bytes:
    """The rejects file's line of one unreadable item."""
    record: dict[str, Any] = {
        "page": item.page,
        "index": item.index,
        "position": position,
        "identity": identity,
        "reason": item.reason,
        "item": item.raw,
    }
    return orjson.dumps(record, default=str) + b"\n"
