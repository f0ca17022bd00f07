"""One cattrs converter, configured once, that reads JSON and XML bodies into the same models.

``converter`` is the way values are structured and unstructured: the client, ``from_dict`` and
``to_dict`` all go through it. A model's hooks are the reader and the writer the generator wrote
for it (``_generated/readers.py``, ``_generated/writers.py``), which the public ``models`` module
hands over with ``register_generated`` and which are loaded on the first decode; a class the
generator did not see is read and written field by field the same way (``readers``, ``writers``).

XML arrives with text leaves (see ``_utils.xml``), JSON with typed ones; the hooks registered here make
both land on the same values, guided only by the models' types:

- scalars are lenient (``scalars``);
- a field the server leaves out, or sends as null, is ``None``; an array is ``[]`` (``registry``);
- open enums give the member for a documented value (spelling-insensitive) and keep any other
  value as a plain string (``registry``);
- unions pick their variant by the shape of the value, or by the variant rules of the spec, which
  the public ``models`` module hands over with ``register_variants`` (``unions``);
- every model keeps unknown fields in ``extra``, and ``to_dict`` writes them back (``readers``,
  ``writers``);
- a value its declared type does not allow is kept as sent, with a DEBUG record naming the model,
  the path from the top and the declared type; only a top level of the wrong shape is an error
  (``tolerance``), which also hands what drifted from the spec (unknown fields, enum values
  outside it, values kept as sent) to a caller's drift listener (``structure(..., findings)``);
- every decoded model keeps the object it was decoded from (a private attribute), from which
  ``to_dict`` writes the server's own values back (``writers``).
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

from ..errors import ResponseDecodeError
from .failure import DecodeError, type_name
from .fields import known_fields
from .readers import model_reader
from .registry import (
    enum_hook,
    generated_reader,
    is_list,
    is_mapping,
    is_open_enum,
    is_union,
    list_hook,
    mapping_hook,
    on_converter,
    register_generated,
    the_converter,
)
from .scalars import SCALAR_HOOKS, Hook
from .tolerance import Finding, PathsWanted, structure
from .unions import register_variants, union_hook
from .writers import model_writer, to_dict

if TYPE_CHECKING:
    import cattrs

    from .registry import converter

__all__ = [
    "DecodeError",
    "Finding",
    "PathsWanted",
    "converter",
    "from_dict",
    "known_fields",
    "register_generated",
    "register_variants",
    "structure",
    "the_converter",
    "to_dict",
    "type_name",
]

T = TypeVar("T")


def _model_hook(cls: type[Any]) -> Hook:
    """The reader the generator wrote for a model class, or one that reads it field by field."""
    return generated_reader(cls) or model_reader(cls)


def _install(converter: cattrs.Converter) -> None:
    """Register every hook on the converter, once, when it is made (the first decode)."""
    converter.register_structure_hook_factory(is_union, union_hook)
    converter.register_structure_hook_factory(is_list, list_hook)
    converter.register_structure_hook_factory(is_mapping, mapping_hook)
    converter.register_structure_hook_factory(is_open_enum, enum_hook)
    converter.register_structure_hook_factory(attrs.has, _model_hook)
    for type_, scalar_hook in SCALAR_HOOKS.items():
        if type_ is Any:  # not a class before Python 3.11, so single dispatch refuses it: match it exactly
            converter.register_structure_hook_func(lambda candidate: candidate is Any, scalar_hook)
            continue
        converter.register_structure_hook(type_, scalar_hook)
    converter.register_unstructure_hook_factory(
        attrs.has, lambda cls: lambda model: model_writer(cls)(model, False)
    )


on_converter(_install)


def __getattr__(name: str) -> Any:
    if name == "converter":
        return the_converter()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
