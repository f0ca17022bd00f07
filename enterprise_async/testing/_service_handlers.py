"""What every service's handlers in the sandbox hold (``ServiceHandlers``): the live data, the
sandbox's options, the services' rules and the paging the listings share; and what each group
gives ``Endpoints``: its handlers by operation name.
"""

from __future__ import annotations

from ._answer_pages import PagedAnswers
from ._call import Handler
from ._server_options import ServerOptions
from ._services import Services
from ._state import SandboxData

__all__ = ["ServiceHandlers"]


class ServiceHandlers:
    """The endpoints of one service over one ``SandboxData``."""

    def __init__(
        self, data: SandboxData, options: ServerOptions, services: Services, pages: PagedAnswers
    ) -> None:
        self.data = data
        self.options = options
        self.services = services
        """The services' rules (``x-sdk-service``) the handlers read: none under the reference."""
        self.pages = pages

    def handlers(self) -> dict[str, Handler]:
        """The group's handlers, by operation name; each reads its path parameters by the short
        names it was written with (``policy``), aliases of the spec's (``policy_uuid``)."""
        raise NotImplementedError
