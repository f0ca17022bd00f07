"""How the generated commands show their results: the hand-written views of ``_views``, chosen by
the result's model (or a listing's page model, then its item type), and generic views for every
model that has none, so that a new operation's result is readable without new code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import attrs
from attrs import field, frozen
from rich.console import RenderableType
from rich.table import Table

from .._spec import Operation
from ..models import (
    AllocationResult,
    AssignmentPage,
    BulkEnrollmentJob,
    BulkRevokeResult,
    Catalog,
    ContentItem,
    Course,
    CourseRun,
    LearnerSummary,
    LicenseAssignmentResult,
    Program,
    SubscriptionPlan,
    SubsidyAccessPolicy,
)
from ._record_list import Columns, cell, details, table
from ._views import (
    action_view,
    allocation_view,
    assignments_view,
    catalogs_table,
    contents_table,
    course_run_view,
    course_view,
    enrollment_view,
    learner_summary_table,
    license_assignment_view,
    plans_table,
    policies_table,
    program_view,
    revocation_view,
)

__all__ = ["DEFAULT_PRESENTATION", "Presentation", "generic_listing", "generic_result"]

ResultView = Callable[[Any], RenderableType]
ListingView = Callable[[Sequence[Any], Any], RenderableType]
"""A listing's rows and its first page (None when it had no page)."""

NAMING_SUFFIXES: Final = ("uuid", "key", "id", "email", "name", "title", "status", "state")
"""Fields that name a row, shown first by a generic table."""

MAX_GENERIC_COLUMNS: Final = 8
"""Columns of a generic table: enough to recognise a row, few enough to fit a terminal."""


def _is_structured(value: Any) -> bool:
    if attrs.has(type(value)) or isinstance(value, Mapping):
        return True
    return isinstance(value, (list, tuple)) and any(_is_structured(item) for item in value)


def _plain_fields(model_class: type[Any], rows: Sequence[Any]) -> list[str]:
    """The fields of a model that read as one cell (no nested model) in every row, the ones that
    name a row (identifiers, names, states) first."""
    plain = [
        attribute.name
        for attribute in attrs.fields(model_class)
        if not any(_is_structured(getattr(row, attribute.name, None)) for row in rows)
    ]
    return sorted(plain, key=lambda name: not name.endswith(NAMING_SUFFIXES))


def generic_result(title: str, result: Any) -> RenderableType:
    """A result without a view of its own: a model's plain fields, or whatever came back."""
    if isinstance(result, list):
        return generic_listing(title, result)
    if not attrs.has(type(result)):
        return action_view(title, result)
    return details(title, result, _plain_fields(type(result), [result]))


def generic_listing(title: str, rows: Sequence[Any]) -> RenderableType:
    """Rows without a view of their own: a table of their plain fields."""
    models = [row for row in rows if attrs.has(type(row))]
    if not models or len(models) != len(rows):
        return _values(title, rows)
    columns: Columns = [(name, name) for name in _plain_fields(type(models[0]), models)]
    return table(title, columns[:MAX_GENERIC_COLUMNS], rows, caption=f"{len(rows)} items")


def _values(title: str, rows: Sequence[Any]) -> Table:
    view = Table(title=title, show_header=False, title_justify="left", caption=f"{len(rows)} items")
    view.add_column(overflow="fold")
    for row in rows:
        view.add_row(cell(row))
    return view


def _assignments(rows: Sequence[Any], page: Any) -> RenderableType:
    total = getattr(page, "count", None)
    counts = list(getattr(page, "learner_state_counts", None) or ())
    return assignments_view(rows, counts, total if isinstance(total, int) else None)


def _rows_only(view: Callable[[Sequence[Any]], RenderableType]) -> ListingView:
    return lambda rows, _page: view(rows)


@frozen
class Presentation:
    """Views by model, and extra option names that commands have always accepted."""

    results: Mapping[Any, ResultView] = field(factory=dict)
    listings: Mapping[Any, ListingView] = field(factory=dict)
    """By page model first, then by item type."""
    option_names: Mapping[str, Mapping[str, Sequence[str]]] = field(factory=dict)
    """Operation name -> argument -> more click declarations (`" /--inactive"` adds an off switch)."""

    def result_view(self, operation: Operation[Any], result: Any) -> RenderableType:
        """The view of the result's model, else a generic one."""
        view = self.results.get(type(result))
        if view is not None:
            return view(result)
        return generic_result(operation.name.split(".", 1)[1], result)

    def listing_view(self, operation: Operation[Any], rows: Sequence[Any], page: Any) -> RenderableType:
        """The view of the listing's page model or item type, else a generic table."""
        pagination = operation.pagination
        for key in (type(page), pagination.item_type if pagination else None):
            view = self.listings.get(key)
            if view is not None:
                return view(rows, page)
        return generic_listing(operation.name, rows)


DEFAULT_PRESENTATION: Final = Presentation(
    results={
        AllocationResult: allocation_view,
        LicenseAssignmentResult: license_assignment_view,
        BulkRevokeResult: revocation_view,
        BulkEnrollmentJob: enrollment_view,
        Course: course_view,
        CourseRun: course_run_view,
        Program: program_view,
    },
    listings={
        AssignmentPage: _assignments,
        SubsidyAccessPolicy: _rows_only(policies_table),
        SubscriptionPlan: _rows_only(plans_table),
        Catalog: _rows_only(catalogs_table),
        ContentItem: _rows_only(contents_table),
        LearnerSummary: _rows_only(learner_summary_table),
    },
    option_names={"policies.list": {"active": (" /--inactive",)}},
)
"""The views of this SDK's models; the commands of operations use them where the model has one."""
