"""edx-enterprise-data's learner summary (learner progress report) in the sandbox: a customer's
rows, ordered as asked, paged or as a plain list, or every row for the CSV the service streams.

One job: read this request and shape its answer from ``SandboxData.summaries``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._call import Call, Handler
from ._parsing import valid_uuid
from ._registry import aliased
from ._replies import Reply, not_found
from ._service_handlers import ServiceHandlers
from ._summary_data import SummaryRows

__all__ = ["LearnerSummaryHandlers"]


class LearnerSummaryHandlers(ServiceHandlers):
    """The learner summary endpoint over one ``SandboxData``."""

    def handlers(self) -> dict[str, Handler]:
        return {"learner_summary.list": aliased(self.learner_summary, customer="enterprise_uuid")}

    def learner_summary(self, call: Call) -> Reply:
        customer = call.params["customer"].lower()
        if not valid_uuid(customer) or self.data.customer(customer) is None:
            raise not_found()
        rows = self.data.summaries(customer)
        order = _order(rows, call.query.get("ordering") or "last_activity_date")
        operation = "learner_summary.list"
        unpaged = self.options.learner_summary == "list" or self.services.streams(operation, call.accept)
        if unpaged:  # a plain list, or every row for the CSV the service streams
            return Reply(self.services.emitted(operation, [rows[number] for number in order]))
        page = self.pages.page(call, "learner_summary.list", len(rows), "learner_summary", "page_size")
        return self.pages.paged(
            call, "learner_summary.list", page, [rows[number] for number in order[page.start : page.end]]
        )


def _order(rows: Sequence[dict[str, Any]], ordering: str) -> Sequence[int]:
    """The numbers of learner summary rows ordered by one response field (``-field`` descending),
    nulls last (``SummaryRows.ordered``)."""
    name = ordering.strip().lstrip("-")
    if rows and name not in rows[0]:  # an unknown field is ignored, as DRF's OrderingFilter does
        name, ordering = "last_activity_date", "last_activity_date"
    descending = ordering.strip().startswith("-")
    if isinstance(rows, SummaryRows):
        return rows.ordered(name, descending=descending)
    return []  # a customer without rows
