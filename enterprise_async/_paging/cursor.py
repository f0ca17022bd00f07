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

from .._request.request import Query
from ..errors import ListingCursorError

__all__ = ["CURSOR_VERSION", "ListingCursor", "listing_arguments"]

CURSOR_VERSION: Final = 3
READABLE_VERSIONS: Final = (1, 2, 3)
"""Version 1 cursors (before the last item and the page sizes were recorded) and version 2 (before
``mark``) are read: their resume checks what it can, by position."""


@frozen
class ListingCursor:
    """A position in one listing: opaque to callers, serialisable (``to_json``/``from_json``;
    ``str(cursor)`` is the same text).

    It records the operation and a digest of its arguments (``extra_query`` included), the page
    size asked for and the one the service answered, and the identity of the last item given, so
    that a resume can find that item in the refetched page.

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
    asked: int | None = None
    """The page size the call asked for (None: the service's default)."""
    answered: int | None = None
    """The size of a full page as the service answered it when the cursor was taken (None: unknown,
    the cursor's page was the last one)."""
    last: str | None = None
    """The identity (``x-sdk-identity-field``) of the last item given; None when the listing's
    items have none, or nothing was given yet."""
    held: Query | None = None
    """The query of the page that holds the last item given, when it is not ``query`` (a cursor
    at a page boundary): a resume reads that page again to find the item."""
    mark: str | None = None
    """When the last item given has no identity: a digest of the items given on its page, which
    a resume compares with the page read again (``ListingMovedError`` when they differ)."""

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
            "asked": self.asked,
            "answered": self.answered,
            "last": self.last,
            "held": None if self.held is None else [list(pair) for pair in self.held],
            "mark": self.mark,
        }
        return orjson.dumps(document).decode()

    @classmethod
    def from_json(cls, text: str | bytes) -> ListingCursor:
        """The cursor ``to_json`` wrote. Raises ``ListingCursorError`` for anything else."""
        try:
            document = orjson.loads(text)
        except (orjson.JSONDecodeError, TypeError) as error:
            raise ListingCursorError(f"not a listing cursor: {error}") from None
        if not isinstance(document, dict) or document.get("version") not in READABLE_VERSIONS:
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
            asked=_size(document, "asked"),
            answered=_size(document, "answered"),
            last=None if document.get("last") is None else _text(document, "last"),
            held=None if document.get("held") is None else _query(document.get("held")),
            mark=None if document.get("mark") is None else _text(document, "mark"),
        )

    def check(self, listing: str, arguments: str) -> None:
        """Refuse this cursor for a listing other than its own."""
        if self.listing != listing:
            raise ListingCursorError(f"the cursor is a position in {self.listing}, not in {listing}")
        if self.arguments != arguments:
            raise ListingCursorError(
                f"the cursor is a position in {listing} called with other arguments (another filter, "
                "extra_query or page size)"
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


def _size(document: dict[str, Any], key: str) -> int | None:
    return None if document.get(key) is None else _count(document, key, least=1)


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
