"""``spec/service-differences.yaml``: the differences between the spec and a service's document that
are deliberate, each with its reason; `compare` leaves them out unless ``--all`` is given.

Each entry names one difference by ``kind``, ``model`` and ``field`` (as `compare` prints them) and
says ``why``: ``gateway`` (the gateway strips or renames it), ``reference`` (the reference promises
more than this service), ``document`` (the service's document is wrong where its serializer is
right: ``serializer`` names that serializer's ``file:line``), ``elsewhere`` (the field is another
service's, the model being shared), or ``spec`` (the spec says it on purpose another way); and
``reason``, in words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from attrs import frozen

from codegen.compare.documents import UnreadableError
from codegen.compare.walk import KINDS, Difference

WHYS = ("gateway", "reference", "document", "elsewhere", "spec")


@frozen
class Known:
    """One deliberate difference."""

    kind: str
    model: str
    field: str
    why: str
    reason: str
    serializer: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.model, self.field)


def read_known(path: Path, service: str) -> list[Known]:
    """The deliberate differences listed for ``service``; a malformed file is unreadable input."""
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, yaml.YAMLError) as error:
        raise UnreadableError(f"cannot read {path}: {error}".splitlines()[0]) from None
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise UnreadableError(f"{path}: must map each service to its list of differences")
    entries = document.get(service) or []
    if not isinstance(entries, list):
        raise UnreadableError(f"{path}: {service} must be a list of differences")
    return [_entry(path, service, index, entry) for index, entry in enumerate(entries)]


def _entry(path: Path, service: str, index: int, entry: Any) -> Known:
    where = f"{path}: {service}[{index}]"
    if not isinstance(entry, Mapping):
        raise UnreadableError(f"{where}: must be a mapping of kind, model, field, why and reason")
    kind, why, reason = entry.get("kind"), entry.get("why"), entry.get("reason")
    if kind not in KINDS or kind == "unresolved":
        raise UnreadableError(f"{where}: kind must be one of {', '.join(KINDS[:-1])}")
    if why not in WHYS:
        raise UnreadableError(f"{where}: why must be one of {', '.join(WHYS)}")
    if not isinstance(reason, str) or not reason.strip():
        raise UnreadableError(f"{where}: needs a reason")
    serializer = entry.get("serializer")
    if why == "document" and not (isinstance(serializer, str) and _file_and_line(serializer)):
        raise UnreadableError(f"{where}: why: document needs serializer: <repo file>:<line>")
    return Known(
        kind, str(entry.get("model", "")), str(entry.get("field", "")), why, reason.strip(), serializer
    )


def _file_and_line(value: str) -> bool:
    file, _, line = value.rpartition(":")
    return bool(file) and line.isdigit()


def split(
    found: Iterable[Difference], known: Iterable[Known]
) -> tuple[list[Difference], list[Difference], list[Known]]:
    """The differences not listed, those listed, and the listed ones no longer found."""
    listed = {entry.key: entry for entry in known}
    new: list[Difference] = []
    deliberate: list[Difference] = []
    for difference in found:
        (deliberate if difference.key in listed else new).append(difference)
    seen = {difference.key for difference in found}
    stale = [entry for entry in listed.values() if entry.key not in seen]
    return new, deliberate, stale
