"""The seeded draws the sandbox's initial world is generated from (``_data`` and the records of
each service): a ``random.Random`` per purpose, seeded with text (``"{seed}:policies"``...), so the
same seed gives the same world everywhere; uuids and day spans drawn from it; a course of a catalog
to assign or report on."""

from __future__ import annotations

import datetime
import random
import uuid

from ._content import KIND_CYCLE
from ._records import CatalogRecord

__all__ = ["course_indexes", "in_days", "pick_course", "seeded_rng", "seeded_uuid"]


def seeded_rng(seed: int, *parts: object) -> random.Random:
    return random.Random(":".join(map(str, (seed, *parts))))


def seeded_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def in_days(count: float) -> datetime.timedelta:
    return datetime.timedelta(days=count)


def course_indexes(catalog: CatalogRecord) -> range:
    """Indexes of the catalog's first items, for picking courses to assign and report on."""
    return range(min(catalog.item_count, 200))


def pick_course(rng: random.Random, catalog: CatalogRecord) -> int | None:
    """One of the catalog's first courses, drawn from ``rng`` (None for a catalog without one)."""
    candidates = [
        index for index in course_indexes(catalog) if KIND_CYCLE[index % len(KIND_CYCLE)] == "course"
    ]
    return rng.choice(candidates) if candidates else None
