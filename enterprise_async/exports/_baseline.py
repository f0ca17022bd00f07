"""What a change feed compares a catalog's new listing with: the baseline, what the consumer holds.

The baseline of a catalog is its previous complete export (``<uuid>.jsonl``), and the items that
export held back for the consumer (``<uuid>.held.jsonl``: items whose removal a run did not report,
and the previous copies of items it could not read). It is read in one pass, and what is kept of
each item is its identity, a digest of its content and where its line is (to read that one line
again when the item was updated, for the fields that changed): memory grows with the number of
items, never with their size.

An item's identity and what is no part of its content are spec data (``x-sdk-changes`` of the item
schema, carried by the listing's ``Pagination``): a catalog item is ``<content_type>:<key>`` (no
two items of enterprise-catalog share a content key), else ``<content_type>:<uuid>``, else its
``aggregation_key``; ``content_last_modified`` moves without its content. Two items of one listing
that still share an identity (a page read twice as the listing shifted, or a service that repeats
a key) are told apart by their order: the second is ``<identity>#2``, and the feed reports it.
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, Final

import orjson
from attrs import frozen

from .._generated.conversion import CONVERSION
from .._spec import Pagination
from ..errors import ResponseDecodeError

__all__ = ["Baseline", "ItemNames", "Kept"]

DIGEST_SIZE: Final = 16
"""Bytes of an item's content digest (BLAKE2b): collisions are out of reach at any catalog size."""


@frozen
class Kept:
    """One item of the baseline: its content's digest, and where its line is."""

    digest: bytes
    source: int
    """Which baseline file holds its line (an index into ``Baseline.paths``)."""
    offset: int
    length: int


class ItemNames:
    """Names and digests of one listing's items, as its ``Pagination`` says (``x-sdk-changes``)."""

    def __init__(self, pagination: Pagination) -> None:
        self.pagination = pagination
        self.templates = pagination.change_identity or _cursor_templates(pagination)
        self.not_content = frozenset(pagination.not_content)
        self._types = dict(pagination.identity_types)
        self._seen: set[str] = set()
        self._repeats: dict[str, int] = {}
        self.repeated = 0
        """Items named by an identity another item of the same pass already had."""

    def fresh(self) -> ItemNames:
        """Names for another pass (a new listing), counting repeats anew."""
        return ItemNames(self.pagination)

    def name(self, data: Mapping[str, Any], variant: type[Any] | None = None) -> str | None:
        """The identity of an item written as ``data`` (``to_dict``), its second occurrence in this
        pass ``<identity>#2``; ``variant``, the class it decoded to, names its type where ``data``
        names none (else it is decoded to find out). None for an item no template can name."""
        base = self.base_name(data, variant)
        if base is None:
            return None
        if base not in self._seen:
            self._seen.add(base)
            return base
        count = self._repeats[base] = self._repeats.get(base, 1) + 1
        self.repeated += 1
        return f"{base}#{count}"

    def base_name(self, data: Mapping[str, Any], variant: type[Any] | None = None) -> str | None:
        """The identity of ``data`` by the first template whose every field it has, before telling
        repeats apart; the union's discriminator is read from ``variant`` where ``data`` lacks it."""
        found = self.named(data, variant)
        return None if found is None else found[1]

    def named(self, data: Mapping[str, Any], variant: type[Any] | None = None) -> tuple[int, str] | None:
        """Which template names ``data`` (its place among the templates) and the name it gives."""
        for place, template in enumerate(self.templates):
            found = self._by(template, data, variant)
            if found is not None:
                return place, found
        return None

    def every_name(self, data: Mapping[str, Any]) -> frozenset[tuple[int, str]]:
        """Every name ``data`` has, by each template whose fields it has (with the template's place)."""
        names = set()
        for place, template in enumerate(self.templates):
            found = self._by(template, data, None)
            if found is not None:
                names.add((place, found))
        return frozenset(names)

    def _by(self, template: str, data: Mapping[str, Any], variant: type[Any] | None) -> str | None:
        """The name ``template`` gives ``data``; None when it lacks one of the template's fields."""
        kind = self.pagination.identity_type_field
        values: dict[str, Any] = {}
        for name in _placeholders(template):
            value = data.get(name)
            if _blank(value) and name == kind:
                value = self._type_of(data, variant)
            if _blank(value):
                return None
            values[name] = value
        return template.format_map(values)

    def _type_of(self, data: Mapping[str, Any], variant: type[Any] | None) -> str | None:
        if variant is None:
            try:
                variant = type(CONVERSION.from_dict(self.pagination.item_type, data))
            except ResponseDecodeError:
                return None
        return self._types.get(variant.__name__)

    def digest(self, data: Mapping[str, Any]) -> bytes:
        """A digest of an item's content: every field but those that are no part of it, in any
        order the service sends them."""
        content = {key: value for key, value in data.items() if key not in self.not_content}
        return hashlib.blake2b(
            orjson.dumps(content, option=orjson.OPT_SORT_KEYS), digest_size=DIGEST_SIZE
        ).digest()

    def changed_fields(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
        """The top-level fields whose values differ (sent on one side only included)."""
        missing = object()
        names = [*after, *(name for name in before if name not in after)]
        return [
            name
            for name in names
            if name not in self.not_content and before.get(name, missing) != after.get(name, missing)
        ]


class Baseline:
    """The items a consumer holds of one catalog, by identity (see the module's docstring).

    ``take`` hands an item over once (a later ``take`` of it finds nothing), so what is left after
    a listing is what the listing did not show: the removals, or the items held back."""

    def __init__(self, paths: Sequence[Path], names: ItemNames) -> None:
        self.paths = tuple(paths)
        self.kept: dict[str, Kept] = {}
        self._files: dict[int, BinaryIO] = {}
        for source, path in enumerate(self.paths):
            for offset, line in _lines(path):
                data = orjson.loads(line)
                identity = names.name(data) if isinstance(data, dict) else None
                if identity is not None:
                    self.kept[identity] = Kept(names.digest(data), source, offset, len(line))

    def __len__(self) -> int:
        return len(self.kept)

    def take(self, identity: str) -> Kept | None:
        """The baseline's item of ``identity``, once; None when it has none (or gave it already)."""
        return self.kept.pop(identity, None)

    def line(self, kept: Kept) -> bytes:
        """The line of an item of the baseline, read again from its file."""
        file = self._files.get(kept.source)
        if file is None:
            file = self._files[kept.source] = self.paths[kept.source].open("rb")
        file.seek(kept.offset)
        return file.read(kept.length)

    def close(self) -> None:
        for file in self._files.values():
            file.close()
        self._files.clear()


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """Each non-empty line of a file with its offset, its newline left out."""
    offset = 0
    with path.open("rb") as file:
        for line in file:
            text = line.rstrip(b"\r\n")
            if text.strip():
                yield offset, text
            offset += len(line)


def _blank(value: Any) -> bool:
    return value is None or value == ""


def _cursor_templates(pagination: Pagination) -> tuple[str, ...]:
    """Without ``x-sdk-changes``: the cursor's identity field, then its fallbacks."""
    field = (f"{{{pagination.identity}}}",) if pagination.identity else ()
    return (*field, *pagination.identity_fallbacks)


@lru_cache(maxsize=64)
def _placeholders(template: str) -> tuple[str, ...]:
    return tuple(name for _, name, _, _ in string.Formatter().parse(template) if name)
