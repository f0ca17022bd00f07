"""``enterprise-async``: the command line of enterprise_async.

A command for every operation of the generated operation table (``<resource> <method>``, typed
from the spec's rules, validated by the client), bulk exports (``catalogs export``,
``learners export``), a guided ``demo`` and a ``sandbox`` server. The exports are also functions
(``export_catalogs``, ``export_learners``) for use without the command line.

It needs the ``[cli]`` extra (click, rich): without it, importing this package raises
``MissingExtraError`` (an ``ImportError``) naming the install command.
"""

from .._utils.optional import require_extra

require_extra("cli")

from typing import TYPE_CHECKING  # noqa: E402 (after the extra's check)

from .._utils.lazy import lazy_names  # noqa: E402
from ._root import cli, main  # noqa: E402

if TYPE_CHECKING:
    from ..exports import (
        LEARNER_COLUMNS,
        CatalogOutcome,
        ExportProgress,
        ExportSummary,
        export_catalogs,
        export_learners,
    )

__all__ = [
    "LEARNER_COLUMNS",
    "CatalogOutcome",
    "ExportProgress",
    "ExportSummary",
    "cli",
    "export_catalogs",
    "export_learners",
    "main",
]

__getattr__ = lazy_names(
    __name__,
    {name: "..exports" for name in __all__ if name not in ("cli", "main")},
    globals(),
)
