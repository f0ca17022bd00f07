"""Catalog endpoints in the sandbox: the catalog list, a catalog's contents, and a course, course
run or program by its key, as the reference describes them or as enterprise-catalog serves them
(``ServerOptions.catalog_service``, ``catalog_shape``).

One job: read these requests and shape the answers from ``SandboxData.content``, through the
catalog edits (``SandboxData.catalog_edits``) for a catalog that was edited: its record, its
count and its items are then as edited (lookups by key still answer the seeded items).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from ._call import Call, Handler
from ._catalog_edits import Shape
from ._records import CatalogRecord
from ._registry import aliased
from ._replies import ApiError, Reply, not_found
from ._service_handlers import ServiceHandlers

__all__ = ["CatalogHandlers"]


class CatalogHandlers(ServiceHandlers):
    """The catalog endpoints over one ``SandboxData``."""

    def handlers(self) -> dict[str, Handler]:
        self.data.catalog_edits.serve_with(self._shape)
        return {
            "catalogs.list": self.catalogs,
            "catalogs.contents": aliased(self.contents, catalog="catalog_uuid"),
            "catalogs.course": aliased(self.course, catalog="catalog_uuid", key="course_key"),
            "catalogs.course_run": aliased(self.course_run, catalog="catalog_uuid", key="course_run_id"),
            "catalogs.program": aliased(self.program, catalog="catalog_uuid", key="program_id"),
        }

    def catalogs(self, call: Call) -> Reply:
        edits = self.data.catalog_edits
        catalogs = self.services.listed(
            "catalogs.list", [edits.record(record) for record in self.data.catalogs]
        )
        page = self.pages.page(call, "catalogs.list", len(catalogs), "catalogs", "page_size")
        wire = self.services.emitted(
            "catalogs.list", [catalog.wire() for catalog in catalogs[page.start : page.end]]
        )
        return self.pages.paged(call, "catalogs.list", page, wire)

    def contents(self, call: Call) -> Reply:
        catalog = self._catalog(call)
        edits = self.data.catalog_edits
        if edits.edited(catalog):
            catalog = edits.record(catalog)
            page = self.pages.page(call, "catalogs.contents", catalog.item_count, "contents", "page_size")
            edited = edits.items(catalog, range(page.start, page.end), self._shape(catalog))
            if (
                self.options.catalog_service != "enterprise-catalog"
                and self.options.catalog_shape == "nested"
            ):
                return self.pages.paged(call, "catalogs.contents", page, edited)
            head = {
                "uuid": catalog.uuid,
                "title": catalog.title,
                "enterprise_customer": catalog.customer_uuid,
            }
            return self.pages.paged(call, "catalogs.contents", page, edited, head=head)
        page = self.pages.page(call, "catalogs.contents", catalog.item_count, "contents", "page_size")
        content = self.data.content
        if self.options.catalog_service == "enterprise-catalog":
            served = [content.served(catalog, index) for index in range(page.start, page.end)]
            head = {
                "uuid": catalog.uuid,
                "title": catalog.title,
                "enterprise_customer": catalog.customer_uuid,
            }
            return self.pages.paged(call, "catalogs.contents", page, served, head=head)
        items = (content.item(catalog, index) for index in range(page.start, page.end))
        if self.options.catalog_shape == "nested":
            return self.pages.paged(call, "catalogs.contents", page, list(items))
        flat = [
            content.flat(item, content.kind(index))
            for index, item in zip(range(page.start, page.end), items, strict=True)
        ]
        head = {"uuid": catalog.uuid, "title": catalog.title, "enterprise_customer": catalog.customer_uuid}
        return self.pages.paged(call, "catalogs.contents", page, flat, head=head)

    def _shape(self, catalog: CatalogRecord) -> Shape:
        """How the contents serve seeded item ``index`` of ``catalog``: as enterprise-catalog
        serves it, nested, or flat."""
        content = self.data.content
        if self.options.catalog_service == "enterprise-catalog":
            return lambda index: content.served(catalog, index)
        if self.options.catalog_shape == "nested":
            return lambda index: content.item(catalog, index)
        return lambda index: content.flat(content.item(catalog, index), content.kind(index))

    def course(self, call: Call) -> Reply:
        return self._content(call, self.data.content.course, "course")

    def course_run(self, call: Call) -> Reply:
        return self._content(call, self.data.content.course_run, "courserun")

    def program(self, call: Call) -> Reply:
        return self._content(call, self.data.content.program, "program")

    def _content(
        self,
        call: Call,
        find: Callable[[CatalogRecord, str], dict[str, Any] | None],
        kind: Literal["course", "courserun", "program"],
    ) -> Reply:
        catalog = self._catalog(call)
        if self.options.catalog_service == "enterprise-catalog":
            return self._by_key(call, catalog, find, kind)
        item = find(catalog, call.params["key"])
        if item is None:
            noun = "course run" if kind == "courserun" else kind
            raise not_found(f"No {noun} {call.params['key']!r} in catalog {catalog.uuid}.")
        if self.options.catalog_shape == "flat":
            return Reply(self.data.content.flat(item, kind))
        return Reply(item)

    def _by_key(
        self,
        call: Call,
        catalog: CatalogRecord,
        find: Callable[[CatalogRecord, str], dict[str, Any] | None],
        kind: Literal["course", "courserun", "program"],
    ) -> Reply:
        """enterprise-catalog's lookup by key: JSON only, and a run key matches its course too."""
        if "application/json" not in call.accept:
            raise ApiError(406, {"detail": "Could not satisfy the request Accept header."})
        key = call.params["key"]
        course = self.data.content.course_of_run(catalog, key) if kind == "courserun" else None
        item = course or find(catalog, key)
        kind = "course" if course is not None else kind
        if item is None:
            raise not_found("No matching content in any catalog for this customer")
        return Reply(self.data.content.as_served(item, kind))

    def _catalog(self, call: Call) -> CatalogRecord:
        catalog = self.data.catalog(call.params["catalog"].lower())
        if catalog is None:
            raise not_found()
        return catalog
