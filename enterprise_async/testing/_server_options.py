"""How a sandbox shapes its answers where the real servers differ (``ServerOptions``): links'
host, the learner summary's and catalog contents' shapes, which catalog service it answers as,
page sizes. Chosen by ``Sandbox``'s arguments, read by the handlers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from attrs import field, frozen

from ._pages import DEFAULT_PAGE_SIZES

__all__ = ["CatalogService", "CatalogShape", "LearnerSummaryShape", "ServerOptions"]

LearnerSummaryShape = Literal["paginated", "list"]
CatalogShape = Literal["nested", "flat"]
CatalogService = Literal["reference", "enterprise-catalog"]


@frozen
class ServerOptions:
    """How the sandbox shapes its answers where real servers differ."""

    next_host: str | None = None
    """Origin (``http://backend.internal:8000``) that ``next``/``previous`` links name, instead of
    the request's own."""
    learner_summary: LearnerSummaryShape = "paginated"
    """The learner summary as a paginated envelope, or as a plain list."""
    catalog_shape: CatalogShape = "nested"
    """Catalog contents in the nested shape, or the flat (search index) one."""
    catalog_service: CatalogService = "reference"
    """Catalogs as the reference describes them, or as openedx/enterprise-catalog serves them:
    contents in its serializer's shape with learner pathways and videos among them, and lookups by
    key through its by-key view (JSON only: 406 to XML; a run key answers the run's course)."""
    page_sizes: Mapping[str, int] = field(factory=lambda: dict(DEFAULT_PAGE_SIZES))
    """Default page size of each listing (``policies``, ``assignments``, ``subscriptions``,
    ``catalogs``, ``contents``, ``learner_summary``)."""
    largest_pages: Mapping[str, int] = field(factory=dict)
    """Largest page of a listing, below the spec's maximum (a sandbox paging small on purpose)."""
