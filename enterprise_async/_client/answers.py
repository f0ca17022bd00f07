"""Raw answers, and a listing page's answer: the typed error of a status that is no success is
raised at once (``_response.responses.accept``, naming the listing's page); a success is decoded
when it is asked for (``APIResponse.parse``, a listing's page read).

The plain call reads its answer straight into its model (``BaseClient.call``); the answers here
are made only when asked for: ``with_raw_response`` and a listing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from .._decoding import Conversion
from .._decoding.drift import DriftCollector
from .._decoding.spec import Operation
from .._paging.reading import PageRead
from .._response.responses import RawResponse, accept, read_answer
from .raw_response import APIResponse

__all__ = ["answer", "page_decoder"]

ResultT = TypeVar("ResultT")


def answer(
    operation: Operation[ResultT],
    response: RawResponse,
    conversion: Conversion,
    drift: DriftCollector,
    arguments: Mapping[str, Any] | None = None,
    *,
    page: int | None = None,
) -> APIResponse[ResultT]:
    """The raw answer of a call, whose ``parse()`` decodes its result as the plain call does
    (``read_answer``); the typed error of a status that is no success."""
    accept(operation, response, conversion, drift, page=page)
    return APIResponse(response, lambda raw: read_answer(operation, raw, conversion, drift, arguments))


def page_decoder(
    operation: Operation[Any],
    response: RawResponse,
    conversion: Conversion,
    drift: DriftCollector,
    *,
    page: int,
    raw: bool,
) -> PageRead:
    """What decodes a listing's page, in steps, once the pager asks for it (``_paging.reading``).
    A raw pager's carries the page's answer through the walk to the page it gave."""
    if not raw:
        accept(operation, response, conversion, drift, page=page)
        return PageRead(operation, response, conversion, drift)
    return PageRead(
        operation, response, conversion, drift, answer(operation, response, conversion, drift, page=page)
    )
