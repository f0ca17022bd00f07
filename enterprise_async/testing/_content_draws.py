"""The seeded draws and addresses every generated catalog item is made of: a ``random.Random``
per item (seeded with text), uuids, dates as the servers write them, choices and numbers drawn
without ``random``'s own costs (this runs for every item generated), slugs, and the sites items
link to."""

from __future__ import annotations

import datetime
import random
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Final, TypeVar

__all__ = [
    "ENTERPRISE_SITE",
    "MEDIA",
    "PRICES",
    "SITE",
    "below",
    "between",
    "draw_uuid",
    "numbered_slug",
    "pick",
    "seeded_rng",
    "slug_of",
    "slugify",
    "stamp",
    "uuid_text",
]

T = TypeVar("T")

SITE = "https://learning.example.org"
ENTERPRISE_SITE = "https://enterprise.learning.example.org"
MEDIA = "https://media.learning.example.org"
PRICES: Final = ("49.00", "99.00", "149.00", "199.00", "299.00", "1495.00")


def seeded_rng(*parts: object) -> random.Random:
    """The generator of one item or pool, seeded with its parts joined (``"0:item:3:42"``)."""
    return random.Random(":".join(map(str, parts)))


_VERSION_CLEAR = ~((0xF << 76) | (0x3 << 62))
_VERSION_4 = (0x4 << 76) | (0x2 << 62)


def draw_uuid(rng: random.Random) -> str:
    """A version 4 uuid from ``rng`` (as ``uuid.UUID(int=..., version=4)``, without its cost)."""
    return uuid_text(rng.getrandbits(128))


def uuid_text(value: int) -> str:
    """A 128-bit number as a version 4 uuid (its version and variant bits set)."""
    text = f"{(value & _VERSION_CLEAR) | _VERSION_4:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def stamp(moment: datetime.datetime) -> str:
    """A naive UTC datetime as the servers write it (``2026-01-15T14:00:00Z``)."""
    return moment.isoformat(timespec="seconds") + "Z"


def pick(rng: random.Random, choices: Sequence[T]) -> T:
    """One of ``choices`` (``rng.choice`` without its cost: this runs for every generated item)."""
    return choices[int(rng.random() * len(choices))]


def below(rng: random.Random, count: int) -> int:
    """An integer from 0 to ``count - 1`` (``rng.randrange`` without its cost)."""
    return int(rng.random() * count)


def between(rng: random.Random, low: int, high: int) -> int:
    """An integer from ``low`` to ``high`` inclusive (``rng.randint`` without its cost)."""
    return low + int(rng.random() * (high - low + 1))


def slugify(text: str) -> str:
    """``text`` as a URL slug: lowercase words joined by hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


@lru_cache(maxsize=4096)
def slug_of(text: str) -> str:
    """``slugify(text)``, kept: for the vocabulary's few titles, topics and names, made for every item."""
    return slugify(text)


def numbered_slug(text: str, number: int) -> str:
    """``slugify(f"{text}-{number}")`` (``text`` holding a letter or digit), from ``text``'s kept slug."""
    return f"{slug_of(text)}-{number}"
