"""Open enums: documented values are named members, matched leniently; others stay plain strings."""

from __future__ import annotations

import enum
from typing import Any


def normalized(value: str) -> str:
    """Spelling-insensitive form of an enum value: case, ``_``, ``-`` and blanks do not matter.

    The services send ``Intermediate`` and ``self_paced`` where the reference writes ``intermediate``
    and ``self-paced``.
    """
    return value.casefold().replace("_", "-").replace(" ", "-")


class OpenEnum(str, enum.Enum):
    """Base of the generated enums.

    A member's value is the spelling the services send (``LevelType.INTERMEDIATE == "Intermediate"``,
    ``PacingType.SELF_PACED == "self_paced"``), and a member is a plain ``str`` of that value: it
    compares and hashes like it, so it finds and is found in sets and dict keys. Other spellings of
    a documented value (the reference's ``"intermediate"``, ``"self-paced"``) still give the member:
    ``Member("intermediate")`` and the decoder both find it, and ``to_dict`` writes the spelling the
    server sent. Such a spelling does not compare equal to the member: one object cannot hash like
    two different strings, so members equal the services' spelling alone. A value that matches no
    member raises ``ValueError`` here and is kept as a plain string by the decoder.
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
