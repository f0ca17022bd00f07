"""The base of the generated resource classes, and what they need from the client."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from ._pagination import AsyncPager
from ._spec import Operation

__all__ = ["OperationRunner", "Resource"]

ResultT = TypeVar("ResultT")


class OperationRunner(Protocol):
    """Runs an operation of the table with a call's arguments (implemented by ``EnterpriseClient``)."""

    async def call(self, operation: Operation[ResultT], arguments: Mapping[str, Any]) -> ResultT: ...

    def paginate(self, operation: Operation[Any], arguments: Mapping[str, Any]) -> AsyncPager[Any, Any]: ...


class Resource:
    """A namespace of the client (``client.policies``...); its methods are generated from the spec."""

    def __init__(self, runner: OperationRunner) -> None:
        self._runner = runner

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    async def _request(self, operation: Operation[ResultT], arguments: Mapping[str, Any]) -> ResultT:
        return await self._runner.call(operation, arguments)

    def _paginate(self, operation: Operation[Any], arguments: Mapping[str, Any]) -> AsyncPager[Any, Any]:
        return self._runner.paginate(operation, arguments)
