"""Values a generated reader takes without calling the field's reader (see ``readers``).

Each check answers only for a value that its reader would decode to the same thing and note
nothing about: the written form of the decoded value (what ``to_dict`` writes back) is the value
as sent. Anything else, including every odd or malformed value, goes to the field's reader, so
these checks change no result, only how many calls a clean value costs.
"""

from __future__ import annotations

import datetime
import decimal
import sys
from typing import Any

__all__ = ["exact_decimal", "of_class", "utc_datetime"]

_READS_Z = sys.version_info >= (3, 11)
"""Python 3.11's ``datetime.fromisoformat`` reads a trailing ``Z``; 3.10's reads ``+00:00`` only."""

_FROM_ISO = datetime.datetime.fromisoformat
_DECIMAL = decimal.Decimal
_INVALID = decimal.InvalidOperation


def utc_datetime(text: str) -> datetime.datetime | None:
    """The datetime of ``text`` when it is written as ``to_dict`` writes a UTC datetime: whole
    seconds (``2026-01-05T10:00:00Z``) or six digits of microseconds, not all zero
    (``2026-01-05T10:00:00.250000Z``); else None.

    Most services send one of these two forms. The separators are checked first, in one slice
    (every third character from the fifth), so that no other form of the same length, a week date
    or a basic-format time, is ever taken for one; the parse checks the digits.
    """
    if text[4::3] == "--T::Z" and len(text) == 20:
        try:
            return _FROM_ISO(text if _READS_Z else text[:-1] + "+00:00")
        except ValueError:
            return None
    if len(text) != 27 or text[4:20:3] != "--T::." or text[26] != "Z":
        return None
    try:
        moment = _FROM_ISO(text if _READS_Z else text[:-1] + "+00:00")
    except ValueError:
        return None
    return moment if moment.microsecond else None  # zeros are written back without the fraction


def exact_decimal(text: str) -> decimal.Decimal | None:
    """The decimal number of ``text`` when it is written back as ``text`` itself (``"149.00"``, not
    ``" 149"`` nor ``"1_000"``), and finite; else None."""
    try:
        number = _DECIMAL(text)
    except _INVALID:
        return None
    if number.is_finite() and str(number) == text:
        return number
    return None


def of_class(items: list[Any], kind: type[Any]) -> bool:
    """Whether every item of an array is of exactly ``kind``, as an array of ``kind`` takes it."""
    for item in items:  # noqa: SIM110 - a plain loop, the cheapest form of this test
        if item.__class__ is not kind:
            return False
    return True
