"""Raw answers: ``client.with_raw_response.<resource>.<method>(...)``.

The call is the same (validation, retries, status mapping: an error status still raises its typed
error, with its request id), but instead of the model it returns an ``APIResponse`` with the
status, the headers, the gateway's request id, the time taken and the retries made; ``parse()``
decodes the model exactly as the plain call would. A list method returns a ``RawPager`` whose
iteration gives one ``APIResponse`` per page.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any, Generic, TypeVar

from .._paging import AsyncPager
from .._paging.cursor import ListingCursor
from .._response.answer import Answer

__all__ = ["APIResponse", "RawPager"]

T = TypeVar("T")
PageT = TypeVar("PageT")


class APIResponse(Generic[T]):
    """One answer of the API with its HTTP details; ``parse()`` gives the model."""

    def __init__(self, answer: Answer, arguments: Mapping[str, object] | None = None) -> None:
        self._answer = answer
        self._raw = answer.response
        self._arguments = arguments
        """The call's, which a lookup's answer is checked against when it is parsed."""
        self._parsed: list[T] = []

    def __repr__(self) -> str:
        raw = self._raw
        return f"<APIResponse {raw.method} {raw.path} {raw.status} request_id={self.request_id}>"

    @property
    def status(self) -> int:
        return self._raw.status

    @property
    def headers(self) -> Mapping[str, str]:
        """The response headers as sent (rate-limit headers included), case-insensitive."""
        return self._raw.headers

    @property
    def request_id(self) -> str | None:
        """The id the request was sent with (``X-Request-ID``), which the services log."""
        return self._raw.request_id

    @property
    def response_request_id(self) -> str | None:
        """The id the answer gave itself (the gateway's ``x-amzn-RequestId``...), when it named one."""
        return self._raw.response_request_id

    @property
    def elapsed(self) -> float:
        """Seconds from the first attempt's start to this answer, backoffs included."""
        return self._raw.elapsed

    @property
    def retries(self) -> int:
        """Attempts made before the one that got this answer."""
        return self._raw.retries

    @property
    def content(self) -> bytes:
        """The body's bytes as received."""
        return self._raw.body

    def text(self) -> str:
        """The body as text (UTF-8; undecodable bytes replaced, never dropped silently from ``content``)."""
        return self._raw.body.decode("utf-8", "replace")

    def parse(self) -> T:
        """The decoded model, the same as the plain call returns; decoded once, then kept."""
        if not self._parsed:
            self._parsed.append(self._answer.result(self._arguments))
        return self._parsed[0]


class RawPager(Generic[PageT]):
    """A listing's pages as raw answers: ``async for response in pager`` gives an
    ``APIResponse[Page]`` per page, in order, fetched as the plain pager fetches them."""

    def __init__(self, pager: AsyncPager[Any, Any]) -> None:
        self._pager = pager

    def __repr__(self) -> str:
        return f"RawPager({self._pager!r})"

    def __aiter__(self) -> AsyncIterator[APIResponse[PageT]]:
        return self._responses()

    @property
    def cursor(self) -> ListingCursor:
        """Where the latest iteration stands, as the plain pager's ``cursor``: after the last page
        given."""
        return self._pager.cursor

    def resume(self, cursor: ListingCursor | str) -> RawPager[PageT]:
        """This listing's raw pages from ``cursor`` on, checked as the plain pager's ``resume``
        checks it (``ListingCursorError`` for a cursor of another listing, before anything is
        sent; ``ListingMovedError`` when its position cannot be found again)."""
        return RawPager(self._pager.resume(cursor))

    async def _responses(self) -> AsyncGenerator[APIResponse[PageT], None]:
        async with aclosing(self._pager.pages_answered()) as pages:
            async for page, answer in pages:
                yield _given(page, answer)

    async def first_page(self) -> APIResponse[PageT]:
        """Page 1's answer alone."""
        return _given(*await self._pager.first_page_answered())


def _given(page: Any, answer: Answer) -> APIResponse[PageT]:
    """A page's answer, whose ``parse()`` is the page as the pager gives it: in its envelope, and
    for a resumed listing's first page without the items given already."""
    given: APIResponse[PageT] = APIResponse(answer)
    given._parsed.append(page)
    return given
