"""Names a package imports on first use (PEP 562), so that importing it loads nothing heavy."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_names"]


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
