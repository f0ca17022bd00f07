"""The JSON parser's own key objects, for the compiled functions to look fields up with.

orjson gives every key of a given text (up to 64 bytes) as one shared string object, whatever the
body, and builds its dicts presized, so that their look-ups compare keys as any objects: a look-up
with another string of the same text compares the two texts, one with the very object the parser
gave stops at their identity. A compiled structuring function asks for some seventy fields per
object: with the parser's keys, a course decodes about a tenth faster. Nothing else changes: the
strings are equal, and any other key object (XML's, an evicted one) is still found by its text.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["parser_key"]


def parser_key(name: str) -> str:
    """``name`` as the very string object the JSON parser gives for that key (equal in any case)."""
    parsed: dict[str, Any] = orjson.loads(orjson.dumps({name: 0}))
    return next(iter(parsed))
