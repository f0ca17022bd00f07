"""Bulk exports: every catalog's contents as JSON Lines, the learner summary as CSV or JSON Lines.

The engine behind ``enterprise-async catalogs export`` and ``learners export``, for use without the
command line too. A catalog export is resumable: each complete catalog is recorded in the output
directory's manifest (``Manifest``), and files are written atomically (``AtomicFile``). An item it
cannot read goes to its catalog's rejects file (``REJECTS_SUFFIX``); with ``changes=True`` each
catalog's changes since its last complete export are written beside it (``CHANGES_SUFFIX``,
counted by ``ChangeCounts``).
"""

from ._atomic_file import PART_SUFFIX, AtomicFile
from ._catalog_files import CHANGES_SUFFIX, HELD_SUFFIX
from ._catalogs import (
    CatalogOutcome,
    ExportProgress,
    ExportSummary,
    SilentProgress,
    catalog_file_name,
    export_catalogs,
)
from ._changes import ChangeCounts
from ._learners import LEARNER_COLUMNS, LearnerFormat, csv_cell, export_learners, spreadsheet_safe
from ._manifest import MANIFEST_NAME, CompletedCatalog, FailedCatalog, Manifest
from ._rejects import REJECTS_SUFFIX

__all__ = [
    "CHANGES_SUFFIX",
    "HELD_SUFFIX",
    "LEARNER_COLUMNS",
    "MANIFEST_NAME",
    "PART_SUFFIX",
    "REJECTS_SUFFIX",
    "AtomicFile",
    "CatalogOutcome",
    "ChangeCounts",
    "CompletedCatalog",
    "FailedCatalog",
    "ExportProgress",
    "ExportSummary",
    "LearnerFormat",
    "Manifest",
    "SilentProgress",
    "catalog_file_name",
    "csv_cell",
    "export_catalogs",
    "export_learners",
    "spreadsheet_safe",
]
