"""The sandbox's routes, derived from the operation table: one per operation of the spec.

Each operation's path template becomes a matcher on the raw path (a course run key such as
``course-v1:MITx+CS.0.7x+1T2026`` reaches its handler as sent), its ``security`` decides whether a
token is needed, and its handler is the stateful one registered under its name
(``"subscriptions.bulk_revoke"``), or else an answer synthesized from its response schemas.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import unquote

from attrs import evolve, field, frozen

from .._generated import schemas
from .._generated.operations import OPERATIONS
from .._spec import Operation
from ._replies import Reply

__all__ = ["GENERATED_SPEC", "Handler", "Route", "SpecTable", "aliased", "build_routes", "path_pattern"]

Handler = Callable[[Any], Reply]
"""A handler: a routed, authenticated ``Call`` in, a ``Reply`` out (or ``ApiError`` raised)."""

_PARAMETER = re.compile(r"\{([^{}/]+)\}")


@frozen
class SpecTable:
    """What the sandbox serves: the operation table, each operation's success response schemas,
    the components those name, the operations that need no token, and each operation's request
    description (parameters and body as JSON Schema; an operation without one is described from
    its own parameters and body rule)."""

    operations: Mapping[str, Operation[Any]] = field(repr=False)
    responses: Mapping[str, Mapping[int, Any]] = field(factory=dict, repr=False)
    components: Mapping[str, Any] = field(factory=dict, repr=False)
    unauthenticated: frozenset[str] = field(default=frozenset(), repr=False)
    requests: Mapping[str, Mapping[str, Any]] = field(factory=dict, repr=False)
    services: Mapping[str, Mapping[str, Any]] = field(factory=dict, repr=False)
    """The services behind the gateway (``x-sdk-services``)."""
    service: Mapping[str, Mapping[str, Any]] = field(factory=dict, repr=False)
    """Each operation's service and how it answers there (``x-sdk-service``)."""

    def __repr__(self) -> str:
        """Short: the table is the whole spec, and it is the default of ``Sandbox(spec=)``, which
        ``help(Sandbox)`` prints."""
        return f"SpecTable({len(self.operations)} operations)"


GENERATED_SPEC = SpecTable(
    operations=OPERATIONS,
    responses=schemas.RESPONSES,
    components=schemas.COMPONENTS,
    unauthenticated=schemas.UNAUTHENTICATED,
    requests=schemas.REQUESTS,
    services=schemas.SERVICES,
    service=schemas.SERVICE,
)
"""The spec as generated into ``enterprise_async/_generated/``."""


@frozen
class Route:
    """An operation's method and path matcher, its handler, and whether it needs a token."""

    operation: str
    method: str
    pattern: re.Pattern[str]
    names: tuple[str, ...]
    """Path parameter names, in the order of the pattern's groups."""
    handler: Handler
    authenticated: bool = True

    def params(self, match: re.Match[str]) -> dict[str, str]:
        """The path parameters of a matching path, percent-decoded."""
        return {name: unquote(value) for name, value in zip(self.names, match.groups(), strict=True)}


def path_pattern(template: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """A spec path template as a matcher of raw paths, and its parameter names in order.

    Each ``{name}`` matches one path segment; the literal parts match as written.
    """
    names = tuple(_PARAMETER.findall(template))
    literals = _PARAMETER.split(template)[::2]
    regex = "([^/]+)".join(re.escape(literal) for literal in literals)
    return re.compile(f"^{regex}$"), names


def aliased(handler: Handler, **aliases: str) -> Handler:
    """``handler`` reading the spec's path parameter ``aliases[name]`` also as ``name``."""

    def handle(call: Any) -> Reply:
        params = dict(call.params)
        params.update({alias: params[name] for alias, name in aliases.items() if name in params})
        return handler(evolve(call, params=params))

    return handle


def build_routes(
    spec: SpecTable,
    handlers: Mapping[str, Handler],
    fallback: Callable[[Operation[Any]], Handler],
) -> list[Route]:
    """A route for every operation of ``spec``: its registered handler, else ``fallback``'s.

    The most literal templates come first, so ``/items/special`` wins over ``/items/{id}``.
    """
    routes = []
    for name, operation in spec.operations.items():
        pattern, names = path_pattern(operation.path)
        handler = handlers.get(name) or fallback(operation)
        routes.append(
            Route(name, operation.method, pattern, names, handler, name not in spec.unauthenticated)
        )
    return sorted(routes, key=lambda route: -len(_PARAMETER.sub("", spec.operations[route.operation].path)))
