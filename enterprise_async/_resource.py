"""The base of the generated resource classes: a namespace that holds its client."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._base_client import BaseClient

__all__ = ["Resource"]


class Resource:
    """A namespace of the client (``client.policies``...); its methods are generated from the spec
    and hand each call to the client's ``call``, ``call_raw``, ``paginate`` or ``paginate_raw``."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"
