"""Every endpoint of the reference: the stateful handlers of each service, and an answer
synthesized from the spec for every other operation.

Handlers are plain functions of a ``Call`` (the request, already routed and authenticated) that
return a ``Reply`` or raise ``ApiError``; the server renders either as JSON or XML. Nothing here
knows about sockets, tokens or faults. Each service's handlers live in their own module
(``_access_handlers``, ``_license_handlers``, ``_catalog_handlers``, ``_summary_handlers``), the
paging they share in ``_answer_pages``; this one routes every operation to its handler.
"""

from __future__ import annotations

from typing import Any

from .._spec import Operation
from ._access_handlers import AccessHandlers
from ._answer_pages import PagedAnswers
from ._call import Call, Handler
from ._catalog_handlers import CatalogHandlers
from ._jobs import EnrollmentJobs
from ._license_handlers import LicenseHandlers
from ._registry import GENERATED_SPEC, Route, SpecTable, build_routes
from ._replies import Reply
from ._request_schemas import described
from ._request_validation import RequestCheck
from ._server_options import ServerOptions
from ._services import Services
from ._state import SandboxData
from ._summary_handlers import LearnerSummaryHandlers
from ._synthesis import Synthesizer

__all__ = ["Endpoints"]


class Endpoints:
    """The API's endpoints over one ``SandboxData``."""

    def __init__(
        self,
        data: SandboxData,
        options: ServerOptions,
        services: Services | None = None,
        jobs: EnrollmentJobs | None = None,
    ) -> None:
        self.data = data
        self.options = options
        self.services = services or Services("reference", {}, {}, data, data.customers[0].uuid)
        """The services' rules (``x-sdk-service``) the handlers read: none under the reference."""
        self.pages = PagedAnswers(options, self.services)
        self._groups = (
            AccessHandlers(data, options, self.services, self.pages),
            LicenseHandlers(data, options, self.services, self.pages, jobs),
            CatalogHandlers(data, options, self.services, self.pages),
            LearnerSummaryHandlers(data, options, self.services, self.pages),
        )

    def routes(self, spec: SpecTable = GENERATED_SPEC) -> list[Route]:
        """A route for every operation of ``spec`` (the token route is the server's own): the
        stateful handler registered under its name, else an answer synthesized from its schemas.
        The handlers page as ``spec`` says (parameters and envelope of each ``x-sdk-pagination``),
        and a documented field their records lack is filled in from the schema, as the service
        would send it (``Synthesizer.complete``)."""
        synthesizer = Synthesizer(spec.components, self.data.seed)
        self.pages.operations = spec.operations
        self.pages.envelopes = {
            name: synthesizer.envelope_fields(spec.responses.get(name, {}), operation.pagination)
            for name, operation in spec.operations.items()
            if operation.pagination is not None
        }

        def synthesized(operation: Operation[Any]) -> Handler:
            responses = spec.responses.get(operation.name, {})
            description = spec.requests.get(operation.name) or described(operation)
            request = RequestCheck(operation, description, spec.components)

            def answer(call: Call) -> Reply:
                request.check(call.params, call.query, call.body, call.content_type)
                return synthesizer.answer(
                    operation,
                    responses,
                    params=call.params,
                    query=call.query,
                    origin=call.origin,
                    path=call.path,
                )

            return answer

        def completing(name: str, handler: Handler) -> Handler:
            rules = self.services.rules(name)  # what the service emits (none under the reference)
            operation = spec.operations.get(name)
            paged = operation is not None and operation.pagination is not None
            # a listing's envelope is its paginator's: the fields its pagination (or the service's
            # envelope rule) names, which the handler writes, and no other
            envelope = rules.get("envelope", () if paged else None)
            complete = synthesizer.completer(
                name, spec.responses.get(name, {}), envelope=envelope, fields=rules.get("fields")
            )

            def answer(call: Call) -> Reply:
                return complete(handler(call), call.params)

            return answer

        handlers = {name: completing(name, handler) for name, handler in self.handlers().items()}
        return build_routes(spec, handlers, synthesized)

    def handlers(self) -> dict[str, Handler]:
        """The stateful handlers, by operation name; each reads its path parameters by the short
        names it was written with (``policy``), aliases of the spec's (``policy_uuid``)."""
        return {name: handler for group in self._groups for name, handler in group.handlers().items()}
