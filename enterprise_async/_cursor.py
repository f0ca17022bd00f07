"""``ListingCursor``: where a listing stands, as a value that survives the process that read it.

A pager's ``cursor`` tells which page comes next (the query that asks for it: a page number, an
offset, or the service's own ``next`` link) and how many of that page's items were already given.
``pager.resume(cursor)`` starts a listing there, so a job that crashed or was cancelled picks up
where it stopped instead of at page 1. The cursor is tied to its listing (the operation and its
arguments, page size included): offered to another listing it is refused with
``ListingCursorError`` before anything is sent, since its page numbers would mean other items.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Final

import orjson
from attrs import frozen

from ._request import Query
from .errors import ListingCursorError

__all__ = ["CURSOR_VERSION", "ListingCursor", "listing_arguments"]

CURSOR_VERSION: Final = 1


@frozen
class ListingCursor:
    """A position in one listing: opaque to callers, serialisable (``to_json``/``from_json``;
    ``str(cursor)`` is the same text).

    ``page`` is the number, in listing order from 1, of the page the listing continues with, and
    ``query`` the query that asks for it; ``skip`` of its items were given already (a cursor taken
    in the middle of a page). ``before`` counts the items of the pages before it, so a resumed
    listing still checks the envelopes' count. ``done`` marks a listing read to its end.
    """

    listing: str
    """The operation (``catalogs.contents``)."""
    arguments: str
    """A digest of the call's path and query (page size included), without the page driven by the pager."""
    page: int = 1
    query: Query = ()
    skip: int = 0
    before: int = 0
    size: int | None = None
    """The page size numbered pages are computed with, when the listing numbers pages itself."""
    done: bool = False

    def __str__(self) -> str:
        return self.to_json()

    def to_json(self) -> str:
        """The cursor as compact JSON text (store it anywhere; ``from_json`` reads it back)."""
        document = {
            "version": CURSOR_VERSION,
            "listing": self.listing,
            "arguments": self.arguments,
            "page": self.page,
            "query": [list(pair) for pair in self.query],
            "skip": self.skip,
            "before": self.before,
            "size": self.size,
            "done": self.done,
        }
        return orjson.dumps(document).decode()

    @classmethod
    def from_json(cls, text: str | bytes) -> ListingCursor:
        """The cursor ``to_json`` wrote. Raises ``ListingCursorError`` for anything else."""
        try:
            document = orjson.loads(text)
        except (orjson.JSONDecodeError, TypeError) as error:
            raise ListingCursorError(f"not a listing cursor: {error}") from None
        if not isinstance(document, dict) or document.get("version") != CURSOR_VERSION:
            raise ListingCursorError(f"not a listing cursor of version {CURSOR_VERSION}")
        return cls(
            listing=_text(document, "listing"),
            arguments=_text(document, "arguments"),
            page=_count(document, "page", least=1),
            query=_query(document.get("query")),
            skip=_count(document, "skip"),
            before=_count(document, "before"),
            size=None if document.get("size") is None else _count(document, "size", least=1),
            done=_flag(document, "done"),
        )

    def check(self, listing: str, arguments: str) -> None:
        """Refuse this cursor for a listing other than its own."""
        if self.listing != listing:
            raise ListingCursorError(f"the cursor is a position in {self.listing}, not in {listing}")
        if self.arguments != arguments:
            raise ListingCursorError(
                f"the cursor is a position in {listing} called with other arguments (or another page size)"
            )


def listing_arguments(path: str, query: Query, driven: Sequence[str | None]) -> str:
    """The digest that ties a cursor to a call: its path and query, less the parameters the pager
    drives (the page number or offset), whose values change from page to page."""
    kept = sorted((name, value) for name, value in query if name not in driven)
    return hashlib.sha256(orjson.dumps([path, kept])).hexdigest()[:24]


def _text(document: dict[str, Any], key: str) -> str:
    value = document.get(key)
    if not isinstance(value, str) or not value:
        raise ListingCursorError(f"the cursor's {key} must be a non-empty string, got {value!r:.60}")
    return value


def _count(document: dict[str, Any], key: str, *, least: int = 0) -> int:
    value = document.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ListingCursorError(f"the cursor's {key} must be an integer >= {least}, got {value!r:.60}")
    return value


def _flag(document: dict[str, Any], key: str) -> bool:
    value = document.get(key)
    if not isinstance(value, bool):
        raise ListingCursorError(f"the cursor's {key} must be true or false, got {value!r:.60}")
    return value


def _query(value: Any) -> Query:
    pairs = value if isinstance(value, list) else None
    if pairs is None or not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(part, str) for part in pair)
        for pair in pairs
    ):
        raise ListingCursorError(f"the cursor's query must be a list of [name, value] pairs: {value!r:.60}")
    return tuple((name, part) for name, part in pairs)
