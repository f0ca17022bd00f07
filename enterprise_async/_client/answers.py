"""What an answer becomes: a result, or the typed error of its status.

A status the operation calls a success becomes its result, decoded when it is asked for
(``APIResponse.parse``), and a lookup by key is checked to have answered the item asked for. Any
other status raises its typed error at once, naming the listing's page. A success the spec does
not document is no error: it goes to the client's drift report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from .._decoding.drift import DriftCollector
from .._decoding.spec import Operation
from .._paging.reading import PageRead
from .._request.retry import parse_retry_after
from .._response.responses import RawResponse, check_identity, read_result, status_error
from .raw_response import APIResponse

__all__ = ["PageAnswers", "accept", "answer", "page_decoder"]

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
    """The answer of a call, whose ``parse()`` decodes its result; the typed error of a status
    that is no success. ``arguments`` given, a lookup by key checks the item it answered."""
    accept(operation, response, drift, page=page)
    if operation.identity is None or arguments is None:
        return APIResponse(response, lambda raw: read_result(operation, raw, drift))

    def checked(raw: RawResponse) -> ResultT:
        result: ResultT = read_result(operation, raw, drift)
        check_identity(operation, raw, result, arguments)
        return result

    return APIResponse(response, checked)


def accept(
    operation: Operation[Any], response: RawResponse, drift: DriftCollector, *, page: int | None = None
) -> None:
    """Raise the typed error of a status that is no success of the operation (naming the
    listing's ``page``); a success the spec does not document goes to the drift report."""
    outcome = operation.outcomes.get(response.status)
    success = outcome.success if outcome is not None else 200 <= response.status < 300
    if not success:
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        raise status_error(operation, response, retry_after=retry_after, page=page)
    if outcome is None:
        documented = (status for status, known in operation.outcomes.items() if known.success)
        request = f"{response.method} {response.path}"
        drift.record_status(operation.name, response.status, documented, request)


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
