"""The converter and the hooks it finds by predicate: open enums, arrays, objects, scalars.

Models get the readers and writers the generator wrote, which the public ``models`` module hands
over with ``register_generated`` (the runtime imports no generated module); unions get theirs from
``unions``. ``_install`` in the package's ``__init__`` registers them all, once.
"""

from __future__ import annotations

import threading
import types
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, get_args, get_origin

from .enums import OpenEnum, normalized
from .failure import DecodeError, describe
from .scalars import SCALAR_HOOKS, Hook, to_mapping, to_str

__all__ = [
    "PASS_THROUGH_CLASSES",
    "converter",
    "enum_hook",
    "generated_reader",
    "generated_writer",
    "hook",
    "is_list",
    "is_mapping",
    "is_open_enum",
    "is_union",
    "list_hook",
    "mapping_hook",
    "on_converter",
    "register_generated",
    "the_converter",
]

if TYPE_CHECKING:
    import cattrs

    converter: cattrs.Converter
    """The SDK's only converter: the client, ``from_dict`` and ``to_dict`` all go through it."""

_CONVERTER: list[cattrs.Converter] = []
_SETUPS: list[Callable[[cattrs.Converter], None]] = []
_MAKING = threading.Lock()


def on_converter(setup: Callable[[cattrs.Converter], None]) -> None:
    """Have ``setup`` configure the converter when it is made (``_install`` registers its hooks)."""
    _SETUPS.append(setup)


def the_converter() -> cattrs.Converter:
    """The SDK's only converter, made (and cattrs imported) by the first decode or the first to ask
    for ``converter``, so that `import enterprise_async` does not load cattrs."""
    if not _CONVERTER:
        with _MAKING:
            if not _CONVERTER:
                import cattrs

                made = cattrs.Converter()
                for setup in _SETUPS:
                    setup(made)
                _CONVERTER.append(made)
    return _CONVERTER[0]


def __getattr__(name: str) -> Any:
    if name == "converter":
        return the_converter()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


Writer = Callable[[Any, bool], Any]

_READERS: list[Callable[[], Mapping[type[Any], Hook]]] = []
_WRITERS: list[Callable[[], Mapping[type[Any], Writer]]] = []
_LOADED: dict[str, list[Mapping[type[Any], Any]]] = {}


def register_generated(
    readers: Callable[[], Mapping[type[Any], Hook]], writers: Callable[[], Mapping[type[Any], Writer]]
) -> None:
    """Give the converter the readers and the writers the generator wrote, by model class; each
    loader imports its module when first needed (the first decode, the first ``to_dict``), so that
    `import enterprise_async` stays light."""
    _READERS.append(readers)
    _WRITERS.append(writers)
    _LOADED.clear()


def _loaded(kind: str, loaders: list[Callable[[], Mapping[type[Any], Any]]]) -> list[Mapping[type[Any], Any]]:
    if len(_LOADED.get(kind, ())) != len(loaders):
        _LOADED[kind] = [load() for load in loaders]
    return _LOADED[kind]


def generated_reader(cls: type[Any]) -> Hook | None:
    """The reader the generator wrote for a model class, if it saw the class."""
    return next((found[cls] for found in _loaded("readers", _READERS) if cls in found), None)


def generated_writer(cls: type[Any]) -> Writer | None:
    """The writer the generator wrote for a model class, if it saw the class."""
    return next((found[cls] for found in _loaded("writers", _WRITERS) if cls in found), None)


def hook(type_: Any) -> Hook:
    return the_converter().get_structure_hook(type_)


def is_union(type_: Any) -> bool:
    return get_origin(type_) in (typing.Union, types.UnionType)


def is_list(type_: Any) -> bool:
    return get_origin(type_) is list


def is_mapping(type_: Any) -> bool:
    return type_ is dict or get_origin(type_) is dict


def is_open_enum(type_: Any) -> bool:
    return isinstance(type_, type) and issubclass(type_, OpenEnum)


def enum_hook(enum: type[OpenEnum]) -> Hook:
    members: dict[Any, OpenEnum] = {}
    for member in enum:
        members[normalized(member.value)] = member
    for member in enum:
        members[member.value] = member

    def structure_enum(value: Any, _: Any = None) -> OpenEnum | str:
        if value.__class__ is str and (found := members.get(value)) is not None:
            return found
        text = to_str(value)
        return members.get(normalized(text), text)

    return structure_enum


def list_hook(type_: Any) -> Hook:
    (item_type,) = get_args(type_) or (Any,)
    if item_type in (Any, object):
        return _structure_plain_list
    if item_type in PASS_THROUGH_CLASSES:
        return _scalar_list_hook(item_type)
    resolved: list[Hook] = []

    def structure_list(value: Any, _: Any = None) -> list[Any]:
        if value is None:
            return []
        if value.__class__ is not list:
            raise DecodeError(f"expected an array, got {describe(value)}")
        if not resolved:
            resolved.append(hook(item_type))
        return _items(value, resolved[0], item_type)

    return structure_list


def _scalar_list_hook(item_type: type[Any]) -> Hook:
    item_hook = SCALAR_HOOKS[item_type]

    def structure_scalar_list(value: Any, _: Any = None) -> list[Any]:
        if value is None:
            return []
        if value.__class__ is not list:
            raise DecodeError(f"expected an array, got {describe(value)}")
        for item in value:
            if item.__class__ is not item_type:
                return _items(value, item_hook, item_type)
        return value

    return structure_scalar_list


def _structure_plain_list(value: Any, _: Any = None) -> list[Any]:
    if value is None:
        return []
    if value.__class__ is not list:
        raise DecodeError(f"expected an array, got {describe(value)}")
    return value


def _items(items: list[Any], item_hook: Hook, item_type: Any) -> list[Any]:
    """Each item decoded; the first that cannot be names its place (``[3]``) in the error."""
    try:
        return [item_hook(item, item_type) for item in items]
    except DecodeError:
        pass
    for index, item in enumerate(items):
        try:
            item_hook(item, item_type)
        except DecodeError as error:
            raise error.within(f"[{index}]") from None
    raise DecodeError("array could not be decoded")  # pragma: no cover - the first pass failed


def mapping_hook(type_: Any) -> Hook:
    return to_mapping


PASS_THROUGH_CLASSES: frozenset[type[Any]] = frozenset({str, int, float, bool, dict})
"""Classes whose values a field of the same type takes as they are, with no conversion."""
