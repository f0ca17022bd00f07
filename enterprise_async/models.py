"""The API's resources as attrs classes, generated from `spec/openapi.yaml`.

Field names are the wire names. A field the server leaves out is ``None`` (``[]`` for an array);
fields the spec does not know are kept in ``extra``; enum fields hold a member for a documented
value and the plain string otherwise; a value its declared type does not allow is kept as sent
(and logged at DEBUG). ``to_dict`` and ``from_dict`` convert with the same decoder the client
uses, for JSON and XML alike; ``to_dict`` writes a decoded model back as the server sent it.

``converter`` is the cattrs ``Converter`` of the models' conversion (the generated
``CONVERSION``), which structures and unstructures every value: the client, ``from_dict`` and
``to_dict`` go through it. Each model's hooks are the reader and the writer the generator wrote
for it (``_generated/readers.py``, ``_generated/writers.py``). Add a hook of your own for a type
of yours with ``converter.register_structure_hook`` (or ``register_unstructure_hook``); a hook
registered for a model class is used where that class is decoded at the top (``from_dict``, a
response), while a model's own fields are read by its reader.
"""

from typing import TYPE_CHECKING, Any

from ._generated.conversion import CONVERSION
from ._generated.models import *  # noqa: F403 - the generated module defines __all__
from ._generated.models import __all__ as _generated_names

if TYPE_CHECKING:
    import cattrs

    converter: cattrs.Converter

from_dict = CONVERSION.from_dict
to_dict = CONVERSION.to_dict

__all__ = [*_generated_names, "converter", "from_dict", "to_dict"]


def __dir__() -> list[str]:
    """The names a user may import: the models, ``converter``, ``from_dict`` and ``to_dict``."""
    return sorted(__all__)


def __getattr__(name: str) -> Any:
    """``converter``, made (cattrs imported) when first asked for or by the first decode."""
    if name == "converter":
        return CONVERSION.converter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
