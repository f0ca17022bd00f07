"""Catalog edits: a sandbox whose catalogs change between two runs (or while one reads them).

Items are created, updated and removed, their timestamps moved with nothing else, a customer
changed: what a catalog sync must see as created, updated, removed or unchanged. The edits are a
layer of their own over the seeded contents: ``CatalogContent.item`` stays the pure maker of item
``index``, and the catalog handlers consult this layer for the catalogs it edited. A catalog never
edited (and whose customer never changed) is answered from the seeded maker alone, byte for byte
as before; ``revision(uuid)`` moves with every edit of a catalog, for whatever caches its answers.

What moves when, as enterprise-catalog has it (``apps/api/v1/serializers.py``):

- an item's ``content_last_modified`` is the latest of its own, its catalog's and its customer's
  modification times: creating, updating or touching an item moves it on that item; changing a
  customer moves it on every item of the customer's catalogs;
- a catalog's record's ``content_last_modified`` is the latest modification time of its items
  (``EnterpriseCatalogSerializer.get_content_last_modified``): creating, updating or touching an
  item moves it; removing an item or changing the customer does not;
- the catalog's ``count`` (and so its pages) follows the items created and removed.

Every edit happens at the next tick of a clock of its own (a second apart, starting a day after
the data's anchor), so the same edits give the same answers.
"""

from __future__ import annotations

import copy
import datetime
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs
from attrs import define, field

from ._records import CatalogRecord, iso

__all__ = ["CatalogEdits"]

Shape = Callable[[int], dict[str, Any]]
"""Seeded item ``index`` of a catalog, in the shape the handler serves."""
Shaper = Callable[[CatalogRecord], Shape]
"""The catalog handler's maker of a catalog's seeded items, as it serves them."""
Place = int | str
"""An item by its position in the catalog's contents (from 0), or by its ``key`` (else ``uuid``)."""


@define
class _Entry:
    """One item of an edited catalog: seeded item ``index`` (with ``fields`` replaced), or an item
    created whole (``own``); ``moved``: when it last changed (None: as seeded)."""

    index: int | None
    own: dict[str, Any] | None = None
    fields: dict[str, Any] = field(factory=dict)
    moved: datetime.datetime | None = None


@define
class _Catalog:
    entries: list[_Entry]
    revision: int = 0
    latest: datetime.datetime | None = None
    """The latest time an item of it was created, updated or touched."""


class CatalogEdits:
    """The edits made to one sandbox's catalogs (``sandbox.edits``).

    Every method takes a catalog by uuid; an item is named by its position in the catalog's
    contents as served now (from 0) or by its ``key`` (a program, a pathway or a video: its
    ``uuid`` or ``key``). Safe to call from a test while the sandbox serves requests.
    """

    def __init__(self, catalogs: Callable[[str], CatalogRecord | None], anchor: datetime.datetime) -> None:
        self._find = catalogs
        self._start = _aware(anchor) + datetime.timedelta(days=1)
        self._ticks = 0
        self._catalogs: dict[str, _Catalog] = {}
        self._customers: dict[str, datetime.datetime] = {}
        self._shaper: Shaper | None = None
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return (
            f"CatalogEdits({len(self._catalogs)} catalogs edited, {len(self._customers)} customers changed)"
        )

    # ------------------------------------------------------------------ reading, for the handlers

    def serve_with(self, shaper: Shaper) -> None:
        """How the catalog handler makes a catalog's seeded items (nested, flat or as
        enterprise-catalog serves them): edits find items by key in that shape."""
        self._shaper = shaper

    def edited(self, catalog: CatalogRecord) -> bool:
        """Whether anything of this catalog's contents or record differs from the seeded one."""
        return catalog.uuid in self._catalogs or catalog.customer_uuid in self._customers

    def revision(self, catalog_uuid: str) -> int:
        """How many times the catalog's answers changed (0: never edited)."""
        edited = self._catalogs.get(catalog_uuid)
        return 0 if edited is None else edited.revision

    def record(self, catalog: CatalogRecord) -> CatalogRecord:
        """The catalog's record as edited: its item count and ``content_last_modified``."""
        with self._lock:
            edited = self._catalogs.get(catalog.uuid)
            if edited is None:
                return catalog
            modified, latest = catalog.content_modified, edited.latest
            if latest is not None and latest > _aware(modified):
                modified = latest if modified.tzinfo else latest.replace(tzinfo=None)
            return attrs.evolve(catalog, item_count=len(edited.entries), content_modified=modified)

    def items(self, catalog: CatalogRecord, positions: Iterable[int], shape: Shape) -> list[dict[str, Any]]:
        """The items at ``positions`` of an edited catalog (``edited(catalog)``), as served: each
        the seeded item ``shape`` makes with its edits applied, or the item created there."""
        with self._lock:
            edited = self._catalogs.get(catalog.uuid)
            customer = self._customers.get(catalog.customer_uuid)
            served = []
            for position in positions:
                entry = edited.entries[position] if edited is not None else _Entry(position)
                served.append(self._served(entry, shape, customer))
            return served

    # ------------------------------------------------------------------ editing

    def create(self, catalog_uuid: str, item: Mapping[str, Any], *, at: int | None = None) -> dict[str, Any]:
        """Add ``item`` (a whole item, as the service would send it) at position ``at`` (the end by
        default); the items after it move one place on. Returns the item as it will be served."""
        with self._lock:
            edited, record = self._editing(catalog_uuid)
            now = self._tick(edited)
            entry = _Entry(None, own=copy.deepcopy(dict(item)), moved=now)
            edited.entries.insert(len(edited.entries) if at is None else at, entry)
            return self._served(entry, self._shape(record), None)

    def update(self, catalog_uuid: str, place: Place, **fields: Any) -> None:
        """Replace top-level fields of an item (``title="..."``): its content changes, and its
        ``content_last_modified`` and its catalog's move."""
        with self._lock:
            edited, record = self._editing(catalog_uuid)
            entry = edited.entries[self._position(record, edited, place)]
            entry.fields.update(copy.deepcopy(fields))
            entry.moved = self._tick(edited)

    def touch(self, catalog_uuid: str, place: Place) -> None:
        """Move an item's modification time and nothing else (a refresh that saved it unchanged):
        its ``content_last_modified`` and its catalog's move, its content does not."""
        with self._lock:
            edited, record = self._editing(catalog_uuid)
            entry = edited.entries[self._position(record, edited, place)]
            entry.moved = self._tick(edited)

    def remove(self, catalog_uuid: str, place: Place) -> None:
        """Take an item out of the catalog; the items after it move one place back. The catalog's
        ``content_last_modified`` does not move (the latest of the items left)."""
        with self._lock:
            edited, record = self._editing(catalog_uuid)
            del edited.entries[self._position(record, edited, place)]
            edited.revision += 1

    def change_customer(self, customer_uuid: str) -> None:
        """A change to the customer itself: every item of its catalogs is served with a later
        ``content_last_modified``, and nothing else moves."""
        with self._lock:
            self._customers[customer_uuid] = self._next()
            for uuid, edited in self._catalogs.items():
                found = self._find(uuid)
                if found is not None and found.customer_uuid == customer_uuid:
                    edited.revision += 1

    # ------------------------------------------------------------------ inside

    def _editing(self, catalog_uuid: str) -> tuple[_Catalog, CatalogRecord]:
        record = self._find(catalog_uuid)
        if record is None:
            raise KeyError(f"no catalog {catalog_uuid} in the sandbox")
        edited = self._catalogs.get(catalog_uuid)
        if edited is None:
            entries = [_Entry(index) for index in range(record.item_count)]
            edited = self._catalogs[catalog_uuid] = _Catalog(entries)
        return edited, record

    def _next(self) -> datetime.datetime:
        self._ticks += 1
        return self._start + datetime.timedelta(seconds=self._ticks)

    def _tick(self, edited: _Catalog) -> datetime.datetime:
        """The time of an edit of ``edited`` that changes an item: its catalog's latest too."""
        now = self._next()
        edited.latest = now
        edited.revision += 1
        return now

    def _shape(self, record: CatalogRecord) -> Shape:
        if self._shaper is None:
            raise LookupError("no catalog handler serves these edits: name items by position")
        return self._shaper(record)

    def _position(self, record: CatalogRecord, edited: _Catalog, place: Place) -> int:
        if isinstance(place, int):
            if not 0 <= place < len(edited.entries):
                raise IndexError(f"catalog {record.uuid} has {len(edited.entries)} items, not {place + 1}")
            return place
        shape = self._shape(record)
        for position, entry in enumerate(edited.entries):
            item = entry.own if entry.own is not None else shape(entry.index or 0)
            if place in (item.get("key"), item.get("uuid")):
                return position
        raise KeyError(f"no item {place!r} in catalog {record.uuid}")

    def _served(self, entry: _Entry, shape: Shape, customer: datetime.datetime | None) -> dict[str, Any]:
        """An entry as served: its item with its fields replaced, and ``content_last_modified`` the
        latest of the item's and the customer's times where either moved."""
        item = entry.own if entry.own is not None else shape(entry.index or 0)
        if entry.fields:
            item = {**item, **entry.fields}
        moments = [moment for moment in (entry.moved, customer) if moment is not None]
        sent = item.get("content_last_modified")
        if moments and isinstance(sent, str):
            latest = max(moments)
            if latest > _moment(sent):
                item = {**item, "content_last_modified": iso(latest)}
        return item


def _moment(text: str) -> datetime.datetime:
    """A datetime as the sandbox writes it (``2026-01-15T14:00:00Z``), aware, in UTC."""
    return _aware(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")))


def _aware(moment: datetime.datetime) -> datetime.datetime:
    """``moment``, a naive one taken as UTC (as the sandbox lays its data out)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)
