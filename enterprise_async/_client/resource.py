"""The base of the generated resource classes, and what they need of the client.

``client.with_raw_response.<resource>`` holds the resource's own methods, made over ``RawCalls``
(a caller whose calls answer with ``APIResponse`` and whose listings are ``RawPager``s), each
typed as what it then returns by ``raw_answer`` or ``raw_pages``: one line per method, with the
method's own signature and docstring.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar, cast

from typing_extensions import ParamSpec

from .._bulk.chunks import BulkResult
from .._decoding import Conversion
from .._paging import AsyncPager
from .._request.options import RequestOptions
from .._spec import Operation
from .raw_response import APIResponse, RawPager

__all__ = ["OperationCaller", "RawCalls", "Resource", "raw_answer", "raw_pages"]

ResultT = TypeVar("ResultT")
PageT = TypeVar("PageT")
P = ParamSpec("P")


class OperationCaller(Protocol):
    """What a resource hands its calls to: the client (``BaseClient`` implements it)."""

    @property
    def conversion(self) -> Conversion:
        """What decodes the client's answers (``BaseClient.conversion``)."""

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


class RawCalls:
    """The client as a resource made for ``with_raw_response`` sees it: ``call`` answers with the
    ``APIResponse`` (``call_raw``) and ``paginate`` gives a ``RawPager`` (``paginate_raw``); the
    rest is the client's own. The resource's methods are typed for the models: ``raw_answer`` and
    ``raw_pages`` type them for what they return over this caller."""

    def __init__(self, client: OperationCaller) -> None:
        self._client = client

    def __repr__(self) -> str:
        return f"RawCalls({self._client!r})"

    @property
    def conversion(self) -> Conversion:
        return self._client.conversion

    async def call(
        self,
        operation: Operation[ResultT],
        arguments: Mapping[str, Any],
        options: RequestOptions | None = None,
    ) -> ResultT:
        return cast("ResultT", await self._client.call_raw(operation, arguments, options))

    async def call_raw(
        self,
        operation: Operation[ResultT],
        arguments: Mapping[str, Any],
        options: RequestOptions | None = None,
    ) -> APIResponse[ResultT]:
        return await self._client.call_raw(operation, arguments, options)

    async def call_in_chunks(
        self,
        operation: Operation[ResultT],
        arguments: Mapping[str, Any],
        options: RequestOptions | None = None,
    ) -> BulkResult[ResultT]:
        return await self._client.call_in_chunks(operation, arguments, options)

    async def read_link(self, link: str) -> bytes | None:
        return await self._client.read_link(link)

    def paginate(
        self, operation: Operation[Any], arguments: Mapping[str, Any], options: RequestOptions | None = None
    ) -> AsyncPager[Any, Any]:
        return cast("AsyncPager[Any, Any]", self._client.paginate_raw(operation, arguments, options))

    def paginate_raw(
        self, operation: Operation[Any], arguments: Mapping[str, Any], options: RequestOptions | None = None
    ) -> RawPager[Any]:
        return self._client.paginate_raw(operation, arguments, options)


def raw_answer(method: Callable[P, Awaitable[ResultT]]) -> Callable[P, Awaitable[APIResponse[ResultT]]]:
    """A method of a resource made over ``RawCalls``, typed as the ``APIResponse`` it answers with."""
    _check_raw(method)
    return cast("Callable[P, Awaitable[APIResponse[ResultT]]]", method)


def raw_pages(method: Callable[P, AsyncPager[Any, PageT]]) -> Callable[P, RawPager[PageT]]:
    """A list method of a resource made over ``RawCalls``, typed as the ``RawPager`` it gives."""
    _check_raw(method)
    return cast("Callable[P, RawPager[PageT]]", method)


def _check_raw(method: Callable[..., Any]) -> None:
    resource = getattr(method, "__self__", None)
    if not isinstance(resource, Resource) or not isinstance(resource._client, RawCalls):
        raise TypeError(f"{method!r} is not a method of a resource made over RawCalls")
