"""The drift report: what the responses held that the spec does not describe.

The tolerant decoder notices every unknown field (kept in a model's ``extra``), every enum value
outside the spec (kept as a plain string), every value its declared type does not allow (kept
as sent) and every discriminator value that names no type of the spec (a ``content_type`` of
``"podcast"``, a ``policy_type`` the spec does not list), with the class it was decoded as
instead; and every field the spec calls required that an answer left out or sent as null
(``missing_required``: the answer raised ``ResponseDecodeError``, and the report still counts
it). The client notices a success status its operation does not document. Each response's
findings are handed to the client's ``DriftCollector`` (nothing global: one per client, shared by
its ``with_options`` views), which counts them by kind, operation, model and field and keeps the
first place each was seen. ``client.drift()`` returns them as a ``DriftReport``.

A clean response costs one empty list and a look at it: nothing is walked, counted or written
unless something drifted. Nothing secret reaches a report: field names, paths and enum values go
through the client's ``Redactor``, and other values are shown only by their JSON kind.
"""

from __future__ import annotations

import re
import threading
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal, get_args, get_origin

from attrs import frozen

from .._utils.constants import UNDOCUMENTED_OPERATION
from .._utils.json_types import JSONValue
from .._utils.redaction import Redactor
from . import Finding, PathsWanted, type_name

__all__ = ["LEFT_OUT", "MAX_DRIFT_ENTRIES", "DriftCollector", "DriftEntry", "DriftKind", "DriftReport"]

DriftKind = Literal[
    "unknown_field", "enum_value", "kept_as_sent", "unknown_type", "missing_required", "undocumented_status"
]

MAX_DRIFT_ENTRIES: Final = 1000
"""Distinct findings a client keeps; beyond, they are only counted (``DriftReport.omitted``), so a
server that invents a new field name per item cannot grow the report without bound."""

_SHOWN_VALUE_LENGTH: Final = 60
_KEPT_VALUE_LENGTH: Final = 200
_INDEX = re.compile(r"\[\d+\]")
_VALUED: Final = frozenset({"enum_value", "unknown_type"})
"""Kinds whose entries are told apart by the value sent (each unknown type is an entry of its own)."""
_KIND_TITLES: Final[Mapping[str, str]] = {
    "unknown_field": "unknown field",
    "enum_value": "enum value outside the spec",
    "kept_as_sent": "value kept as sent",
    "unknown_type": "type the spec does not know",
    "missing_required": "required field missing",
    "undocumented_status": "undocumented status",
}


@frozen
class DriftEntry:
    """One thing the responses held that the spec does not describe, and how often.

    ``field`` is the wire field inside ``model``, with ``[]`` for any item of an array
    (``seat_types[]``); ``example`` is the first place it was seen, from the operation's answer
    down (``catalogs.contents > results[3].foo``). ``declared`` is what the spec declares there
    (empty for an unknown field); ``sent`` the JSON kinds that arrived (``string``, ``null``...).
    ``value`` is the enum value outside the spec, the discriminator value that names no type, or
    the undocumented status; None otherwise.

    For an ``unknown_type``, ``model`` is the class the value was decoded as (the union's fallback,
    such as ``ContentMetadata``), ``field`` the discriminator (``content_type``) and ``declared``
    the union, or the model, whose types the spec lists (``ContentItem``).
    """

    kind: DriftKind
    operation: str
    model: str
    field: str
    count: int
    example: str
    declared: str = ""
    sent: tuple[str, ...] = ()
    value: str | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        """The entry as JSON-ready data."""
        return {
            "kind": self.kind,
            "operation": self.operation,
            "model": self.model,
            "field": self.field,
            "count": self.count,
            "example": self.example,
            "declared": self.declared,
            "sent": list(self.sent),
            "value": self.value,
        }

    def __str__(self) -> str:
        if self.kind == "unknown_type":
            return (
                f"{_KIND_TITLES[self.kind]}: {self.declared}.{self.field} {self.value!r}, decoded as "
                f"{self.model} ({self.count}x); e.g. {self.example}"
            )
        where = f"{self.model}.{self.field}" if self.model else self.operation
        what = f" {self.value!r}" if self.value is not None else ""
        declared = f", declared {self.declared}" if self.declared else ""
        sent = f", sent {'/'.join(self.sent)}" if self.sent else ""
        return (
            f"{_KIND_TITLES[self.kind]}: {where}{what} ({self.count}x{declared}{sent}); e.g. {self.example}"
        )


@frozen
class DriftReport:
    """What the responses of a client (and its views) held that the spec does not describe.

    Each entry says what was found (``kind``), on which operation, where, how often, and the first
    place it was seen: what ``spec/`` should learn to stay true to the deployment (see
    spec/README.md, *Keeping spec/ true*). ``omitted`` counts findings beyond ``MAX_DRIFT_ENTRIES``
    distinct ones, which are not listed. ``str(report)`` reads as a short list; ``to_dict()``
    is JSON-ready.
    """

    entries: tuple[DriftEntry, ...] = ()
    omitted: int = 0

    def __bool__(self) -> bool:
        return bool(self.entries) or self.omitted > 0

    def __len__(self) -> int:
        return len(self.entries)

    def of_kind(self, kind: DriftKind) -> tuple[DriftEntry, ...]:
        """The entries of one kind (``"unknown_field"``...)."""
        return tuple(entry for entry in self.entries if entry.kind == kind)

    def to_dict(self) -> dict[str, JSONValue]:
        """The report as JSON-ready data: ``{"entries": [...], "omitted": n}``."""
        return {"entries": [entry.to_dict() for entry in self.entries], "omitted": self.omitted}

    def __str__(self) -> str:
        if not self:
            return "drift: none; every response fit the spec"
        total = sum(entry.count for entry in self.entries)
        things = "thing" if len(self.entries) == 1 else "things"
        times = "time" if total == 1 else "times"
        lines = [f"drift: {len(self.entries)} {things} the spec does not describe, seen {total} {times}"]
        lines += [f"  {entry}" for entry in self.entries]
        if self.omitted:
            lines.append(f"  ... and {self.omitted} more findings not listed (over {MAX_DRIFT_ENTRIES})")
        return "\n".join(lines)


_Key = tuple[str, str, str, str, str]
"""kind, operation, model, field (indices dropped), and the value or declared type."""


class _Tally:
    """One entry as it grows: a count, the first example, the JSON kinds sent."""

    __slots__ = ("count", "declared", "example", "sent", "value")

    def __init__(self, declared: str, value: str | None) -> None:
        self.count = 0
        self.example = ""
        self.declared = declared
        self.value = value
        self.sent: set[str] = set()


class DriftCollector:
    """Where a client's responses report their drift; ``report()`` reads it, ``clear()`` starts over.

    Safe to share among the views of a client, and across threads (a lock, taken only when a
    response drifted).
    """

    def __init__(self, redactor: Redactor | None = None) -> None:
        self._redactor = redactor or Redactor()
        self._tallies: dict[_Key, _Tally] = {}
        self._omitted = 0
        self._lock = threading.Lock()
        self._declared_names: dict[Any, str] = {}

    def record(self, operation: str, findings: Iterable[Finding]) -> None:
        """Count what the decoder found in one answer of ``operation``."""
        with self._lock:
            for finding in findings:
                key, declared_name = self._key(operation, finding)
                tally = self._tally(key, declared_name, key[4] if finding[0] in _VALUED else None)
                if tally is None:
                    continue
                if not tally.example:
                    tally.example = f"{operation} > {self._redactor.text(finding[1] or finding[3])}"
                tally.sent.add(json_kind(finding[5]))

    def wants_paths(self, operation: str) -> PathsWanted:
        """For the decoder: whether an answer of ``operation`` found something not counted yet, whose
        first place the report needs (a search through the answer); repeats are only counted."""

        def new_among(findings: list[Finding]) -> bool:
            with self._lock:
                if len(self._tallies) >= MAX_DRIFT_ENTRIES:
                    return False
                return any(self._key(operation, finding)[0] not in self._tallies for finding in findings)

        return new_among

    def _key(self, operation: str, finding: Finding) -> tuple[_Key, str]:
        """The entry a finding counts for (its value kept for an enum value or an unknown type), and
        its declared type."""
        kind, _, model, where, declared, value = finding
        field = _INDEX.sub("[]", where) if "[" in where else where
        declared_name = self._declared_name(declared)
        detail = _kept_value(value) if kind in _VALUED else declared_name
        return (kind, operation, model, field, detail), declared_name

    def record_status(self, operation: str, status: int, documented: Iterable[int], request: str) -> None:
        """Count a success status that ``operation`` does not document (``request``: ``GET /path``).

        Calls of ``client.request`` describe no status of their own, so they are left out.
        """
        if operation == UNDOCUMENTED_OPERATION:
            return
        declared = ", ".join(str(code) for code in sorted(documented))
        with self._lock:
            key = ("undocumented_status", operation, "", "", str(status))
            tally = self._tally(key, declared, str(status))
            if tally is not None and not tally.example:
                tally.example = f"{operation} > {self._redactor.text(request)}"

    def report(self) -> DriftReport:
        """What was found so far, most frequent first."""
        with self._lock:
            entries = [
                DriftEntry(
                    kind=key[0],  # type: ignore[arg-type]
                    operation=key[1],
                    model=key[2],
                    field=self._redactor.text(key[3]),
                    count=tally.count,
                    example=tally.example,
                    declared=tally.declared,
                    sent=tuple(sorted(tally.sent)),
                    value=self._shown_value(tally.value) if tally.value is not None else None,
                )
                for key, tally in self._tallies.items()
            ]
            omitted = self._omitted
        entries.sort(key=lambda entry: (-entry.count, entry.kind, entry.operation, entry.model, entry.field))
        return DriftReport(tuple(entries), omitted)

    def clear(self) -> None:
        """Forget everything found so far."""
        with self._lock:
            self._tallies.clear()
            self._omitted = 0

    def _tally(self, key: _Key, declared: str, value: str | None) -> _Tally | None:
        """The entry of ``key``, counted once more; made on first sight, without its example yet
        (None past ``MAX_DRIFT_ENTRIES``)."""
        tally = self._tallies.get(key)
        if tally is None:
            if len(self._tallies) >= MAX_DRIFT_ENTRIES:
                self._omitted += 1
                return None
            tally = self._tallies[key] = _Tally(declared, value)
        tally.count += 1
        return tally

    def _declared_name(self, type_: Any) -> str:
        name = self._declared_names.get(type_)
        if name is None:
            name = self._declared_names[type_] = declared_name_of(type_)
        return name

    def _shown_value(self, value: str) -> str:
        """A value as a report shows it: secrets hidden first, then cut short."""
        text = self._redactor.text(value)
        return text if len(text) <= _SHOWN_VALUE_LENGTH else text[: _SHOWN_VALUE_LENGTH - 3] + "..."


def _kept_value(value: Any) -> str:
    """An enum value or a type as an entry keeps it until a report shows it (secrets are hidden then)."""
    text = value if isinstance(value, str) else repr(value)
    return text[:_KEPT_VALUE_LENGTH]


def declared_name_of(type_: Any) -> str:
    """A declared type as the spec's reader knows it: ``LevelType | str``, ``datetime``; empty for none."""
    if type_ is None:
        return ""
    if get_origin(type_) in (typing.Union, types.UnionType):
        return " | ".join(declared_name_of(member) for member in get_args(type_))
    return type_name(type_)


class _LeftOut:
    """What a finding holds as the value of a required field the answer left out."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "LEFT_OUT"


LEFT_OUT: Final = _LeftOut()


def json_kind(value: Any) -> str:
    """The JSON kind of a decoded value: ``string``, ``integer``, ``number``, ``boolean``, ``null``,
    ``array`` or ``object`` (XML leaves are text, so they read ``string``); ``absent`` for a field
    left out (``LEFT_OUT``)."""
    if value is LEFT_OUT:
        return "absent"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, (float,)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__
