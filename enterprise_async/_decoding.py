"""One cattrs converter, configured once, that reads JSON and XML bodies into the same models.

XML arrives with text leaves (see ``_xml``), JSON with typed ones; the hooks registered here make
both land on the same values, guided only by the models' types:

- scalars are lenient: ``"12"`` is an int where an int is due, ``"True"`` a bool, a decimal string
  a ``Decimal``, an ISO 8601 string a ``datetime`` with the offset sent (naive when none was sent,
  never assumed UTC) or a ``date`` (a datetime where a date is due, or a date alone where a
  datetime is due, is kept as sent);
- a field the server leaves out, or sends as null, is ``None``; an array is ``[]``;
- open enums give the member for a documented value (spelling-insensitive) and keep any other
  value as a plain string;
- unions pick their variant by the shape of the value, or by the variant rules of the spec;
- every model keeps unknown fields in ``extra``, and ``to_dict`` writes them back;
- a value its declared type does not allow is kept as sent, with a DEBUG record naming the model,
  the path from the top and the declared type; only a top level of the wrong shape is an error;
- every decoded model keeps the object it was decoded from (a private attribute), from which
  ``to_dict`` writes the server's own values back.

Each model gets one structuring function, compiled the first time it is needed, with the common
cases (a string field holding a string, ...) checked inline: no per-field dispatch on the hot path.
"""

from __future__ import annotations

import datetime
import decimal
import logging
import re
import threading
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, get_args, get_origin

import attrs
import cattrs

from ._enum import OpenEnum, normalized
from ._generated.variants import VARIANT_RULES
from ._xml import TextObject
from .errors import ResponseDecodeError

__all__ = ["DecodeError", "converter", "from_dict", "known_fields", "structure", "to_dict", "type_name"]

T = TypeVar("T")
Hook = Callable[[Any, Any], Any]
NoneType = type(None)
logger = logging.getLogger("enterprise_async")

WIRE = "_sdk_wire"
"""The private attribute of every model holding the object it was decoded from (see ``to_dict``)."""


class DecodeError(ValueError):
    """A value does not fit its type; ``path`` locates it (``course_runs[3].start``)."""

    def __init__(self, message: str, path: str = "") -> None:
        self.message = message
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)

    def within(self, step: str) -> DecodeError:
        path = f"{step}{'' if self.path.startswith('[') or not self.path else '.'}{self.path}"
        return DecodeError(self.message, path)


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ---------------------------------------------------------------------------------- scalars


def _to_str(value: Any, _: Any = None) -> str:
    if value.__class__ is str:
        return value
    if isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool):
        return str(value)
    raise DecodeError(f"expected a string, got {_describe(value)}")


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
    raise DecodeError(f"expected an integer, got {_describe(value)}")


def _to_float(value: Any, _: Any = None) -> float:
    if value.__class__ is float:
        return value
    if isinstance(value, (int, str, decimal.Decimal)) and not isinstance(value, bool):
        try:
            return float(value)
        except ValueError:
            pass
    raise DecodeError(f"expected a number, got {_describe(value)}")


_BOOLEANS = {"true": True, "false": False, "1": True, "0": False}


def _to_bool(value: Any, _: Any = None) -> bool:
    if value.__class__ is bool:
        return value
    if isinstance(value, str) and (found := _BOOLEANS.get(value.strip().lower())) is not None:
        return found
    if value.__class__ is int and value in (0, 1):
        return bool(value)
    raise DecodeError(f"expected a boolean, got {_describe(value)}")


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
    raise DecodeError(f"expected a decimal number, got {_describe(value)}")


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
            raise DecodeError(f"expected an ISO 8601 datetime, got a date alone: {_describe(value)}")
        return moment
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.datetime.fromtimestamp(value, tz=_UTC)  # a Unix time is UTC by definition
        except (OverflowError, OSError, ValueError):
            raise DecodeError(f"timestamp out of range: {_describe(value)}") from None
    raise DecodeError(f"expected an ISO 8601 datetime, got {_describe(value)}")


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
        raise DecodeError(f"expected an ISO 8601 datetime, got {_describe(text)}") from None


def _to_date(value: Any, _: Any = None) -> datetime.date:
    """An ISO 8601 date; a datetime is no date (its time of day would be lost), so it is kept as sent."""
    if isinstance(value, datetime.datetime):
        raise DecodeError(f"expected an ISO 8601 date, got a datetime: {_describe(value)}")
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise DecodeError(f"expected an ISO 8601 date, got {_describe(value)}")


def _to_any(value: Any, _: Any = None) -> Any:
    return value


def _to_mapping(value: Any, _: Any = None) -> dict[str, Any]:
    if value.__class__ is dict or value.__class__ is TextObject:
        return typing.cast(dict[str, Any], value)
    raise DecodeError(f"expected an object, got {_describe(value)}")


SCALAR_HOOKS: Mapping[Any, Hook] = {
    str: _to_str,
    int: _to_int,
    float: _to_float,
    bool: _to_bool,
    decimal.Decimal: _to_decimal,
    datetime.datetime: _to_datetime,
    datetime.date: _to_date,
    Any: _to_any,
}


# ---------------------------------------------------------------------------------- the converter

converter = cattrs.Converter()
"""The SDK's only converter: the client, ``from_dict`` and ``to_dict`` all go through it."""


def _hook(type_: Any) -> Hook:
    return converter.get_structure_hook(type_)


def _is_union(type_: Any) -> bool:
    return get_origin(type_) in (typing.Union, types.UnionType)


def _is_list(type_: Any) -> bool:
    return get_origin(type_) is list


def _is_mapping(type_: Any) -> bool:
    return type_ is dict or get_origin(type_) is dict


def _is_open_enum(type_: Any) -> bool:
    return isinstance(type_, type) and issubclass(type_, OpenEnum)


def _enum_hook(enum: type[OpenEnum]) -> Hook:
    members: dict[Any, OpenEnum] = {}
    for member in enum:
        members[normalized(member.value)] = member
    for member in enum:
        members[member.value] = member

    def structure_enum(value: Any, _: Any = None) -> OpenEnum | str:
        if value.__class__ is str and (found := members.get(value)) is not None:
            return found
        text = _to_str(value)
        return members.get(normalized(text), text)

    return structure_enum


def _list_hook(type_: Any) -> Hook:
    (item_type,) = get_args(type_) or (Any,)
    if item_type in (Any, object):
        return _structure_plain_list
    if item_type in _PASS_THROUGH:
        return _scalar_list_hook(item_type)
    resolved: list[Hook] = []

    def structure_list(value: Any, _: Any = None) -> list[Any]:
        if value is None:
            return []
        if value.__class__ is not list:
            raise DecodeError(f"expected an array, got {_describe(value)}")
        if not resolved:
            resolved.append(_hook(item_type))
        item_hook = resolved[0]
        try:
            return [item_hook(item, item_type) for item in value]
        except DecodeError:
            raise _locate_item_error(value, item_hook, item_type) from None

    return structure_list


def _scalar_list_hook(item_type: type[Any]) -> Hook:
    item_hook = SCALAR_HOOKS[item_type]

    def structure_scalar_list(value: Any, _: Any = None) -> list[Any]:
        if value is None:
            return []
        if value.__class__ is not list:
            raise DecodeError(f"expected an array, got {_describe(value)}")
        for item in value:
            if item.__class__ is not item_type:
                try:
                    return [item_hook(item, item_type) for item in value]
                except DecodeError:
                    raise _locate_item_error(value, item_hook, item_type) from None
        return value

    return structure_scalar_list


def _structure_plain_list(value: Any, _: Any = None) -> list[Any]:
    if value is None:
        return []
    if value.__class__ is not list:
        raise DecodeError(f"expected an array, got {_describe(value)}")
    return value


def _locate_item_error(items: list[Any], item_hook: Hook, item_type: Any) -> DecodeError:
    for index, item in enumerate(items):
        try:
            item_hook(item, item_type)
        except DecodeError as error:
            return error.within(f"[{index}]")
    return DecodeError("array could not be decoded")  # pragma: no cover - the first pass failed


def _mapping_hook(type_: Any) -> Hook:
    return _to_mapping


# ---------------------------------------------------------------------------------- unions


_TEXT_COERCIONS = (bool, int, float, decimal.Decimal, datetime.datetime, datetime.date)


def _union_hook(union: Any) -> Hook:
    members = get_args(union)
    nullable = NoneType in members
    members = tuple(member for member in members if member is not NoneType)
    if len(members) == 1:
        return _optional_hook(members[0])
    if len(members) == 2 and _is_open_enum(members[0]) and members[1] is str:
        return _optional_enum_hook(members[0]) if nullable else _enum_hook(members[0])
    return _UnionDispatch(union, members, nullable)


def _optional_hook(member: Any) -> Hook:
    resolved: list[Hook] = []

    def structure_optional(value: Any, _: Any = None) -> Any:
        if value is None:
            return None
        if not resolved:
            resolved.append(_hook(member))
        return resolved[0](value, member)

    return structure_optional


def _optional_enum_hook(enum: type[OpenEnum]) -> Hook:
    structure_enum = _enum_hook(enum)

    def structure_optional_enum(value: Any, _: Any = None) -> Any:
        return None if value is None else structure_enum(value, None)

    return structure_optional_enum


class _UnionDispatch:
    """Picks a union's variant from the value: its JSON kind first, then, for text, the most specific type."""

    def __init__(self, union: Any, members: tuple[Any, ...], nullable: bool) -> None:
        self.union = union
        self.nullable = nullable
        self.classes = tuple(member for member in members if attrs.has(member))
        self.lists = tuple(member for member in members if _is_list(member))
        self.mappings = tuple(member for member in members if _is_mapping(member))
        self.enums = tuple(member for member in members if _is_open_enum(member))
        self.scalars = tuple(member for member in members if member in SCALAR_HOOKS)
        self.text_order = tuple(kind for kind in _TEXT_COERCIONS if kind in self.scalars)
        self.rule = VARIANT_RULES.get(union)

    def __call__(self, value: Any, _: Any = None) -> Any:
        if value is None:
            return self._none()
        if isinstance(value, dict):
            return self._object(value)
        if isinstance(value, list):
            if self.lists:
                return _hook(self.lists[0])(value, self.lists[0])
            raise self._mismatch(value)
        if isinstance(value, str):
            return self._text(value)
        return self._scalar(value)

    def _none(self) -> Any:
        if self.nullable:
            return None
        if self.lists:
            return []  # an empty XML element where a list is one of the choices
        raise self._mismatch(None)

    def _object(self, value: dict[str, Any]) -> Any:
        if self.classes:
            chosen = self._choose_class(value)
            return _hook(chosen)(value, chosen)
        if self.mappings:
            return value
        raise self._mismatch(value)

    def _choose_class(self, value: dict[str, Any]) -> type[Any]:
        if len(self.classes) == 1:
            return self.classes[0]
        rule = self.rule
        if rule is not None:
            tag = value.get(rule.discriminator) if rule.discriminator else None
            if isinstance(tag, str) and tag in rule.mapping:
                return rule.mapping[tag]
            for variant, markers in rule.markers:
                if not markers.isdisjoint(value.keys()):
                    return variant
        # No rule decides: the class that knows most of the value's fields.
        return max(self.classes, key=lambda cls: len(known_fields(cls) & value.keys()))

    def _text(self, value: str) -> Any:
        for enum in self.enums:
            found = _enum_hook(enum)(value, None)
            if isinstance(found, OpenEnum):
                return found
        for kind in self.text_order:
            try:
                return SCALAR_HOOKS[kind](value, None)
            except DecodeError:
                continue
        if str in self.scalars or self.enums or Any in self.scalars:
            return value
        if not value.strip() and self.nullable:
            return None
        raise self._mismatch(value)

    def _scalar(self, value: Any) -> Any:
        exact = type(value)
        if exact in self.scalars:
            return value
        for kind in (int, float, decimal.Decimal, str):
            if kind in self.scalars:
                try:
                    return SCALAR_HOOKS[kind](value, None)
                except DecodeError:
                    continue
        if Any in self.scalars:
            return value
        raise self._mismatch(value)

    def _mismatch(self, value: Any) -> DecodeError:
        return DecodeError(f"expected {type_name(self.union)}, got {_describe(value)}")


def type_name(type_: Any) -> str:
    if isinstance(type_, type):
        return type_.__name__
    return str(type_).replace("typing.", "").replace("enterprise_async._generated.models.", "")


# ---------------------------------------------------------------------------------- models

_FIELD_NAMES: dict[type[Any], frozenset[str]] = {}
_FIELDS: dict[type[Any], tuple[attrs.Attribute[Any], ...]] = {}


def model_fields(cls: type[Any]) -> tuple[attrs.Attribute[Any], ...]:
    """The fields of a model that describe the wire: neither ``extra`` nor the private wire record."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple(
            field for field in attrs.fields(cls) if field.name != "extra" and field.init
        )
    return found


def known_fields(cls: type[Any]) -> frozenset[str]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = frozenset(_wire(field) for field in model_fields(cls))
        _FIELD_NAMES[cls] = names
    return names


def _wire(field: attrs.Attribute[Any]) -> str:
    return str(field.metadata.get("wire", field.name))


# How a field's value is checked inline in the compiled function: the exact class that needs no
# conversion, per type. Anything else goes through the type's hook.
_PASS_THROUGH: Mapping[Any, str] = {
    str: "str",
    int: "int",
    float: "float",
    bool: "bool",
    dict: "dict",
}


def _inline_class(type_: Any) -> str | None:
    """The class whose values pass a field of this type unchanged (``str`` for ``str | None``)."""
    members = get_args(type_) if _is_union(type_) else (type_,)
    members = tuple(member for member in members if member is not NoneType)
    if len(members) != 1:
        return None
    member = members[0]
    if _is_mapping(member):
        return "dict"
    return _PASS_THROUGH.get(member)


_COMPILING: set[type[Any]] = set()


def _model_hook(cls: type[Any]) -> Hook:
    """Compile the structuring function of one model class.

    Each field is read with one ``get``; a value of the exact expected class (a ``str`` for a
    string field...) is taken as it is, anything else goes through its type's hook. ``None`` is
    checked inline, so the hook is that of the type without ``None``, not a wrapper around it.
    When a value does not fit its type, the model is built again field by field (``_tolerant``),
    keeping that value as sent. The object itself is kept on the model for ``to_dict``.
    """
    hints = typing.get_type_hints(cls)
    fields = model_fields(cls)
    namespace: dict[str, Any] = {
        "cls": cls,
        "known": known_fields(cls),
        "not_object": _not_an_object,
        "tolerant": _tolerant_model,
        "text_object": TextObject,
        "DecodeError": DecodeError,
    }
    arguments: list[str] = []
    _COMPILING.add(cls)
    try:
        for index, field in enumerate(fields):
            type_ = _without_none(hints[field.name])
            namespace[f"h{index}"] = _field_hook(type_)
            namespace[f"t{index}"] = type_
            arguments.append(
                f"            {field.name}=({_field_expression(index, field, type_, namespace)}),"
            )
    finally:
        _COMPILING.discard(cls)
    source = "\n".join(
        [
            f"def structure_{cls.__name__}(data, _=None):",
            "    if data.__class__ is not dict and data.__class__ is not text_object:",
            "        return not_object(data, cls)",
            "    get = data.get",
            "    try:",
            "        model = cls(",
            *arguments,
            "            extra={} if known.issuperset(data) else {k: data[k] for k in data.keys() - known},",
            "        )",
            "    except DecodeError:",
            "        model = tolerant(cls, data)",
            f"    model.{WIRE} = data",
            "    return model",
        ]
    )
    exec(compile(source, f"<structure {cls.__qualname__}>", "exec"), namespace)
    return typing.cast(Hook, namespace[f"structure_{cls.__name__}"])


def _field_expression(index: int, field: attrs.Attribute[Any], type_: Any, namespace: dict[str, Any]) -> str:
    """The source that reads one field from ``data`` (bound to ``get``)."""
    wire = _wire(field)
    fetch = f"get({wire!r})"
    if _has_scalar_default(field):
        namespace[f"d{index}"] = field.default
        fetch = f"get({wire!r}, d{index})"
    if _is_list(type_) and attrs.has(item := (get_args(type_) or (Any,))[0]) and item not in _COMPILING:
        # A list of models, built right here; anything unusual (None, not a list) goes to the hook.
        namespace[f"i{index}"] = _hook(item)
        namespace[f"m{index}"] = item
        built = f"[i{index}(x, m{index}) for x in v]"
        return f"{built} if (v := {fetch}).__class__ is list else h{index}(v, t{index})"
    if _is_listish(type_):
        return f"h{index}({fetch}, t{index})"  # the hook turns a missing array into []
    inline = _inline_class(type_)
    if inline:
        return f"v if (v := {fetch}) is None or v.__class__ is {inline} else h{index}(v, t{index})"
    return f"None if (v := {fetch}) is None else h{index}(v, t{index})"


def _is_listish(type_: Any) -> bool:
    """Whether a field of this type holds an array (``[]`` when left out)."""
    return _is_list(type_) or (_is_union(type_) and _is_list(get_args(type_)[0]))


def _without_none(type_: Any) -> Any:
    """``X`` for ``X | None``; the union without ``None`` for larger unions; other types as they are."""
    if not _is_union(type_):
        return type_
    members = tuple(member for member in get_args(type_) if member is not NoneType)
    if len(members) == len(get_args(type_)):
        return type_
    if len(members) == 1:
        return members[0]
    return typing.Union[members]  # noqa: UP007 - built from a runtime tuple


def _field_hook(type_: Any) -> Hook:
    """The hook of a field's type, resolved now unless the type is a model still being compiled."""
    scalar = SCALAR_HOOKS.get(type_)
    if scalar is not None:
        return scalar
    if type_ in _COMPILING:
        return _lazy_hook(type_)
    return _hook(type_)


def _has_scalar_default(field: attrs.Attribute[Any]) -> bool:
    """Whether a field left out keeps a default other than None (``partial = False``)."""
    default = field.default
    return default is not None and default is not attrs.NOTHING and not isinstance(default, attrs.Factory)  # type: ignore[arg-type]


def _lazy_hook(type_: Any) -> Hook:
    """A hook resolved on first use, for a model that refers to itself."""
    resolved: list[Hook] = []

    def lazy(value: Any, _: Any = None) -> Any:
        if not resolved:
            resolved.append(_hook(type_))
        return resolved[0](value, type_)

    return lazy


def _not_an_object(value: Any, cls: type[Any]) -> Any:
    if value is None:
        return None
    raise DecodeError(f"expected an object ({cls.__name__}), got {_describe(value)}")


# ---------------------------------------------------------------------------------- tolerance


Problem = tuple[str, Any, Any, DecodeError]
"""A value kept as sent: where it is (relative to its model), its declared type, the value, why."""

_decoding = threading.local()  # the problems met by the structure() call under way in this thread


def _tolerant_model(cls: type[Any], data: dict[str, Any]) -> Any:
    """Build ``cls`` field by field, keeping as sent each value that does not fit its type.

    The slow path, taken only when the compiled function met such a value. Values that fit are
    decoded exactly as the compiled function decodes them.
    """
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for field in model_fields(cls):
        type_ = _without_none(hints[field.name])
        value = data.get(_wire(field), field.default if _has_scalar_default(field) else None)
        if value is None and not _is_listish(type_):
            values[field.name] = None
            continue
        values[field.name] = tolerant(value, type_, _wire(field), problems)
    known = known_fields(cls)
    model = cls(**values, extra={key: data[key] for key in data.keys() - known})
    pending = getattr(_decoding, "pending", None)
    if pending is None:
        _report(cls.__name__, "", cls.__name__, problems)
    else:
        pending.append((model, problems))
    return model


def tolerant(value: Any, type_: Any, where: str, problems: list[Problem]) -> Any:
    """``value`` decoded as ``type_``, or kept as sent (and added to ``problems``) where it does not fit.

    An array is read item by item, so one odd item leaves the others decoded.
    """
    hook = _hook(type_)
    try:
        return hook(value, type_)
    except DecodeError as error:
        problem = error
    list_type = _list_member(type_)
    if list_type is not None and value.__class__ is list:
        (item_type,) = get_args(list_type) or (Any,)
        return [tolerant(item, item_type, f"{where}[{index}]", problems) for index, item in enumerate(value)]
    problems.append((where, type_, value, problem))
    return value


def _list_member(type_: Any) -> Any:
    """The array type that ``type_`` is or admits (``list[X]`` in ``list[X] | str``), else None."""
    if _is_list(type_):
        return type_
    if _is_union(type_):
        return next((member for member in get_args(type_) if _is_list(member)), None)
    return None


def _structure_reporting(data: Any, model: Any) -> Any:
    """Structure ``data``, then log every value kept as sent with its path from the top."""
    pending: list[tuple[Any, list[Problem]]] = []
    _decoding.pending = pending
    try:
        result = _structure_top(data, model)
    finally:
        _decoding.pending = None
    if pending:
        _report_found(result, type_name(model), pending)
    return result


def _structure_top(data: Any, model: Any) -> Any:
    hook = _hook(model)
    try:
        return hook(data, model)
    except DecodeError:
        list_type = _list_member(model)
        if data.__class__ is not list or list_type is None:
            raise
    problems: list[Problem] = []
    result = tolerant(data, list_type, "", problems)
    _report(type_name(model), "", type_name(model), problems)
    return result


def _report_found(result: Any, top: str, pending: list[tuple[Any, list[Problem]]]) -> None:
    """Log the problems of each model with the model's path inside ``result`` (found by identity)."""
    if not logger.isEnabledFor(logging.DEBUG):
        return
    by_model = {id(model): (model, problems) for model, problems in pending}
    stack: list[tuple[Any, str]] = [(result, "")]
    while stack and by_model:
        value, path = stack.pop()
        if value.__class__ is list:
            stack.extend((item, f"{path}[{index}]") for index, item in enumerate(value))
        elif attrs.has(value.__class__):
            found = by_model.pop(id(value), None)
            if found is not None:
                _report(top, path, value.__class__.__name__, found[1])
            stack.extend(
                (getattr(value, field.name), f"{path}.{_wire(field)}" if path else _wire(field))
                for field in model_fields(value.__class__)
            )
    # Models left in by_model were built and dropped by a slow path that decoded their parent again.


def _report(top: str, path: str, model: str, problems: list[Problem]) -> None:
    if not problems or not logger.isEnabledFor(logging.DEBUG):
        return
    for where, type_, value, problem in problems:
        full = f"{path}.{where}" if path and where and not where.startswith("[") else f"{path}{where}"
        declared = type_name(type_)
        logger.debug(
            "%s%s kept as sent (%s%s is declared %s): %s",
            top,
            f".{full}" if full and not full.startswith("[") else full,
            model,
            f".{where}" if where and not where.startswith("[") else where,
            declared,
            problem.message,
            extra={"sdk_model": model, "sdk_path": full, "sdk_declared": declared, "sdk_value": value},
        )


converter.register_structure_hook_factory(_is_union, _union_hook)
converter.register_structure_hook_factory(_is_list, _list_hook)
converter.register_structure_hook_factory(_is_mapping, _mapping_hook)
converter.register_structure_hook_factory(_is_open_enum, _enum_hook)
converter.register_structure_hook_factory(attrs.has, _model_hook)
for _type, _scalar_hook in SCALAR_HOOKS.items():
    converter.register_structure_hook(_type, _scalar_hook)


# ---------------------------------------------------------------------------------- unstructuring


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
        return _model_writer(kind)(value, every)
    if isinstance(value, (list, tuple)):
        return [_plain(item, every) for item in value]
    if isinstance(value, Mapping):
        return {key: _plain(item, every) for key, item in value.items()}
    return value


_JSON_SCALARS = frozenset({str, int, float, bool, NoneType})
_WRITERS: Mapping[type[Any], Callable[[Any, bool], Any]] = {
    list: lambda items, every: [_plain(item, every) for item in items],
    dict: lambda mapping, every: {key: _plain(item, every) for key, item in mapping.items()},
    datetime.datetime: lambda moment, _: moment.isoformat(),
    datetime.date: lambda day, _: day.isoformat(),
    decimal.Decimal: lambda number, _: str(number),
}


# How a field's value is written, by its type (``None`` stays ``None`` for all of them).
_WRITE_AS_IS = frozenset({str, int, float, bool})
_WRITE_METHOD: Mapping[Any, str] = {
    datetime.datetime: "v.isoformat()",
    datetime.date: "v.isoformat()",
    decimal.Decimal: "str(v)",
}
# Types whose JSON form is text: their XML text is the server's own spelling (an enum's, a date's).
_TEXT_NATURAL = frozenset({str, datetime.datetime, datetime.date, decimal.Decimal})

_MODEL_WRITERS: dict[type[Any], Callable[[Any, bool], dict[str, Any]]] = {}
_ABSENT = object()


def _model_writer(cls: type[Any]) -> Callable[[Any, bool], dict[str, Any]]:
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
        "sent": _as_sent,
        "absent": _ABSENT,
        "text_object": TextObject,
    }
    built = [
        f"def built_{cls.__name__}(model, every=False):",
        "    data = plain(model.extra, every) if model.extra else {}",
    ]
    decoded = [
        f"def unstructure_{cls.__name__}(model, every=False):",
        f"    wire = model.{WIRE}",
        "    if wire is None:",
        f"        return built_{cls.__name__}(model, every)",
        "    text = wire.__class__ is text_object",
        "    get = wire.get",
        "    data = plain(model.extra, every) if model.extra else {}",
    ]
    for index, field in enumerate(model_fields(cls)):
        type_ = _without_none(hints[field.name])
        wire = _wire(field)
        written = _write_expression(index, type_, namespace)
        built += [f"    v = model.{field.name}", f"    data[{wire!r}] = {written}"]
        decoded += [
            f"    v = model.{field.name}",
            f"    if (r := get({wire!r}, absent)) is absent:",
            f"        if every or not ({_left_out_test(index, field, type_, namespace)}):",
            f"            data[{wire!r}] = {written}",
            "    else:",
            f"        data[{wire!r}] = {_sent_expression(index, type_, namespace)}",
        ]
    source = "\n".join([*built, "    return data", "", *decoded, "    return data"])
    exec(compile(source, f"<unstructure {cls.__qualname__}>", "exec"), namespace)
    return typing.cast(Callable[[Any, bool], dict[str, Any]], namespace[f"unstructure_{cls.__name__}"])


def _left_out_test(index: int, field: attrs.Attribute[Any], type_: Any, namespace: dict[str, Any]) -> str:
    """The source testing that ``v`` still holds what a left-out field decodes to."""
    if _is_listish(type_):
        return "v.__class__ is list and not v"
    if _has_scalar_default(field):
        namespace[f"d{index}"] = field.default
        return f"v == d{index}"
    return "v is None"


def _sent_expression(index: int, type_: Any, namespace: dict[str, Any]) -> str:
    """The source writing ``v``, decoded from ``r`` (what the server sent), as sent where it still can."""
    item = (get_args(type_) or (Any,))[0] if _is_list(type_) else None
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
    namespace[f"h{index}"] = _hook(type_)
    namespace[f"t{index}"] = type_
    namespace[f"n{index}"] = _text_natural(item if item is not None else type_)
    if item is not None:
        namespace[f"e{index}"] = _hook(item)
        namespace[f"f{index}"] = item
        return f"sent(v, r, h{index}, t{index}, text, n{index}, every, e{index}, f{index})"
    sent = f"sent(v, r, h{index}, t{index}, text, n{index}, every)"
    if type_ in _WRITE_AS_IS:
        return f"r if v is r else {sent}"
    if _is_union(type_) and _is_open_enum(get_args(type_)[0]):
        namespace[f"m{index}"] = get_args(type_)[0]
        return f"r if v is r or (v.__class__ is m{index} and v._value_ == r) else {sent}"
    return sent


def _model_writer_of(cls: type[Any]) -> Callable[[Any, bool], dict[str, Any]]:
    """The writer of a nested model, resolved on first use (models may refer to themselves)."""
    resolved: list[Callable[[Any, bool], dict[str, Any]]] = []

    def write(model: Any, every: bool) -> dict[str, Any]:
        if not resolved:
            resolved.append(_model_writer(cls))
        return resolved[0](model, every)

    return write


def _text_natural(type_: Any) -> bool:
    """Whether the XML text of a value of this type may be its JSON value too (strings, enums, dates).

    A union that admits a string keeps the text (``expires_in`` is ``int | str``): XML cannot tell.
    """
    members = get_args(type_) if _is_union(type_) else (type_,)
    return any(member in _TEXT_NATURAL or _is_open_enum(member) for member in members)


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
    if text and not natural:
        return _plain(v)
    _decoding.pending = []  # decoding again what was decoded before: already reported then
    try:
        same = bool(hook(r, type_) == v)
    except DecodeError:
        same = False
    finally:
        _decoding.pending = None
    if not same:
        return _plain(v)
    return r if r.__class__ in _JSON_SCALARS else _plain(r)


def _write_expression(index: int, type_: Any, namespace: dict[str, Any]) -> str:
    """The source that writes ``v``, a value of ``type_`` (or None), as JSON-ready data."""
    if type_ in _WRITE_AS_IS:
        namespace[f"k{index}"] = type_
        return f"v if v is None or v.__class__ is k{index} else plain(v, every)"
    if type_ in _WRITE_METHOD:
        namespace[f"k{index}"] = type_
        return f"None if v is None else ({_WRITE_METHOD[type_]} if v.__class__ is k{index} else plain(v))"
    if _is_list(type_) and (item := (get_args(type_) or (Any,))[0]) in _WRITE_AS_IS:
        namespace[f"k{index}"] = item
        return (
            f"list(v) if v.__class__ is list and all(x.__class__ is k{index} for x in v) else plain(v, every)"
        )
    if (
        _is_union(type_)
        and len(members := get_args(type_)) == 2
        and _is_open_enum(members[0])
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
    if _is_list(type_) and attrs.has(item := (get_args(type_) or (Any,))[0]):
        namespace[f"w{index}"] = _model_writer_of(item)
        namespace[f"c{index}"] = item
        each = f"w{index}(x, every) if x.__class__ is c{index} else plain(x, every)"
        return f"[{each} for x in v] if v.__class__ is list else plain(v, every)"
    return "plain(v, every)"


converter.register_unstructure_hook_factory(
    attrs.has, lambda cls: lambda model: _model_writer(cls)(model, False)
)


# ---------------------------------------------------------------------------------- public helpers


def structure(data: Any, model: Any) -> Any:
    """Decode JSON-shaped ``data`` (from JSON or XML) into ``model``.

    Values that do not fit their declared type are kept as sent (see ``tolerant``); only a top
    level that is not the promised shape (a string where an object or an array is due) raises
    ``DecodeError``.
    """
    if getattr(_decoding, "pending", None) is not None:  # called while decoding: report with the caller
        return _structure_top(data, model)
    return _structure_reporting(data, model)


@typing.overload
def from_dict(model: type[T], data: Any) -> T: ...


@typing.overload
def from_dict(model: Any, data: Any) -> Any: ...


def from_dict(model: Any, data: Any) -> Any:
    """Build ``model`` (a model class, or a type such as ``list[Course]``) from JSON-shaped data.

    The decoder the client uses, so the same tolerance: a value that does not fit its declared
    type is kept as sent on the model, with a DEBUG record on the ``enterprise_async`` logger
    naming the model, the field and the declared type. Raises ``ResponseDecodeError`` only when
    ``data`` itself is not the promised shape (a string where an object is due). The model keeps
    ``data`` for ``to_dict``, so ``to_dict(from_dict(M, raw)) == raw``.
    """
    try:
        return structure(data, model)
    except DecodeError as error:
        raise ResponseDecodeError(f"cannot decode {type_name(model)}: {error}") from None


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
