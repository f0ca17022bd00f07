"""Turn an operation and its (validated) arguments into an HTTP request.

Path parameters are percent-encoded into the path; query parameters follow the spec's style
(``explode: false`` arrays as one comma-separated value, booleans as ``true``/``false``); the body
is JSON. Arguments left as None are not sent at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

import orjson
from attrs import define, frozen
from yarl import URL

from .._decoding.enums import OpenEnum
from .._decoding.spec import Operation, Param
from .retry import RetryPolicy
from .timeouts import Timeout
from .validation import validate_arguments

__all__ = ["HTTPRequest", "PreparedRequest", "Query", "call_label", "prepare_request", "query_value"]

Query = tuple[tuple[str, str], ...]

# RFC 3986 pchar: course keys such as ``course-v1:Org+Num+Run`` travel as they are; "/" does not.
_PATH_SAFE = "!$&'()*+,;=:@"


@frozen
class PreparedRequest:
    """Everything needed to send one request of an operation; ``path`` is relative to ``base_url``."""

    operation: Operation[Any]
    path: str
    query: Query = ()
    body: bytes | None = None

    @property
    def method(self) -> str:
        return self.operation.method

    def with_query(self, query: Query) -> PreparedRequest:
        """The same request with another query (used by the pager for later pages)."""
        if query is self.query:
            return self
        return PreparedRequest(self.operation, self.path, query, self.body)


@define
class HTTPRequest:
    """One request as it goes on the wire. ``path`` (without host or query) is what logs and errors show.

    Never changed once built, yet not frozen: it is built for every request, and a frozen class
    sets each of its twelve fields through ``object.__setattr__``, several times the cost.
    """

    method: str
    url: URL
    path: str
    headers: Mapping[str, str]
    body: bytes | None = None
    idempotent: bool = False
    authenticated: bool = True
    retry_statuses: frozenset[int] = frozenset()
    """Statuses after which nothing was done, so a retry is safe whatever the method."""
    timeout: Timeout | None = None
    """Limits for this request alone (a call's ``timeout=``); None keeps the transport's."""
    retry: RetryPolicy | None = None
    """The retry policy of this request alone (a call's ``retry=``); None keeps the transport's."""
    operation: str = ""
    """The operation's name, for traces and log records."""
    page: int | None = None
    """The page number of a listing's page, for traces and log records."""
    request_id: str | None = None
    """The id the request is sent with (also in ``headers``), the same on each of its retries."""
    parent_span: Any = None
    """The OpenTelemetry span its attempts' spans go under, when not the current one (a listing's)."""

    @property
    def label(self) -> str:
        """What the user called, as errors name it: ``catalogs.contents page 10``."""
        return call_label(self.operation, self.page)


def call_label(operation: str, page: int | None = None) -> str:
    """An operation (and the page of a listing), as messages name what the user called:
    ``catalogs.contents page 10``, ``policies.allocate``."""
    return operation if page is None else f"{operation} page {page}"


def prepare_request(operation: Operation[Any], arguments: Mapping[str, Any]) -> PreparedRequest:
    """Validate ``arguments`` and build the request; raises ``ClientValidationError`` before sending."""
    body = validate_arguments(operation, arguments)
    path_values: dict[str, str] = {}
    query: list[tuple[str, str]] = []
    for param in operation.params:  # one pass: every call of every operation goes through here
        if param.location == "path":
            path_values[param.name] = quote(query_value(arguments[param.name]), safe=_PATH_SAFE)
        elif param.location == "query" and (value := arguments.get(param.name)) is not None:
            query.extend(_query_pairs(param, value))
    pagination = operation.pagination
    if query and pagination is not None and pagination.size_param is not None:
        aliases, size_param = pagination.size_aliases, pagination.size_param
        query = [(size_param if name in aliases else name, value) for name, value in query]
    return PreparedRequest(
        operation,
        operation.path.format_map(path_values) if path_values else operation.path,
        tuple(query),
        orjson.dumps(body) if operation.body is not None else None,
    )


def _query_pairs(param: Param, value: Any) -> list[tuple[str, str]]:
    if isinstance(value, (list, tuple)):
        if not param.explode:
            return [(param.wire_name, ",".join(query_value(item) for item in value))]
        return [(param.wire_name, query_value(item)) for item in value]
    return [(param.wire_name, query_value(value))]


def query_value(value: Any) -> str:
    """A scalar as the servers read it in a query or path."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, OpenEnum):
        return str(value.value)
    return str(value)


def merge_query(base: Sequence[tuple[str, str]], overrides: Mapping[str, str]) -> Query:
    """``base`` with the parameters of ``overrides`` replaced (or appended), order kept."""
    merged = [(name, overrides.get(name, value)) for name, value in base]
    present = {name for name, _ in base}
    merged.extend((name, value) for name, value in overrides.items() if name not in present)
    return tuple(merged)
