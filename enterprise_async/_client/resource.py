"""The base of the generated resource classes, and what they need of the client."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from .._bulk.chunks import BulkResult
from .._decoding.spec import Operation
from .._paging import AsyncPager
from .._request.options import RequestOptions
from .raw_response import APIResponse, RawPager

__all__ = ["OperationCaller", "Resource"]

ResultT = TypeVar("ResultT")


class OperationCaller(Protocol):
    """What a resource hands its calls to: the client (``BaseClient`` implements it)."""

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

    async def call_in_chunks(
        self,
        operation: Operation[ResultT],
        arguments: Mapping[str, Any],
        options: RequestOptions | None = None,
    ) -> BulkResult[ResultT]: ...

    async def read_link(self, link: str) -> bytes | None:
        """The body behind a presigned link, read with no token; None when the link expired."""
        ...

    def paginate(
        self, operation: Operation[Any], arguments: Mapping[str, Any], options: RequestOptions | None = None
    ) -> AsyncPager[Any, Any]: ...

    def paginate_raw(
        self, operation: Operation[Any], arguments: Mapping[str, Any], options: RequestOptions | None = None
    ) -> RawPager[Any]: ...


class Resource:
    """A namespace of the client (``client.policies``...); its methods are generated from the spec
    and hand each call, with its options, to the client."""

    def __init__(self, client: OperationCaller) -> None:
        self._client = client

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"
