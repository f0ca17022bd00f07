"""Bulk exports: every catalog's contents as JSON Lines, the learner summary as CSV or JSON Lines.

The engine behind ``enterprise-async catalogs export`` and ``learners export``, for use without the
command line too. A catalog export is resumable: each complete catalog is recorded in the output
directory's manifest (``Manifest``), and files are written atomically (``AtomicFile``).
"""

from ._atomic_file import PART_SUFFIX, AtomicFile
from ._catalogs import (
    CatalogOutcome,
    ExportProgress,
    ExportSummary,
    SilentProgress,
    catalog_file_name,
    export_catalogs,
)
from ._learners import LEARNER_COLUMNS, LearnerFormat, csv_cell, export_learners, spreadsheet_safe
from ._manifest import MANIFEST_NAME, CompletedCatalog, FailedCatalog, Manifest

__all__ = [
    "LEARNER_COLUMNS",
    "MANIFEST_NAME",
    "PART_SUFFIX",
    "AtomicFile",
    "CatalogOutcome",
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
