"""``Conversion``: the one owner of a client's decoding state, and the reading and writing done with it.

A conversion is the tables the decoding looks up (``tables``: the cattrs converter and every hook
on it, the model readers and writers the generator wrote, the spec's union rules) with the
component schemas the XML reader needs. The
generated code makes one (``_generated/conversion.py``: ``CONVERSION``), the generated client
hands it to the runtime, and every decode and encode of that client goes through it; the public
``from_dict``, ``to_dict`` and ``converter`` of ``enterprise_async.models`` are its own. Two
conversions share nothing that either could change: hooks, the readers bound to them and the
shapes read from the schemas live on the instance; their modules keep only caches keyed by
everything that decides their values (a class's fields, a wire record's fields left out).

The converter is made, and cattrs imported, on first use, so that ``import enterprise_async``
stays light; the generated readers, writers and union rules are loaded then too (``readers`` and
``writers`` are loaders, given the conversion to bind the readers to; ``variants`` and
``schemas`` are loaders).
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
from attrs import AttrsInstance

from .._spec import VariantRule
from .._utils.json_types import JSONValue
from .._utils.xml import Steps
from ..errors import ResponseDecodeError
from .failure import DecodeError, type_name
from .hooks import enum_hook, is_list, is_mapping, is_open_enum, is_union, list_hook, mapping_hook
from .readers import model_reader, read_models, reader_for
from .scalars import SCALAR_HOOKS, Hook
from .tables import ConversionTables, Writer
from .tolerance import structure
from .unions import union_hook
from .writers import as_sent, model_writer, plain
from .xml_schema import XmlSchemas, fill_empty_elements
from .xml_tree import read_drf_xml, read_drf_xml_in_steps

if TYPE_CHECKING:
    import cattrs

__all__ = ["Conversion", "ReadersLoader", "Writer", "WritersLoader"]

T = TypeVar("T")

ReadersLoader = Callable[["Conversion"], Mapping[type[Any], Hook]]
"""Gives the readers of model classes, bound to the conversion it is given (called once, on the
first decode)."""
WritersLoader = Callable[["Conversion"], Mapping[type[Any], Writer]]
"""Gives the writers of model classes, bound to the conversion it is given (called once, on the
first ``to_dict``)."""


class Conversion(ConversionTables):
    """The converter, the model readers and writers, the union rules and the XML schemas of one
    client (and of the ``models`` module's ``from_dict``/``to_dict``), and the reading and writing
    done through them."""

    def __init__(
        self,
        *,
        readers: ReadersLoader | None = None,
        writers: WritersLoader | None = None,
        variants: Callable[[], Mapping[Any, VariantRule]] | None = None,
        schemas: Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        super().__init__(readers=readers, writers=writers, variants=variants)
        self.xml = XmlSchemas(self, schemas)
        # Bound once: the generated readers and writers call these for every odd value.
        self.reader_for = functools.partial(reader_for, self)
        self.read_models = functools.partial(read_models, self)
        self.plain: Callable[..., Any] = functools.partial(plain, self)
        self.as_sent = functools.partial(as_sent, self)
        self.structure = functools.partial(structure, self)
        """``structure(data, model, findings=None, paths_wanted=None, redact=None)``: see
        ``tolerance.structure``."""

    @typing.overload
    def from_dict(self, model: type[T], data: object) -> T: ...

    @typing.overload
    def from_dict(self, model: object, data: object) -> object: ...

    def from_dict(self, model: object, data: object) -> object:
        """Build ``model`` (a model class, or a type such as ``list[Course]``) from JSON-shaped data.

        The decoder the client uses, so the same tolerance: a value that does not fit its declared
        type is kept as sent on the model, with a DEBUG record on the ``enterprise_async`` logger
        naming the model, the field and the declared type. Raises ``ResponseDecodeError`` only when
        ``data`` itself is not the promised shape (a string where an object is due). The model keeps
        ``data`` for ``to_dict``, so ``to_dict(from_dict(M, raw)) == raw``.
        """
        try:
            return structure(self, data, model)
        except DecodeError as error:
            raise ResponseDecodeError(f"cannot decode {type_name(model)}: {error}") from None

    @typing.overload
    def to_dict(self, model: AttrsInstance, *, every_field: bool = False) -> dict[str, JSONValue]: ...

    @typing.overload
    def to_dict(self, model: list[T], *, every_field: bool = False) -> list[JSONValue]: ...

    @typing.overload
    def to_dict(self, model: object, *, every_field: bool = False) -> JSONValue: ...

    def to_dict(self, model: object, *, every_field: bool = False) -> JSONValue:
        """JSON-ready data for a model (or a list of models), as the server sent it.

        For a decoded model, a field the server sent is written with the server's own value (an enum
        as spelled, ``"Intermediate"`` or ``"self_paced"``; a datetime or decimal as its text) unless
        it was changed since, and a field the server left out stays out unless it was set since;
        ``every_field=True`` writes every documented field (``None``/``[]`` for those left out).
        Unknown fields the server sent are written back as received. A model built in code writes
        every field: wire names, ISO dates, decimal strings, enum values.
        ``from_dict(M, to_dict(x)) == x`` for every model ``x``.
        """
        written: JSONValue = plain(self, model, every_field)
        return written

    def fill_empty_elements(self, data: Any, model: Any) -> Any:
        """XML data read as ``model``'s fields say, in place (see ``xml_schema``)."""
        return fill_empty_elements(self.xml, data, model)

    def read_drf_xml(self, body: bytes | str, model: Any = None) -> Any:
        """A DRF XML document as JSON-shaped data, read as ``model``'s fields say (see ``xml_tree``)."""
        return read_drf_xml(self.xml, body, model)

    def read_drf_xml_in_steps(self, body: bytes | str, model: Any = None) -> Steps:
        """``read_drf_xml`` in steps of a few milliseconds each (see ``xml_tree``)."""
        return read_drf_xml_in_steps(self.xml, body, model)

    def _install(self, converter: cattrs.Converter) -> None:
        """Register every hook on the converter, once, when it is made."""
        converter.register_structure_hook_factory(is_union, functools.partial(union_hook, self))
        converter.register_structure_hook_factory(is_list, functools.partial(list_hook, self))
        converter.register_structure_hook_factory(is_mapping, mapping_hook)
        converter.register_structure_hook_factory(is_open_enum, enum_hook)
        converter.register_structure_hook_factory(attrs.has, self._model_hook)
        for type_, scalar_hook in SCALAR_HOOKS.items():
            if type_ is Any:  # not a class before Python 3.11: single dispatch refuses it, match it exactly
                converter.register_structure_hook_func(lambda candidate: candidate is Any, scalar_hook)
                continue
            converter.register_structure_hook(type_, scalar_hook)
        converter.register_unstructure_hook_factory(attrs.has, self._model_unstructure_hook)

    def _model_hook(self, cls: type[Any]) -> Hook:
        """The reader this conversion was given for a model class, or one that reads it field by field."""
        return self.reader(cls) or model_reader(self, cls)

    def _model_unstructure_hook(self, cls: type[Any]) -> Callable[[Any], Any]:
        write = model_writer(self, cls)
        return lambda model: write(model, False)
