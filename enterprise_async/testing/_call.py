"""A request as the sandbox's handlers read it: routed, authenticated, its body still raw.

One job: the ``Call`` every handler (and every service rule, ``_services``) takes, and the shape of
a handler (``Handler``: a ``Call`` in, a ``Reply`` out or ``ApiError`` raised).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from attrs import frozen
from multidict import MultiMapping

from ._parsing import Body, json_body
from ._replies import Reply

__all__ = ["Call", "Handler"]


@frozen
class Call:
    """A routed, authenticated request, as the handlers read it."""

    params: Mapping[str, str]
    query: MultiMapping[str]
    body: bytes
    content_type: str
    origin: str
    """Scheme and host that links in the answer name."""
    path: str
    """The raw (still percent-encoded) path."""
    accept: str = ""
    """The request's ``Accept`` header."""

    def json(self, *fields: str) -> Body:
        """The JSON body, refusing fields other than ``fields``."""
        return json_body(self.body, self.content_type, allowed=frozenset(fields))


Handler = Callable[[Call], Reply]
