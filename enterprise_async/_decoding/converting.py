"""What the decoding's functions ask of the conversion they are given: a hook for each type, a
model class's generated writer, and the spec's rules for unions.

``Conversion`` (``conversion.py``) is the one that exists. It is made of the modules that take it
as an argument, so they name this protocol instead of importing it, and no import goes round in
a circle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from .._spec import VariantRule
from .scalars import Hook

__all__ = ["Converting"]


class Converting(Protocol):
    """A conversion, as the readers, writers, hooks and union dispatchers use it."""

    @property
    def variants(self) -> Mapping[Any, VariantRule]:
        """The spec's rules for choosing among the classes of a union, keyed by the union."""

    def hook(self, type_: Any) -> Hook:
        """The reader of values of ``type_``."""

    def writer(self, cls: type[Any]) -> Callable[[Any, bool], Any] | None:
        """The generated writer of a model class, if the generator saw the class."""
