"""The change feed of one catalog's export: what was created, updated and removed since the baseline.

``ChangeFeed`` is told each item as it is written (and each item that could not be read), in one
pass over the new listing, and writes one JSON line per change to the catalog's changes file:

- ``{"change": "created", "identity": ..., "item": {...}}``: an item the baseline did not hold;
- ``{"change": "updated", "identity": ..., "fields": [...], "item": {...}}``: one whose content
  differs from the baseline's (``fields``: the top-level fields that differ; ``content_last_modified``
  alone moving is no change), with the item as sent;
- ``{"change": "removed", "identity": ...}``: one the baseline held and the listing did not show,
  written once the listing has ended, only when the listing can vouch that it is gone.

A listing vouches for a removal only when it was read to its end with nothing to doubt: every
envelope promised the same count, no item came twice (pages that shift while they are read repeat
some items and skip others), every item it could not read had some name, and the catalog's
record had not moved by its end. Otherwise no removal is reported, the feed says why
(``ChangeCounts.note``), and the items not shown are *held*: written to the catalog's held file,
they stay part of the baseline, and a later run reports them removed once a listing vouches for
it. An item that could not be read is neither created nor removed: its baseline copy (if any) is
held the same way, and the next run that reads it reports it updated. One that lacks the key that
names it (``course:<key>``) is matched by its other names (``course:<uuid>``): a baseline item
sharing one is held, not removed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import orjson
from attrs import evolve, frozen

from .._utils.json_types import JSONValue
from ._atomic_file import AtomicFile
from ._baseline import Baseline, ItemNames

__all__ = ["NO_BASELINE", "ChangeCounts", "ChangeFeed"]

NO_BASELINE: Final = "no previous complete export to compare with: every item is created"


@frozen
class ChangeCounts:
    """What changed in one catalog (or, summed, in an export) since its baseline."""

    created: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    held: int = 0
    """Items the baseline held that the listing did not show, and whose removal it did not report
    (or could not read): held back for the next run (see ``note``)."""
    note: str | None = None
    """Why no removal was reported, when none could be; or that there was no baseline."""

    def __str__(self) -> str:
        text = (
            f"{self.created:,} created, {self.updated:,} updated, {self.removed:,} removed, "
            f"{self.unchanged:,} unchanged"
        )
        if self.held:
            text += f", {self.held:,} held"
        return text

    def __add__(self, other: ChangeCounts) -> ChangeCounts:
        return ChangeCounts(
            self.created + other.created,
            self.updated + other.updated,
            self.removed + other.removed,
            self.unchanged + other.unchanged,
            self.held + other.held,
        )

    @property
    def changed(self) -> int:
        """Lines in the changes file: created, updated and removed items."""
        return self.created + self.updated + self.removed

    def to_dict(self) -> dict[str, JSONValue]:
        """JSON-ready data."""
        return {
            "created": self.created,
            "updated": self.updated,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "held": self.held,
            "note": self.note,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChangeCounts:
        """The counts ``to_dict`` wrote."""
        return cls(
            int(data.get("created", 0)),
            int(data.get("updated", 0)),
            int(data.get("removed", 0)),
            int(data.get("unchanged", 0)),
            int(data.get("held", 0)),
            data.get("note"),
        )


class ChangeFeed:
    """One catalog's changes against ``baseline`` (None: there is none, every item is created),
    written to ``out`` as the items come."""

    def __init__(self, baseline: Baseline | None, names: ItemNames, out: AtomicFile) -> None:
        self.baseline = baseline
        self.names = names
        self.out = out
        self.counts = ChangeCounts(note=None if baseline is not None else NO_BASELINE)
        self.kept_back: dict[str, Any] = {}
        """Baseline items held because this run could not read them, by identity."""
        self.unnamed: list[frozenset[tuple[int, str]]] = []
        """The names (by every other template) of each unreadable item the first template could not
        name: it lacks the key that names it, so it may be a baseline item by that key."""
        self.nameless = 0
        """Unreadable items no template can name: any baseline item may be one of them."""
        self.promised: set[int] = set()
        """Every count the listing's envelopes promised."""

    def item(self, data: Mapping[str, Any], variant: type[Any] | None, *, write: bool = True) -> None:
        """An item of the new listing, as written (``to_dict``); ``variant``: the class it decoded to.
        ``write=False`` counts it without writing (a resume going over what was written before)."""
        identity = self.names.name(data, variant)
        kept = self.baseline.take(identity) if self.baseline is not None and identity is not None else None
        if kept is None:
            self.counts = evolve(self.counts, created=self.counts.created + 1)
            if write:
                self._write({"change": "created", "identity": identity, "item": data})
            return
        if kept.digest == self.names.digest(data):
            self.counts = evolve(self.counts, unchanged=self.counts.unchanged + 1)
            return
        self.counts = evolve(self.counts, updated=self.counts.updated + 1)
        if write:
            assert self.baseline is not None
            before = orjson.loads(self.baseline.line(kept))
            fields = self.names.changed_fields(before, data) if isinstance(before, dict) else list(data)
            self._write({"change": "updated", "identity": identity, "fields": fields, "item": data})

    def rejected(self, raw: Any) -> str | None:
        """An item of the new listing that could not be read (``raw``: as sent): neither created
        nor removed; its baseline copy, if any, is held. Its identity, when it has one.

        One that the first template cannot name (its content key is what is missing) may be an
        item the baseline holds under that key: each baseline item it shares another name with
        (its uuid) is then held rather than removed; and when it has no name at all, no removal
        can be vouched for."""
        named = self.names.named(raw) if isinstance(raw, dict) else None
        identity = self.names.name(raw) if named is not None else None
        if named is None:
            self.nameless += 1
        elif named[0] > 0:
            self.unnamed.append(self.names.every_name(raw))
        if identity is None:
            return None
        if self.baseline is not None:
            kept = self.baseline.take(identity)
            if kept is not None:
                self.kept_back[identity] = kept
        return identity

    def promise(self, count: int | None) -> None:
        """The count a page's envelope promised."""
        if count is not None:
            self.promised.add(count)

    def doubts(self, *, record_moved: bool = False) -> str | None:
        """Why this listing cannot vouch for removals; None when it can."""
        if len(self.promised) > 1:
            counts = " -> ".join(f"{count:,}" for count in sorted(self.promised))
            return f"the catalog's count moved while it was read ({counts}): removals wait for the next run"
        if self.names.repeated:
            return (
                f"{self.names.repeated} item(s) came twice in the listing (its pages shifted while they "
                "were read): removals wait for the next run"
            )
        if self.nameless:
            return (
                f"{self.nameless} unreadable item(s) carry no name at all: removals wait for a run "
                "that reads them"
            )
        if record_moved:
            return "the catalog changed while it was read: removals wait for the next run"
        return None

    @property
    def candidates(self) -> int:
        """Baseline items the listing has not shown so far (removed, unless held)."""
        return len(self.baseline) if self.baseline is not None else 0

    def finish(self, held: AtomicFile, *, record_moved: bool = False) -> ChangeCounts:
        """After the listing's last page: each baseline item it did not show is removed, or, when
        the listing cannot vouch for that (``doubts``), held (its line written to ``held``), with
        the baseline copies of the items it could not read. The counts, with why nothing was
        removed where nothing could be."""
        baseline = self.baseline
        doubt = self.doubts(record_moved=record_moved)
        held_count = maybe = 0
        if baseline is not None:
            for kept in self.kept_back.values():
                held.write(baseline.line(kept) + b"\n")
                held_count += 1
            for identity, kept in sorted(baseline.kept.items()):
                line = baseline.line(kept)
                if doubt is None and not self._may_be_unread(line):
                    self._write({"change": "removed", "identity": identity})
                    self.counts = evolve(self.counts, removed=self.counts.removed + 1)
                    continue
                held.write(line + b"\n")
                held_count += 1
                maybe += doubt is None
            baseline.kept.clear()
            baseline.close()
        note = self.counts.note
        if baseline is not None:  # a doubt is told where it held something back
            note = doubt if doubt is not None and held_count > len(self.kept_back) else None
            if maybe:
                note = (
                    f"{maybe} item(s) not shown may be unreadable ones lacking the key that names them "
                    "(they share another name): held for a run that reads them"
                )
        self.counts = evolve(self.counts, held=held_count, note=note)
        self.out.flush()
        return self.counts

    def _may_be_unread(self, line: bytes) -> bool:
        """Whether a baseline item the listing did not show shares a name with an unreadable item
        the first template could not name (then it may be that item, its key left out)."""
        if not self.unnamed:
            return False
        data = orjson.loads(line)
        names = self.names.every_name(data) if isinstance(data, dict) else frozenset()
        return any(names & unread for unread in self.unnamed)

    def replay(self, written: Iterable[bytes], rejected: Iterable[Mapping[str, Any]]) -> None:
        """Go over what an earlier run of this export wrote before it stopped (its items, its
        rejects), counting as that run did, without writing: the feed then stands where it stood."""
        for line in written:
            data = orjson.loads(line)
            if isinstance(data, dict):
                self.item(data, None, write=False)
        for reject in rejected:
            self.rejected(reject.get("item"))

    def _write(self, change: dict[str, Any]) -> None:
        self.out.write(orjson.dumps(change) + b"\n")
