"""The fields of each generated model class as its reader and writer see them (``Field``,
``Model``: read from the models module just rendered), and the names and type tests both use."""

from __future__ import annotations

import datetime
import decimal
import re
import types
import typing
from typing import Any, NamedTuple, get_args, get_origin

import attrs

from enterprise_async._decoding.enums import OpenEnum
from enterprise_async._decoding.hooks import is_list, is_union

AS_IS = (str, int, float, bool)


WRITE_METHOD = {
    datetime.datetime: "json_datetime(value)",
    datetime.date: "value.isoformat()",
    decimal.Decimal: "str(value)",
}


class Field(NamedTuple):
    """One field of a model as the reader and the writer see it."""

    name: str
    wire: str
    type: Any
    """The declared type without ``None``."""
    default: Any
    """What the field holds when the server leaves it out: its scalar default, else None."""
    listish: bool
    required: bool = False
    """Listed in its schema's ``required``: the attrs field has no default."""
    nullable: bool = True
    """Its declared type admits None."""


class Model(NamedTuple):
    cls: type[Any]
    fields: tuple[Field, ...]
    rule: tuple[str, ...] = ()
    """The fields of its schema's rule on required fields (``_sdk_rule``), if it has one."""


Rules = dict[str, tuple[str, ...]]
"""By model name: the wire names its schema's rule on required fields reads (``codegen.models``)."""


TypeLists = dict[str, tuple[str, tuple[str, ...]]]
"""By model name: the discriminator property and the types the spec lists (``codegen.variants``)."""


def load_models(source: str) -> types.ModuleType:
    """The models module rendered from the spec, loaded from its source (not from the package)."""
    module = types.ModuleType("enterprise_async._generated.models")
    exec(compile(source, "<generated models>", "exec"), module.__dict__)  # the generator's own output
    return module


def read_models(module: types.ModuleType, rules: Rules | None = None) -> list[Model]:
    """Every attrs class of ``module``, in the order it defines them, with its fields (``rules``:
    the fields of each class's rule on required fields)."""
    rules = rules or {}
    models = []
    for value in vars(module).values():
        if isinstance(value, type) and attrs.has(value) and value.__module__ == module.__name__:
            _check_plain(value, rules)
            hints = typing.get_type_hints(value, globalns=vars(module))
            fields = tuple(
                _field(field, hints[field.name])
                for field in attrs.fields(value)
                if field.init and field.name != "extra"
            )
            models.append(Model(value, fields, rules.get(value.__name__, ())))
    return models


def _check_plain(cls: type[Any], rules: Rules) -> None:
    """Refuse a class whose ``__init__`` does more than set its fields: its reader could not set them."""
    hooks = [name for name in ("__attrs_pre_init__", "__attrs_post_init__") if hasattr(cls, name)]
    if "_sdk_rule" in vars(cls) and hooks == ["__attrs_post_init__"] and cls.__name__ in rules:
        hooks = []  # the generator's own rule check, which the reader calls
    checked = [f.name for f in attrs.fields(cls) if f.validator is not None or f.converter is not None]
    if hooks or checked:
        raise ValueError(f"{cls.__name__}: readers set fields directly; {hooks + checked} would be skipped")


def _field(field: attrs.Attribute[Any], hint: Any) -> Field:
    type_ = _without_none(hint)
    default = field.default
    scalar_default = (
        default is not None and default is not attrs.NOTHING and not isinstance(default, attrs.Factory)
    )  # type: ignore[arg-type]
    listish = is_list(type_) or (is_union(type_) and is_list(get_args(type_)[0]))
    wire = str(field.metadata.get("wire", field.name))
    required = default is attrs.NOTHING
    nullable = is_union(hint) and types.NoneType in get_args(hint)
    return Field(field.name, wire, type_, default if scalar_default else None, listish, required, nullable)


def items_of(type_: Any) -> Any:
    return (get_args(type_) or (Any,))[0]


def open_enum(type_: Any) -> Any:
    """``E`` for an open enum field (``E | str``), else None."""
    members = get_args(type_) if is_union(type_) else ()
    if len(members) == 2 and members[1] is str and _is_enum(members[0]):
        return members[0]
    return None


def is_date_or_datetime(type_: Any) -> bool:
    """A field the spec gives a date or a datetime (``anyOf`` of both formats): a UTC datetime as
    ``to_dict`` writes it is taken as it is, anything else (a date alone) goes to the union's reader."""
    return is_union(type_) and set(get_args(type_)) == {datetime.datetime, datetime.date}


def _is_enum(type_: Any) -> bool:
    return isinstance(type_, type) and issubclass(type_, OpenEnum)


def _without_none(type_: Any) -> Any:
    if not is_union(type_):
        return type_
    members = [member for member in get_args(type_) if member is not types.NoneType]
    return members[0] if len(members) == 1 else typing.Union[tuple(members)]  # noqa: UP007


def source_of(type_: Any) -> str:
    """A declared type as source in the generated modules (``list[Seat]``, ``LevelType | str``)."""
    if type_ is types.NoneType or type_ is None:
        return "None"
    if type_ is Any:
        return "Any"
    if is_union(type_):
        return " | ".join(source_of(member) for member in get_args(type_))
    if get_origin(type_) in (list, dict):
        return f"{get_origin(type_).__name__}[{', '.join(source_of(arg) for arg in get_args(type_))}]"
    if type_ in WRITE_METHOD:
        return f"{type_.__module__}.{type_.__qualname__}"
    return str(type_.__name__)


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def article(name: str) -> str:
    return "An" if name[0] in "AEIOU" else "A"


def constant(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").upper()


def import_models(module: types.ModuleType) -> str:
    """Every class of the models module (the formatter drops those a module does not use)."""
    names = sorted(
        name
        for name, value in vars(module).items()
        if isinstance(value, type) and value.__module__ == module.__name__
    )
    return f"from enterprise_async._generated.models import ({', '.join(names)})"
