"""Open enums: documented values are named members, matched leniently; others stay plain strings."""

from __future__ import annotations

import enum
from typing import Any


def normalized(value: str) -> str:
    """Spelling-insensitive form of an enum value: case, ``_``, ``-`` and blanks do not matter.

    The reference shows ``Intermediate`` for ``intermediate`` and ``self_paced`` for ``self-paced``.
    """
    return value.casefold().replace("_", "-").replace(" ", "-")


class OpenEnum(str, enum.Enum):
    """Base of the generated enums.

    Members compare equal to their wire value (``AssignmentState.ALLOCATED == "allocated"``).
    ``Member("Intermediate")`` finds ``INTERMEDIATE`` whatever the spelling, and so does the
    decoder: a field sent as ``"Intermediate"`` holds ``LevelType.INTERMEDIATE``, equal to (and
    hashing like) the member, while ``to_dict`` writes the spelling the server sent. A plain string
    compares as a string: were ``INTERMEDIATE == "Intermediate"`` true too, the member could not
    hash like both ``"intermediate"`` and ``"Intermediate"``. A value that matches no member raises
    ``ValueError`` here and is kept as a plain string by the decoder.
    """

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, str):
            return None
        wanted = normalized(value)
        for member in cls:
            if normalized(member.value) == wanted:
                return member
        return None

    def __str__(self) -> str:
        return str(self.value)
