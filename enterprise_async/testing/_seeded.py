"""The seeded draws the sandbox's initial world is generated from (``_data`` and the records of
each service): a ``random.Random`` per purpose, seeded with text (``"{seed}:policies"``...), so the
same seed gives the same world everywhere; uuids and day spans drawn from it."""

from __future__ import annotations

import datetime
import random

from ._content_draws import draw_uuid

__all__ = ["in_days", "seeded_rng", "seeded_uuid"]


def seeded_rng(seed: int, *parts: object) -> random.Random:
    return random.Random(":".join(map(str, (seed, *parts))))


def seeded_uuid(rng: random.Random) -> str:
    """A version 4 uuid drawn from ``rng``."""
    return draw_uuid(rng)


def in_days(count: float) -> datetime.timedelta:
    return datetime.timedelta(days=count)
