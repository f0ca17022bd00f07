"""The API's resources as attrs classes, generated from `spec/openapi.yaml`.

Field names are the wire names. A field the server leaves out is ``None`` (``[]`` for an array);
fields the spec does not know are kept in ``extra``; enum fields hold a member for a documented
value and the plain string otherwise; a value its declared type does not allow is kept as sent
(and logged at DEBUG). ``to_dict`` and ``from_dict`` convert with the same decoder the client
uses, for JSON and XML alike; ``to_dict`` writes a decoded model back as the server sent it.
"""

from collections.abc import Mapping
from typing import Any

from ._decoding import from_dict, register_variants, to_dict
from ._generated.models import *  # noqa: F403 - the generated module defines __all__
from ._generated.models import __all__ as _generated_names
from ._generated.variants import VARIANT_RULES
from ._xml_schema import register_schemas

register_variants(VARIANT_RULES)


def _component_schemas() -> Mapping[str, Any]:
    """The spec's schemas, which say what an empty XML element stands for (imported on first use)."""
    from ._generated.schemas import COMPONENTS

    return COMPONENTS


register_schemas(_component_schemas)

__all__ = [*_generated_names, "from_dict", "to_dict"]
