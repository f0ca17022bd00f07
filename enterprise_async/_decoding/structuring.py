"""Structuring: one function compiled per model class, with the common cases checked inline.

Each model gets one structuring function, compiled the first time it is needed, with the common
cases (a string field holding a string, ...) checked inline: no per-field dispatch on the hot path.
"""

from __future__ import annotations

import typing
from types import NoneType
from typing import Any, get_args

import attrs

from .._xml import TextObject
from .failure import DecodeError, describe
from .fields import WIRE, has_scalar_default, is_listish, known_fields, model_fields, wire_name, without_none
from .registry import PASS_THROUGH, hook, is_list, is_mapping, is_union
from .scalars import SCALAR_HOOKS, Hook
from .tolerance import tolerant_model

__all__ = ["model_hook"]


def _inline_class(type_: Any) -> str | None:
    """The class whose values pass a field of this type unchanged (``str`` for ``str | None``)."""
    members = get_args(type_) if is_union(type_) else (type_,)
    members = tuple(member for member in members if member is not NoneType)
    if len(members) != 1:
        return None
    member = members[0]
    if is_mapping(member):
        return "dict"
    return PASS_THROUGH.get(member)


_COMPILING: set[type[Any]] = set()


def model_hook(cls: type[Any]) -> Hook:
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
        "tolerant": tolerant_model,
        "text_object": TextObject,
        "DecodeError": DecodeError,
    }
    arguments: list[str] = []
    _COMPILING.add(cls)
    try:
        for index, field in enumerate(fields):
            type_ = without_none(hints[field.name])
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
    wire = wire_name(field)
    fetch = f"get({wire!r})"
    if has_scalar_default(field):
        namespace[f"d{index}"] = field.default
        fetch = f"get({wire!r}, d{index})"
    if is_list(type_) and attrs.has(item := (get_args(type_) or (Any,))[0]) and item not in _COMPILING:
        # A list of models, built right here; anything unusual (None, not a list) goes to the hook.
        namespace[f"i{index}"] = hook(item)
        namespace[f"m{index}"] = item
        built = f"[i{index}(x, m{index}) for x in v]"
        return f"{built} if (v := {fetch}).__class__ is list else h{index}(v, t{index})"
    if is_listish(type_):
        return f"h{index}({fetch}, t{index})"  # the hook turns a missing array into []
    inline = _inline_class(type_)
    if inline:
        return f"v if (v := {fetch}) is None or v.__class__ is {inline} else h{index}(v, t{index})"
    return f"None if (v := {fetch}) is None else h{index}(v, t{index})"


def _field_hook(type_: Any) -> Hook:
    """The hook of a field's type, resolved now unless the type is a model still being compiled."""
    scalar = SCALAR_HOOKS.get(type_)
    if scalar is not None:
        return scalar
    if type_ in _COMPILING:
        return _lazy_hook(type_)
    return hook(type_)


def _lazy_hook(type_: Any) -> Hook:
    """A hook resolved on first use, for a model that refers to itself."""
    resolved: list[Hook] = []

    def lazy(value: Any, _: Any = None) -> Any:
        if not resolved:
            resolved.append(hook(type_))
        return resolved[0](value, type_)

    return lazy


def _not_an_object(value: Any, cls: type[Any]) -> Any:
    if value is None:
        return None
    raise DecodeError(f"expected an object ({cls.__name__}), got {describe(value)}")
