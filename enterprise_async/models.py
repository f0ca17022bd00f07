"""The API's resources as attrs classes, generated from `spec/openapi.yaml`.

Field names are the wire names. A field the server leaves out is ``None`` (``[]`` for an array);
fields the spec does not know are kept in ``extra``; enum fields hold a member for a documented
value and the plain string otherwise; a value its declared type does not allow is kept as sent
(and logged at DEBUG). ``to_dict`` and ``from_dict`` convert with the same decoder the client
uses, for JSON and XML alike; ``to_dict`` writes a decoded model back as the server sent it.

``converter`` is the one cattrs ``Converter`` that structures and unstructures every value: the
client, ``from_dict`` and ``to_dict`` go through it. Each model's hooks are the reader and the
writer the generator wrote for it (``_generated/readers.py``, ``_generated/writers.py``). Add a
hook of your own for a type of yours with ``converter.register_structure_hook`` (or
``register_unstructure_hook``); a hook registered for a model class is used where that class is
decoded at the top (``from_dict``, a response), while a model's own fields are read by its reader.
"""

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ._decoding import from_dict, register_generated, register_variants, the_converter, to_dict
from ._decoding.xml_schema import register_schemas
from ._generated.models import *  # noqa: F403 - the generated module defines __all__
from ._generated.models import __all__ as _generated_names
from ._generated.variants import VARIANT_RULES

if TYPE_CHECKING:
    from ._decoding import converter

register_variants(VARIANT_RULES)


def _readers() -> Mapping[type[Any], Any]:
    """The readers the generator wrote for these models (imported on the first decode)."""
    from ._generated.readers import READERS

    return READERS


def _writers() -> Mapping[type[Any], Any]:
    """The writers the generator wrote for these models (imported on the first ``to_dict``)."""
    from ._generated.writers import WRITERS

    return WRITERS


register_generated(_readers, _writers)


def _component_schemas() -> Mapping[str, Any]:
    """The spec's schemas, which say what an empty XML element stands for (imported on first use)."""
    from ._generated.schemas import COMPONENTS

    return COMPONENTS


register_schemas(_component_schemas)

__all__ = [*_generated_names, "converter", "from_dict", "to_dict"]


def __getattr__(name: str) -> Any:
    """``converter``, made (cattrs imported) when first asked for or by the first decode."""
    if name == "converter":
        return the_converter()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
