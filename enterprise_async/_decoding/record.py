"""What a decoded model keeps of the object it came from: only what its own values cannot say.

``to_dict`` writes a decoded model back as the server sent it. Most fields need nothing for that:
a string, a number, a nested model write themselves. The record keeps the rest: which documented
fields the server left out (so that they stay out), the values whose written form differs from
what was sent (``"2024-01-01T00:00:00Z"`` for a datetime, ``"Intermediate"`` for an enum member,
``null`` for an array), and whether the object came from XML. A record with no such values is
shared by every model with the same fields left out, so a clean model costs no record of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["EVERY_FIELD_SENT", "WireRecord", "wire_record"]

_NOTHING_DIFFERS: Mapping[str, Any] = {}


class WireRecord:
    """The fields left out, the values sent that the model's values do not write back, the format."""

    __slots__ = ("differs", "left_out", "text")

    def __init__(self, left_out: frozenset[str], differs: Mapping[str, Any], text: bool) -> None:
        self.left_out = left_out
        self.differs = differs
        self.text = text
        """True when the object came from XML, whose leaves are text whatever the server's types."""

    def __repr__(self) -> str:
        return f"WireRecord(left_out={sorted(self.left_out)}, differs={dict(self.differs)}, text={self.text})"


EVERY_FIELD_SENT = (  # indexed by ``text``
    WireRecord(frozenset(), _NOTHING_DIFFERS, False),
    WireRecord(frozenset(), _NOTHING_DIFFERS, True),
)
_SHARED: dict[tuple[frozenset[str], bool], WireRecord] = {}
_MAX_SHARED = 4096
"""Distinct sets of left-out fields kept for sharing; beyond, records are made per model."""


def wire_record(left_out: frozenset[str], text: bool, differs: Mapping[str, Any] | None = None) -> WireRecord:
    """The record of a decoded model; shared among models when nothing differs."""
    if differs:
        return WireRecord(left_out, differs, text)
    if not left_out:
        return EVERY_FIELD_SENT[text]
    key = (left_out, text)
    record = _SHARED.get(key)
    if record is None:
        record = WireRecord(left_out, _NOTHING_DIFFERS, text)
        if len(_SHARED) < _MAX_SHARED:
            _SHARED[key] = record
    return record
