"""The bases of the generated resource classes, and what they need from the client."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from ._options import RequestOptions
from ._pagination import AsyncPager
from ._raw_response import APIResponse, RawPager
from ._spec import Operation

__all__ = ["OperationRunner", "RawResource", "Resource"]

ResultT = TypeVar("ResultT")


class OperationRunner(Protocol):
    """Runs an operation of the table with a call's arguments (implemented by ``EnterpriseClient``)."""

    async def call(
        self,
        operation: Operation[ResultT],
        arguments: Mapping[str, Any],
        options: RequestOptions | None = None,
    ) -> ResultT: ...

    async def call_raw(
        self,
        operation: Operation[ResultT],
        arguments: Mapping[str, Any],
        options: RequestOptions | None = None,
    ) -> APIResponse[ResultT]: ...

    def paginate(
        self, operation: Operation[Any], arguments: Mapping[str, Any], options: RequestOptions | None = None
    ) -> AsyncPager[Any, Any]: ...

    def paginate_raw(
        self, operation: Operation[Any], arguments: Mapping[str, Any], options: RequestOptions | None = None
    ) -> RawPager[Any]: ...


class Resource:
    """A namespace of the client (``client.policies``...); its methods are generated from the spec."""

    def __init__(self, runner: OperationRunner) -> None:
        self._runner = runner

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    async def _request(
        self, operation: Operation[ResultT], arguments: Mapping[str, Any], timeout: Any, extra_headers: Any
    ) -> ResultT:
        return await self._runner.call(operation, arguments, RequestOptions.of(timeout, extra_headers))

    def _paginate(
        self, operation: Operation[Any], arguments: Mapping[str, Any], timeout: Any, extra_headers: Any
    ) -> AsyncPager[Any, Any]:
        return self._runner.paginate(operation, arguments, RequestOptions.of(timeout, extra_headers))


class RawResource(Resource):
    """A namespace of ``client.with_raw_response``: the same operations, answering ``APIResponse``."""

    async def _request_raw(
        self, operation: Operation[ResultT], arguments: Mapping[str, Any], timeout: Any, extra_headers: Any
    ) -> APIResponse[ResultT]:
        return await self._runner.call_raw(operation, arguments, RequestOptions.of(timeout, extra_headers))

    def _paginate_raw(
        self, operation: Operation[Any], arguments: Mapping[str, Any], timeout: Any, extra_headers: Any
    ) -> RawPager[Any]:
        return self._runner.paginate_raw(operation, arguments, RequestOptions.of(timeout, extra_headers))
