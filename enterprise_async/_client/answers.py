"""Raw answers, and a listing page's answer: the typed error of a status that is no success is
raised at once (``_response.responses.accept``, naming the listing's page); a success is decoded
when it is asked for (``APIResponse.parse``, a listing's page read).

The plain call reads its answer straight into its model (``BaseClient.call``); the answers here
are made only when asked for: ``with_raw_response`` and a listing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from .._decoding.drift import DriftCollector
from .._decoding.spec import Operation
from .._paging.reading import PageRead
from .._response.responses import RawResponse, accept, read_answer
from .raw_response import APIResponse

__all__ = ["PageAnswers", "answer", "page_decoder"]

ResultT = TypeVar("ResultT")

PageAnswers = dict[int, tuple[Any, APIResponse[Any]]]
"""The answers of a raw pager's pages, by the id of the page decoded (see ``RawPager``)."""


def answer(
    operation: Operation[ResultT],
    response: RawResponse,
    drift: DriftCollector,
    arguments: Mapping[str, Any] | None = None,
    *,
    page: int | None = None,
) -> APIResponse[ResultT]:
    """The raw answer of a call, whose ``parse()`` decodes its result as the plain call does
    (``read_answer``); the typed error of a status that is no success."""
    accept(operation, response, drift, page=page)
    return APIResponse(response, lambda raw: read_answer(operation, raw, drift, arguments))


def page_decoder(
    operation: Operation[Any],
    response: RawResponse,
    drift: DriftCollector,
    *,
    page: int,
    answers: PageAnswers | None,
) -> Callable[[], Any]:
    """What decodes a listing's page once the pager asks for it. A raw pager's (``answers``
    given) keeps the page's answer, found again by the page; a plain pager's keeps nothing."""
    if answers is None:
        accept(operation, response, drift, page=page)
        return PageRead(operation, response, drift)  # decoded in steps: see ``_paging.reading``
    kept = answer(operation, response, drift, page=page)

    def decode() -> Any:
        decoded = kept.parse()
        answers[id(decoded)] = (decoded, kept)  # the page is kept alive, so its id stays its own
        return decoded

    return decode
