"""What the generated writers (``_generated/writers.py``) call: ``plain`` and the values written as sent.

A decoded model is written from the object it was decoded from: a field the server sent is
written as sent while the model still holds what it decoded to (enum spellings, date and decimal
texts), and as its value says otherwise; a field it left out stays out unless it was set since or
``every_field`` asks for every field. A model built in code writes every field as its declared
type says. Values of an unexpected type go through ``plain``, so the output is always JSON-ready.

A model class the generator did not see is written field by field the same way (``_write_model``).
Each function takes the ``Conversion`` whose writers write the models met on the way.
"""

from __future__ import annotations

import datetime
import decimal
import functools
from collections.abc import Callable, Mapping
from types import NoneType
from typing import TYPE_CHECKING, Any, get_args

import attrs

from .._utils.xml import TextObject
from .enums import OpenEnum
from .failure import DecodeError
from .fields import WIRE, field_plans, has_scalar_default, model_fields
from .hooks import is_list, is_open_enum, is_union
from .record import WireRecord
from .tolerance import under_way

if TYPE_CHECKING:
    from .tables import ConversionTables

__all__ = [
    "BUILT",
    "as_sent",
    "json_datetime",
    "model_writer",
    "plain",
    "text_natural",
    "written_as_sent",
]

BUILT = WireRecord(frozenset(), {}, False)
"""The record of a model built in code: every field is written from its value."""

Writer = Callable[[Any, bool], dict[str, Any]]


def plain(conversion: ConversionTables, value: Any, every: bool = False) -> Any:
    """JSON-ready data for any value a model holds."""
    kind = value.__class__
    if kind in _JSON_SCALARS:
        return value
    writer = _WRITERS.get(kind)
    if writer is not None:
        return writer(conversion, value, every)
    if isinstance(value, OpenEnum):
        return value.value
    if attrs.has(kind):
        return model_writer(conversion, kind)(value, every)
    if isinstance(value, (list, tuple)):
        return [plain(conversion, item, every) for item in value]
    if isinstance(value, Mapping):
        return {key: plain(conversion, item, every) for key, item in value.items()}
    return value


_JSON_SCALARS = frozenset({str, int, float, bool, NoneType})


def _write_mapping(conversion: ConversionTables, mapping: Mapping[str, Any], every: bool) -> dict[str, Any]:
    return {key: plain(conversion, item, every) for key, item in mapping.items()}


_WRITERS: Mapping[type[Any], Callable[[ConversionTables, Any, bool], Any]] = {
    list: lambda conversion, items, every: [plain(conversion, item, every) for item in items],
    dict: _write_mapping,
    TextObject: _write_mapping,  # an object read from XML writes as the dict it is
    datetime.datetime: lambda _, moment, __: json_datetime(moment),
    datetime.date: lambda _, day, __: day.isoformat(),
    decimal.Decimal: lambda _, number, __: str(number),
}

# Types whose JSON form is text: their XML text is the server's own spelling (an enum's, a date's).
_TEXT_NATURAL = frozenset({str, datetime.datetime, datetime.date, decimal.Decimal})


def model_writer(conversion: ConversionTables, cls: type[Any]) -> Writer:
    """The conversion's writer of a model class; for a class its writers do not know, ``_write_model``."""
    return conversion.writer(cls) or functools.partial(_write_model, conversion)


def _write_model(conversion: ConversionTables, model: Any, every: bool = False) -> dict[str, Any]:
    """A model of a class the generator did not see, written as a generated writer would."""
    record: WireRecord = getattr(model, WIRE, None) or BUILT
    data: dict[str, Any] = plain(conversion, model.extra, every) if model.extra else {}
    for plan, field in zip(field_plans(model.__class__), model_fields(model.__class__), strict=True):
        value = getattr(model, plan.name)
        left_out_reads = [] if plan.listish else field.default if has_scalar_default(field) else None
        if plan.wire in record.differs:
            data[plan.wire] = as_sent(
                conversion, value, record.differs[plan.wire], plan.type, record.text, every
            )
        elif every or plan.wire not in record.left_out or value != left_out_reads:
            data[plan.wire] = plain(conversion, value, every)
    return data


def text_natural(type_: Any) -> bool:
    """Whether the XML text of a value of this type may be its JSON value too (strings, enums, dates).

    A union that admits a string keeps the text (``expires_in`` is ``int | str``): XML cannot tell.
    """
    members = get_args(type_) if is_union(type_) else (type_,)
    return any(member in _TEXT_NATURAL or is_open_enum(member) for member in members)


def _python_str(text: str) -> bool:
    """Whether a datetime's text is Python's ``str()`` of it (a space before the time, an offset
    as ``+00:00`` or none), which only the XML renderer writes. Text with a space and a ``Z`` is a
    service's own spelling, sent the same way in JSON, and stays as it is."""
    return text[10:11] == " " and not text.endswith(("Z", "z"))


def json_datetime(moment: datetime.datetime) -> str:
    """A datetime as Django REST framework's JSON encoder writes it (ISO 8601, UTC as ``Z``),
    where its XML renderer writes Python's ``str()`` (``2026-11-23 22:02:40.957663+00:00``)."""
    written = moment.isoformat()
    return written[:-6] + "Z" if written.endswith("+00:00") else written


def as_sent(conversion: ConversionTables, v: Any, r: Any, type_: Any, text: bool, every: bool) -> Any:
    """``r``, the server's value of a field of ``type_``, while ``v`` is still what it decodes to;
    ``v`` written otherwise.

    From XML (``text``), a value whose JSON form is not text (a number, a boolean) is written from
    the model: the text is only the XML rendering of the server's value.
    """
    if v is r:
        return r if r.__class__ in _JSON_SCALARS else plain(conversion, r)
    if r.__class__ is str and v.__class__ is not str and v == r:  # a member as its documented value
        return r
    if r is None:
        if v.__class__ is list and not v:
            return [] if text else None
        return plain(conversion, v, every)
    if attrs.has(v.__class__) or (v.__class__ is list and any(attrs.has(x.__class__) for x in v)):
        return plain(conversion, v, every)  # models write themselves from what they were decoded from
    if is_list(type_) and v.__class__ is list and r.__class__ is list and len(v) == len(r):
        item_type = (get_args(type_) or (Any,))[0]
        return [as_sent(conversion, x, y, item_type, text, every) for x, y in zip(v, r, strict=True)]
    natural = text_natural((get_args(type_) or (Any,))[0] if is_list(type_) else type_)
    if text and not natural and r.__class__ is str:
        return plain(conversion, v)  # a number's or boolean's text: XML's rendering of the value
    if text and v.__class__ is datetime.datetime and r.__class__ is str and _python_str(r):
        return json_datetime(v)  # XML's str() of a datetime: the JSON renderer writes it as ISO
    if not _decodes_to(conversion, r, type_, v):
        return plain(conversion, v)
    return r if r.__class__ in _JSON_SCALARS else plain(conversion, r)


def _decodes_to(conversion: ConversionTables, sent: Any, type_: Any, value: Any) -> bool:
    """Whether ``sent`` still decodes to ``value``; decoded again, it was reported the first time."""
    under_way.pending = []
    try:
        return bool(conversion.hook(type_)(sent, type_) == value)
    except DecodeError:
        return False
    finally:
        under_way.pending = None


def written_as_sent(conversion: ConversionTables, decoded: Any, sent: Any) -> bool:
    """Whether ``to_dict`` writes ``decoded`` back as ``sent`` (``"Z"`` and ``"+00:00"`` differ)."""
    written = plain(conversion, decoded)
    return written.__class__ is sent.__class__ and bool(written == sent)
