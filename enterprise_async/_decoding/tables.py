"""``ConversionTables``: what a conversion looks up while it reads and writes.

The converter's hook of a type, the generated reader and writer of a model class, the spec's rule
for a union: the readers, writers, hooks and union dispatchers of this package take the tables
and look up what they meet, and a ``Conversion`` (``conversion``) is the tables with the reading
and writing done through them. Each table is loaded on first use, the converter made (and cattrs
imported) on the first hook asked for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._spec import VariantRule
from .scalars import Hook

if TYPE_CHECKING:
    import cattrs

__all__ = ["ConversionTables", "Writer"]

Writer = Callable[[Any, bool], Any]
"""A model class's writer: ``write(model, every_field)``."""


class ConversionTables:
    """A converter with its hooks, the model readers and writers, and the union rules of one
    conversion. ``readers`` and ``writers`` are given these tables (to bind the readers to) and
    ``variants`` nothing; each is called once, when first needed."""

    def __init__(
        self,
        *,
        readers: Callable[[Any], Mapping[type[Any], Hook]] | None = None,
        writers: Callable[[Any], Mapping[type[Any], Writer]] | None = None,
        variants: Callable[[], Mapping[Any, VariantRule]] | None = None,
    ) -> None:
        self._load_readers = readers
        self._load_writers = writers
        self._load_variants = variants
        self._readers: Mapping[type[Any], Hook] | None = None
        self._writers: Mapping[type[Any], Writer] | None = None
        self._variants: Mapping[Any, VariantRule] | None = None
        self._converter: cattrs.Converter | None = None
        self._making = threading.RLock()

    @property
    def converter(self) -> cattrs.Converter:
        """The cattrs converter every value goes through, with this conversion's hooks (made on
        first use). A hook registered on it for a model class is used where that class is decoded
        at the top (``from_dict``, a response); a model's own fields are read by its reader."""
        return self._converter or self._make()

    def hook(self, type_: Any) -> Hook:
        """The converter's structure hook of ``type_``."""
        converter = self._converter or self._make()
        hook: Hook = converter.get_structure_hook(type_)
        return hook

    def reader(self, cls: type[Any]) -> Hook | None:
        """The reader this conversion was given for a model class, if any."""
        readers = self._readers
        if readers is None:
            with self._making:
                if self._readers is None:
                    load = self._load_readers
                    self._readers = dict(load(self)) if load is not None else {}
                readers = self._readers
        return readers.get(cls)

    def writer(self, cls: type[Any]) -> Writer | None:
        """The writer this conversion was given for a model class, if any."""
        writers = self._writers
        if writers is None:
            with self._making:
                if self._writers is None:
                    load = self._load_writers
                    self._writers = dict(load(self)) if load is not None else {}
                writers = self._writers
        return writers.get(cls)

    @property
    def variants(self) -> Mapping[Any, VariantRule]:
        """The spec's rules for choosing among the classes of a union, keyed by the union."""
        variants = self._variants
        if variants is None:
            load = self._load_variants
            variants = self._variants = dict(load()) if load is not None else {}
        return variants

    def _make(self) -> cattrs.Converter:
        with self._making:
            if self._converter is None:
                import cattrs

                converter = cattrs.Converter()
                self._install(converter)
                self._converter = converter
            return self._converter

    def _install(self, converter: cattrs.Converter) -> None:
        """Register the hooks on the converter just made (a ``Conversion`` registers its own)."""
