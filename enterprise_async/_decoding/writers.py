"""Writers: ``to_dict``, compiled once per model class, writing a decoded model back as the server sent it."""

from __future__ import annotations

import datetime
import decimal
import linecache
import typing
from collections.abc import Callable, Mapping
from types import NoneType
from typing import Any, get_args

import attrs

from .._enum import OpenEnum
from .._xml import TextObject
from .empty import EMPTY_ARRAY
from .failure import DecodeError
from .fields import WIRE, has_scalar_default, is_listish, model_fields, wire_name, without_none
from .registry import hook, is_list, is_open_enum, is_union
from .scalars import Hook
from .tolerance import under_way

__all__ = ["json_datetime", "model_writer", "text_natural", "to_dict", "written_as_sent"]


def _plain(value: Any, every: bool = False) -> Any:
    """JSON-ready data for any value a model holds."""
    kind = value.__class__
    if kind in _JSON_SCALARS:
        return value
    writer = _WRITERS.get(kind)
    if writer is not None:
        return writer(value, every)
    if isinstance(value, OpenEnum):
        return value.value
    if attrs.has(kind):
        return model_writer(kind)(value, every)
    if isinstance(value, (list, tuple)):
        return [_plain(item, every) for item in value]
    if isinstance(value, Mapping):
        return {key: _plain(item, every) for key, item in value.items()}
    return value


_JSON_SCALARS = frozenset({str, int, float, bool, NoneType})


def _write_mapping(mapping: Mapping[str, Any], every: bool) -> dict[str, Any]:
    return {key: _plain(item, every) for key, item in mapping.items()}


_WRITERS: Mapping[type[Any], Callable[[Any, bool], Any]] = {
    list: lambda items, every: [_plain(item, every) for item in items],
    dict: _write_mapping,
    TextObject: _write_mapping,  # an object read from XML writes as the dict it is
    datetime.datetime: lambda moment, _: json_datetime(moment),
    datetime.date: lambda day, _: day.isoformat(),
    decimal.Decimal: lambda number, _: str(number),
}


# How a field's value is written, by its type (``None`` stays ``None`` for all of them).
_WRITE_AS_IS = frozenset({str, int, float, bool})
_WRITE_METHOD: Mapping[Any, str] = {
    datetime.datetime: "json_datetime(v)",
    datetime.date: "v.isoformat()",
    decimal.Decimal: "str(v)",
}
# Types whose JSON form is text: their XML text is the server's own spelling (an enum's, a date's).
_TEXT_NATURAL = frozenset({str, datetime.datetime, datetime.date, decimal.Decimal})

_MODEL_WRITERS: dict[type[Any], Callable[[Any, bool], dict[str, Any]]] = {}
_ABSENT = object()


def model_writer(cls: type[Any]) -> Callable[[Any, bool], dict[str, Any]]:
    writer = _MODEL_WRITERS.get(cls)
    if writer is None:
        writer = _MODEL_WRITERS[cls] = _compile_writer(cls)
    return writer


def _compile_writer(cls: type[Any]) -> Callable[[Any, bool], dict[str, Any]]:
    """Compile ``to_dict`` for one model class.

    A decoded model is written from the object it was decoded from: a field the server sent is
    written as sent while the model still holds what it decoded to (enum spellings, date and
    decimal texts), and as its value says otherwise; a field it left out stays out unless it was
    set since or ``every`` asks for every field. A model built in code writes every field as its
    declared type says. Values of an unexpected type still go through the generic ``_plain``, so
    the output is always JSON-ready.
    """
    hints = typing.get_type_hints(cls)
    namespace: dict[str, Any] = {
        "plain": _plain,
        "json_datetime": json_datetime,
        "sent": _as_sent,
        "absent": _ABSENT,
        "empty_array": EMPTY_ARRAY,
    }
    built = [
        f"def built_{cls.__name__}(model, every=False):",
        "    data = plain(model.extra, every) if model.extra else {}",
    ]
    decoded = [
        f"def unstructure_{cls.__name__}(model, every=False):",
        f"    record = model.{WIRE}",
        "    if record is None:",
        f"        return built_{cls.__name__}(model, every)",
        "    text = record.text",
        "    left_out = record.left_out",
        "    get = record.differs.get",
        "    data = plain(model.extra, every) if model.extra else {}",
    ]
    for index, field in enumerate(model_fields(cls)):
        type_ = without_none(hints[field.name])
        wire = wire_name(field)
        written = _write_expression(index, type_, namespace)
        built += [f"    v = model.{field.name}", f"    data[{wire!r}] = {written}"]
        decoded += [
            f"    v = model.{field.name}",
            f"    if {wire!r} in left_out:",
            f"        if every or not ({_left_out_test(index, field, type_, namespace)}):",
            f"            data[{wire!r}] = {written}",
            f"    elif (r := get({wire!r}, absent)) is absent:",
            f"        data[{wire!r}] = {written}",
            "    else:",
            f"        data[{wire!r}] = {_sent_expression(index, type_, namespace)}",
        ]
    source = "\n".join([*built, "    return data", "", *decoded, "    return data"])
    filename = f"<enterprise_async unstructure {cls.__module__}.{cls.__qualname__}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return typing.cast(Callable[[Any, bool], dict[str, Any]], namespace[f"unstructure_{cls.__name__}"])


def _left_out_test(index: int, field: attrs.Attribute[Any], type_: Any, namespace: dict[str, Any]) -> str:
    """The source testing that ``v`` still holds what a left-out field decodes to."""
    if is_listish(type_):
        return "v is empty_array or (v.__class__ is list and not v)"
    if has_scalar_default(field):
        namespace[f"d{index}"] = field.default
        return f"v == d{index}"
    return "v is None"


def _sent_expression(index: int, type_: Any, namespace: dict[str, Any]) -> str:
    """The source writing ``v``, decoded from ``r`` (what the server sent), as sent where it still can."""
    item = (get_args(type_) or (Any,))[0] if is_list(type_) else None
    if attrs.has(type_):
        namespace[f"u{index}"] = _model_writer_of(type_)
        namespace[f"m{index}"] = type_
        return f"None if v is None else (u{index}(v, every) if v.__class__ is m{index} else plain(v, every))"
    if item is not None and attrs.has(item):
        namespace[f"u{index}"] = _model_writer_of(item)
        namespace[f"m{index}"] = item
        each = f"[u{index}(x, every) if x.__class__ is m{index} else plain(x, every) for x in v]"
        empty = "(([] if text else None) if r is None and not v else "
        return f"{empty}{each}) if v.__class__ is list else plain(v, every)"
    namespace[f"h{index}"] = hook(type_)
    namespace[f"t{index}"] = type_
    namespace[f"n{index}"] = text_natural(item if item is not None else type_)
    if item is not None:
        namespace[f"e{index}"] = hook(item)
        namespace[f"f{index}"] = item
        return f"sent(v, r, h{index}, t{index}, text, n{index}, every, e{index}, f{index})"
    sent = f"sent(v, r, h{index}, t{index}, text, n{index}, every)"
    if type_ in _WRITE_AS_IS:
        return f"r if v is r else {sent}"
    if is_union(type_) and is_open_enum(get_args(type_)[0]):
        namespace[f"m{index}"] = get_args(type_)[0]
        return f"r if v is r or (v.__class__ is m{index} and v._value_ == r) else {sent}"
    return sent


def _model_writer_of(cls: type[Any]) -> Callable[[Any, bool], dict[str, Any]]:
    """The writer of a nested model, resolved on first use (models may refer to themselves)."""
    resolved: list[Callable[[Any, bool], dict[str, Any]]] = []

    def write(model: Any, every: bool) -> dict[str, Any]:
        if not resolved:
            resolved.append(model_writer(cls))
        return resolved[0](model, every)

    return write


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


def _as_sent(
    v: Any,
    r: Any,
    hook: Hook,
    type_: Any,
    text: bool,
    natural: bool,
    every: bool,
    item_hook: Hook | None = None,
    item_type: Any = None,
) -> Any:
    """``r``, the server's value, while ``v`` is still what it decodes to; ``v`` written otherwise.

    From XML (``text``), a value whose JSON form is not text (a number, a boolean) is written from
    the model: the text is only the XML rendering of the server's value.
    """
    if v is r:
        return r if r.__class__ in _JSON_SCALARS else _plain(r)
    if r.__class__ is str and v.__class__ is not str and v == r:  # a member as its documented value
        return r
    if r is None:
        if v.__class__ is list and not v:
            return [] if text else None
        return _plain(v, every)
    if attrs.has(v.__class__) or (v.__class__ is list and any(attrs.has(x.__class__) for x in v)):
        return _plain(v, every)  # models write themselves from what they were decoded from
    if item_hook is not None and v.__class__ is list and r.__class__ is list and len(v) == len(r):
        return [_as_sent(x, y, item_hook, item_type, text, natural, every) for x, y in zip(v, r, strict=True)]
    if text and not natural and r.__class__ is str:
        return _plain(v)  # a number's or boolean's text: XML's rendering of the value
    if text and v.__class__ is datetime.datetime and r.__class__ is str and _python_str(r):
        return json_datetime(v)  # XML's str() of a datetime: the JSON renderer writes it as ISO
    under_way.pending = []  # decoding again what was decoded before: already reported then
    try:
        same = bool(hook(r, type_) == v)
    except DecodeError:
        same = False
    finally:
        under_way.pending = None
    if not same:
        return _plain(v)
    return r if r.__class__ in _JSON_SCALARS else _plain(r)


def written_as_sent(decoded: Any, sent: Any) -> bool:
    """Whether ``to_dict`` writes ``decoded`` back as ``sent`` (``"Z"`` and ``"+00:00"`` differ)."""
    written = _plain(decoded)
    return written.__class__ is sent.__class__ and bool(written == sent)


def _write_expression(index: int, type_: Any, namespace: dict[str, Any]) -> str:
    """The source that writes ``v``, a value of ``type_`` (or None), as JSON-ready data."""
    if type_ in _WRITE_AS_IS:
        namespace[f"k{index}"] = type_
        return f"v if v is None or v.__class__ is k{index} else plain(v, every)"
    if type_ in _WRITE_METHOD:
        namespace[f"k{index}"] = type_
        return f"None if v is None else ({_WRITE_METHOD[type_]} if v.__class__ is k{index} else plain(v))"
    if is_list(type_) and (item := (get_args(type_) or (Any,))[0]) in _WRITE_AS_IS:
        namespace[f"k{index}"] = item
        return (
            f"list(v) if v.__class__ is list and all(x.__class__ is k{index} for x in v) else plain(v, every)"
        )
    if (
        is_union(type_)
        and len(members := get_args(type_)) == 2
        and is_open_enum(members[0])
        and members[1] is str
    ):
        namespace[f"k{index}"] = members[0]
        return (
            f"v._value_ if v.__class__ is k{index} else (v if v is None or v.__class__ is str else plain(v))"
        )
    if attrs.has(type_):
        namespace[f"w{index}"] = _model_writer_of(type_)
        namespace[f"c{index}"] = type_
        return f"None if v is None else (w{index}(v, every) if v.__class__ is c{index} else plain(v, every))"
    if is_list(type_) and attrs.has(item := (get_args(type_) or (Any,))[0]):
        namespace[f"w{index}"] = _model_writer_of(item)
        namespace[f"c{index}"] = item
        each = f"w{index}(x, every) if x.__class__ is c{index} else plain(x, every)"
        return f"[{each} for x in v] if v.__class__ is list else plain(v, every)"
    return "plain(v, every)"


def to_dict(model: Any, *, every_field: bool = False) -> Any:
    """JSON-ready data for a model (or a list of models), as the server sent it.

    For a decoded model, a field the server sent is written with the server's own value (an enum
    as spelled, ``"Intermediate"`` or ``"self_paced"``; a datetime or decimal as its text) unless
    it was changed since, and a field the server left out stays out unless it was set since;
    ``every_field=True`` writes every documented field (``None``/``[]`` for those left out).
    Unknown fields the server sent are written back as received. A model built in code writes
    every field: wire names, ISO dates, decimal strings, enum values.
    ``from_dict(M, to_dict(x)) == x`` for every model ``x``.
    """
    return _plain(model, every_field)
