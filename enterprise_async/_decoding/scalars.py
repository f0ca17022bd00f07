"""Lenient scalars: the one place that says how a JSON or XML leaf becomes a declared scalar type.

``"12"`` is an int where an int is due, ``"True"`` a bool, a decimal string a ``Decimal``, an
ISO 8601 string a ``datetime`` with the offset sent (naive when none was sent, never assumed UTC)
or a ``date``; a datetime where a date is due, or a date alone where a datetime is due, is kept
as sent (not converted: that would drop a time of day or invent one). Each function takes
the value and the (ignored) type, as cattrs hooks do, and raises ``DecodeError`` when it cannot.
"""

from __future__ import annotations

import datetime
import decimal
import re
import typing
from collections.abc import Callable, Mapping
from typing import Any

from .._utils.xml import TextObject
from .failure import DecodeError, describe

__all__ = ["SCALAR_HOOKS", "Hook", "to_mapping", "to_str"]

Hook = Callable[[Any, Any], Any]
"""A cattrs structure hook: ``hook(value, declared_type)``."""


def to_str(value: Any, _: Any = None) -> str:
    if value.__class__ is str:
        return value
    if isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool):
        return str(value)
    raise DecodeError(f"expected a string, got {describe(value)}")


def _to_int(value: Any, _: Any = None) -> int:
    if value.__class__ is int:
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    elif isinstance(value, float) and value.is_integer():
        return int(value)
    raise DecodeError(f"expected an integer, got {describe(value)}")


def _to_float(value: Any, _: Any = None) -> float:
    if value.__class__ is float:
        return value
    if isinstance(value, (int, str, decimal.Decimal)) and not isinstance(value, bool):
        try:
            return float(value)
        except ValueError:
            pass
    raise DecodeError(f"expected a number, got {describe(value)}")


_BOOLEANS = {"true": True, "false": False, "1": True, "0": False}


def _to_bool(value: Any, _: Any = None) -> bool:
    if value.__class__ is bool:
        return value
    if isinstance(value, str) and (found := _BOOLEANS.get(value.strip().lower())) is not None:
        return found
    if value.__class__ is int and value in (0, 1):
        return bool(value)
    raise DecodeError(f"expected a boolean, got {describe(value)}")


def _to_decimal(value: Any, _: Any = None) -> decimal.Decimal:
    if isinstance(value, decimal.Decimal):
        return value
    if isinstance(value, float):
        return decimal.Decimal(repr(value))
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        try:
            number = decimal.Decimal(value.strip() if isinstance(value, str) else value)
        except decimal.InvalidOperation:
            pass
        else:
            if number.is_finite():
                return number
    raise DecodeError(f"expected a decimal number, got {describe(value)}")


_FRACTION = re.compile(r"(\.\d+)")


_UTC = datetime.timezone.utc
_FROM_ISO = datetime.datetime.fromisoformat
_DATE_ONLY = re.compile(r"\d{4}-?\d{2}-?\d{2}")
_MIDNIGHT = datetime.time()


def _to_datetime(value: Any, _: Any = None) -> datetime.datetime:
    """An ISO 8601 datetime as sent: with its offset, or naive when the server gave none.

    No zone is assumed for a naive datetime, and a date alone is no datetime: assuming midnight
    UTC would invent a time and a zone the server never sent, so such text is kept as sent.
    """
    if value.__class__ is str:
        try:
            moment = _FROM_ISO(value)
        except ValueError:
            moment = _parse_datetime(value.strip())
        if moment.tzinfo is None and moment.time() == _MIDNIGHT and _DATE_ONLY.fullmatch(value.strip()):
            raise DecodeError(f"expected an ISO 8601 datetime, got a date alone: {describe(value)}")
        return moment
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.datetime.fromtimestamp(value, tz=_UTC)  # a Unix time is UTC by definition
        except (OverflowError, OSError, ValueError):
            raise DecodeError(f"timestamp out of range: {describe(value)}") from None
    raise DecodeError(f"expected an ISO 8601 datetime, got {describe(value)}")


def _parse_datetime(text: str) -> datetime.datetime:
    try:
        return datetime.datetime.fromisoformat(text)
    except ValueError:
        pass
    # Python 3.10 reads neither a trailing Z nor fractions of other than 3 or 6 digits.
    candidate = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    candidate = _FRACTION.sub(lambda match: match.group(1)[:7].ljust(7, "0"), candidate, count=1)
    try:
        return datetime.datetime.fromisoformat(candidate)
    except ValueError:
        raise DecodeError(f"expected an ISO 8601 datetime, got {describe(text)}") from None


def _to_date(value: Any, _: Any = None) -> datetime.date:
    """An ISO 8601 date; a datetime is no date (its time of day would be lost), so it is kept as sent."""
    if isinstance(value, datetime.datetime):
        raise DecodeError(f"expected an ISO 8601 date, got a datetime: {describe(value)}")
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise DecodeError(f"expected an ISO 8601 date, got {describe(value)}")


def _to_any(value: Any, _: Any = None) -> Any:
    return value


def to_mapping(value: Any, _: Any = None) -> dict[str, Any]:
    if value.__class__ is dict or value.__class__ is TextObject:
        return typing.cast(dict[str, Any], value)
    raise DecodeError(f"expected an object, got {describe(value)}")


SCALAR_HOOKS: Mapping[Any, Hook] = {
    str: to_str,
    int: _to_int,
    float: _to_float,
    bool: _to_bool,
    decimal.Decimal: _to_decimal,
    datetime.datetime: _to_datetime,
    datetime.date: _to_date,
    Any: _to_any,
}
