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
_SHARED: dict[tuple[tuple[str, ...], bool], WireRecord] = {}
_LEFT_OUT: dict[tuple[str, ...], frozenset[str]] = {}
_MAX_SHARED = 4096
"""Distinct lists of left-out fields kept for sharing (of each kind); beyond, each model has its own.
Both caches are keyed by everything their records hold (the fields left out, the format), and
records are never changed: any conversion may share them."""


def wire_record(left: tuple[str, ...], text: bool, differs: Mapping[str, Any] | None = None) -> WireRecord:
    """The record of a decoded model that left out the fields ``left`` (in its class's order); shared
    among models when nothing differs. Its set of fields left out is shared among models that
    leave out the same (a set of twenty names weighs about 700 bytes: most of a held item's record)."""
    if differs:
        return WireRecord(_left_out(left), differs, text)
    if not left:
        return EVERY_FIELD_SENT[text]
    key = (left, text)
    record = _SHARED.get(key)
    if record is None:
        record = WireRecord(_left_out(left), _NOTHING_DIFFERS, text)
        if len(_SHARED) < _MAX_SHARED:
            _SHARED[key] = record
    return record


def _left_out(left: tuple[str, ...]) -> frozenset[str]:
    found = _LEFT_OUT.get(left)
    if found is None:
        found = frozenset(left)
        if len(_LEFT_OUT) < _MAX_SHARED:
            _LEFT_OUT[left] = found
    return found
