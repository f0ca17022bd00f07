"""Render ``_generated/conversion.py``: the one ``Conversion`` the generated code makes, explicitly."""

from __future__ import annotations

CONVERSION_SOURCE = '''\
"""`CONVERSION`: the `Conversion` of these models, with their readers, writers, union rules and
component schemas. `EnterpriseClient` gives it to the runtime, and `enterprise_async.models` takes
its `from_dict`, `to_dict` and `converter` from it. The readers, writers and schemas are imported
on first use, so that `import enterprise_async` stays light."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._decoding.conversion import Conversion
from .variants import VARIANT_RULES


def _readers(conversion: Conversion) -> Mapping[type[Any], Callable[[Any, Any], Any]]:
    from .readers import readers

    return readers(conversion)


def _writers(conversion: Conversion) -> Mapping[type[Any], Callable[[Any, bool], Any]]:
    from .writers import writers

    return writers(conversion)


def _schemas() -> Mapping[str, Any]:
    from .schemas import COMPONENTS

    return COMPONENTS


CONVERSION = Conversion(readers=_readers, writers=_writers, variants=VARIANT_RULES, schemas=_schemas)
"""The models' conversion: the client, `from_dict` and `to_dict` all go through it."""
'''


def render_conversion() -> str:
    """The source of ``_generated/conversion.py`` (unformatted, without header)."""
    return CONVERSION_SOURCE
