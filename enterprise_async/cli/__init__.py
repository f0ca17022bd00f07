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

from ..exports import (  # noqa: E402 (after the extra's check)
    LEARNER_COLUMNS,
    CatalogOutcome,
    ExportProgress,
    ExportSummary,
    export_catalogs,
    export_learners,
)
from ._app import cli, main  # noqa: E402

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
