"""What a package loads on first use, so that importing it loads nothing heavy: names (PEP 562),
a module of its own, a class attribute."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping, MutableMapping
from types import ModuleType
from typing import Any, Generic, TypeVar

__all__ = ["OnFirstUse", "lazy_module", "lazy_names"]

T = TypeVar("T")


def lazy_names(
    package: str, names: Mapping[str, str], namespace: MutableMapping[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: each of ``names`` is imported from its module
    (``{"Sandbox": "._sandbox"}``) when first asked for, then kept in ``namespace``."""

    def attribute(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    return attribute


def lazy_module(name: str, package: str) -> ModuleType:
    """The module ``name`` (``.operations`` of ``package``), run when one of its attributes is
    first read; the module itself where it ran already. Only that module is deferred."""
    absolute = importlib.util.resolve_name(name, package)
    module = sys.modules.get(absolute)
    if module is not None:
        return module
    spec = importlib.util.find_spec(absolute)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"no module named {absolute!r}", name=absolute)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[absolute] = module
    loader.exec_module(module)
    return module


class OnFirstUse(Generic[T]):
    """A class attribute that ``load`` makes when it is first read (on the class or an instance),
    then kept on the class that declares it."""

    def __init__(self, load: Callable[[], T]) -> None:
        self._load = load
        self._owner: type[Any] | None = None
        self._name = ""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self._owner, self._name = owner, name

    def __get__(self, instance: object, owner: type[Any]) -> T:
        value = self._load()  # a module's import: made once, whichever thread asks first
        setattr(self._owner or owner, self._name, value)
        return value
