"""``enterprise-async``: the command line of enterprise_async.

A command for every operation of the generated operation table (``<resource> <method>``, typed
from the spec's rules, validated by the client), bulk exports (``catalogs export``,
``learners export``), a guided ``demo`` and a ``sandbox`` server. The exports are also functions
(``export_catalogs``, ``export_learners``) for use without the command line.
"""

from ..exports import (
    LEARNER_COLUMNS,
    CatalogOutcome,
    ExportProgress,
    ExportSummary,
    export_catalogs,
    export_learners,
)
from ._app import cli, main

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
