"""Answers as the SDK receives them (``RawResponse``), and what a status makes of one: a result
or a typed error.

A status the operation calls a success decodes to its model (plus SDK fields such as
``partial``), and a lookup by key is checked to have answered the item asked for
(``read_answer``); a success the spec does not document is no error: it goes to the client's
drift report (``accept``). Any other status raises the error class of the status, whose ``body``
holds the decoded error body however the server wrote it (JSON object, list or string, XML, HTML,
nothing) and whose ``result`` holds the decoded result where the operation documents one for that
status. The body is read into its result, bytes to model, by ``model_reading``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from attrs import field, frozen
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from .._decoding.drift import DriftCollector
from .._decoding.enums import OpenEnum
from .._decoding.spec import LimitRefusal, Operation
from .._request.request import call_label
from .._request.retry import parse_retry_after
from .._utils.constants import ERROR_DETAIL_LIMIT
from .._utils.redaction import Redactor, shown_url
from ..errors import (
    APIStatusError,
    ContentMismatchError,
    RateLimitError,
    RequestLimitError,
    ResponseDecodeError,
    status_error_class,
)
from .error_detail import error_detail
from .model_reading import decode_body, error_result, read_as_model, read_result

if TYPE_CHECKING:
    from .._decoding import Conversion

__all__ = [
    "RawResponse",
    "accept",
    "answer_result",
    "check_identity",
    "read_answer",
    "real_request_id",
    "status_error",
]


def real_request_id(value: str | None, placeholders: frozenset[str]) -> str | None:
    """``value`` when it names a request; None for one of the spec's placeholders (lower-cased:
    django-log-request-id's ``none``, ``-``, empty)."""
    if value is None or value.strip().lower() in placeholders:
        return None
    return value.strip()


@frozen
class RawResponse:
    """A response as read off the wire."""

    status: int
    reason: str
    headers: Mapping[str, str]
    body: bytes
    method: str
    path: str
    elapsed: float = 0.0
    """Seconds from the first attempt's start to this answer, backoffs included."""
    retries: int = 0
    """Attempts before the one that got this answer (a 401's token refresh not counted)."""
    request_id_headers: tuple[str, ...] = ()
    """The headers that may name the request (the spec's ``x-sdk-request-id-headers``)."""
    request_id_placeholders: frozenset[str] = frozenset()
    """What those headers hold when they name no request (``x-sdk-request-id-placeholders``)."""
    redactor: Redactor = field(factory=Redactor, eq=False, repr=False)
    """The client's secrets, hidden from everything this answer makes the SDK say."""
    sent_request_id: str | None = None
    """The id the request was sent with (``x-sdk-request-id-header``: X-Request-ID)."""
    url: URL | None = None
    """The URL the request went to (errors show it without user, password or query: ``where``)."""

    @property
    def where(self) -> str:
        """The method and the whole URL of the request, as errors name them
        (``GET https://host/api/enterprise/v2/...``), with no user, password, query or fragment;
        the path alone when the URL is not known."""
        return f"{self.method} {shown_url(self.url) if self.url is not None else self.path}"

    @property
    def request_id(self) -> str | None:
        """The id of the request: the one it was sent with (what the services log), else the id
        the answer gives itself (an answer a middleware made)."""
        if self.sent_request_id is not None:
            return self.redactor.text(self.sent_request_id)
        return self.response_request_id

    @property
    def response_request_id(self) -> str | None:
        """The id the answer gives itself (the gateway's ``x-amzn-RequestId``...), when it names
        one (secrets hidden, should a server echo one there)."""
        for name in self.request_id_headers:  # a placeholder in one header leaves the next its turn
            value = real_request_id(request_id_of(self.headers, (name,)), self.request_id_placeholders)
            if value is not None:
                return self.redactor.text(value)
        return None

    def timed(
        self, elapsed: float, retries: int, sent_request_id: str | None = None, url: URL | None = None
    ) -> RawResponse:
        """This answer with the time it took and the retries made (and the id and URL its request
        was sent with, when it does not know them: a middleware's own answer)."""
        return RawResponse(
            self.status,
            self.reason,
            self.headers,
            self.body,
            self.method,
            self.path,
            elapsed,
            retries,
            self.request_id_headers,
            self.request_id_placeholders,
            self.redactor,
            self.sent_request_id or sent_request_id,
            self.url or url,
        )

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()

    def preview(self) -> str:
        """The start of the body, for an error to show (secrets hidden)."""
        return self.redactor.text(self.body[:ERROR_DETAIL_LIMIT].decode("utf-8", "replace"))

    def shown_body(self) -> Any:
        """The whole body decoded as well as it can be (JSON, XML, else text), secrets hidden: what
        an error carries as ``.body``."""
        try:
            body = decode_body(self)
        except ResponseDecodeError:
            body = self.body.decode("utf-8", "replace")
        return self.redactor.data(body)

    def shown_headers(self) -> Mapping[str, str]:
        """The headers, secrets hidden from their values: what an error carries as ``.headers``."""
        return self.redactor.headers(self.headers)


def accept(
    operation: Operation[Any],
    response: RawResponse,
    conversion: Conversion,
    drift: DriftCollector,
    *,
    page: int | None = None,
) -> None:
    """Raise the typed error of a status that is no success of the operation (naming the
    listing's ``page``); a success the spec does not document goes to the drift report."""
    outcome = operation.outcomes.get(response.status)
    success = outcome.success if outcome is not None else 200 <= response.status < 300
    if not success:
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        raise status_error(operation, response, conversion, retry_after=retry_after, page=page)
    if outcome is None:
        documented = (status for status, known in operation.outcomes.items() if known.success)
        drift.record_status(operation.name, response.status, documented, f"{response.method} {response.path}")


def answer_result(
    operation: Operation[Any],
    response: RawResponse,
    conversion: Conversion,
    drift: DriftCollector,
    arguments: Mapping[str, Any] | None = None,
) -> Any:
    """What a plain call gives: the answer accepted (``accept``: a status that is no success
    raises), then its result read (``read_answer``)."""
    accept(operation, response, conversion, drift)
    return read_answer(operation, response, conversion, drift, arguments)


def read_answer(
    operation: Operation[Any],
    response: RawResponse,
    conversion: Conversion,
    drift: DriftCollector,
    arguments: Mapping[str, Any] | None = None,
) -> Any:
    """The result of an accepted answer, decoded by ``conversion``; ``arguments`` given, a lookup
    by key checks that it is the item asked for (``check_identity``)."""
    result = read_result(operation, response, conversion, drift)
    if arguments is not None and operation.identity is not None:
        check_identity(operation, response, conversion, result, arguments)
    return result


def check_identity(
    operation: Operation[Any],
    response: RawResponse,
    conversion: Conversion,
    result: Any,
    arguments: Mapping[str, Any],
) -> None:
    """Refuse an answer that is not the item asked for (``x-sdk-identity``): a key other than the
    one asked for, or a content type other than the operation's. A key or type the answer leaves
    out cannot be checked and is not held against it; an answer without the key (an empty
    object included) is not the item asked for."""
    identity = operation.identity
    if identity is None:
        return
    asked = str(arguments.get(identity.param, ""))
    key = getattr(result, identity.field, None)
    kind = getattr(result, identity.type_field, None) if identity.type_field else None
    kind = kind.value if isinstance(kind, OpenEnum) else kind
    same_key = key is not None and _same_key(str(key), asked)
    same_type = kind is None or kind in identity.types
    if same_key and same_type:
        return
    received = result
    if identity.received:  # the answer read as what it is, for the error
        received = read_as_model(operation, response, conversion, identity.received)
    expected = {identity.field: asked}
    if identity.type_field and identity.types:
        expected[identity.type_field] = "|".join(identity.types)
    answered = f"{kind or type(received).__name__} {key!r}" if key is not None else f"no {identity.field}"
    raise ContentMismatchError(
        f"{operation.name}: {response.where} asked for "
        f"{expected.get(identity.type_field or '', 'the item')} {asked!r} and the service answered "
        f"{answered}",
        received=received,
        expected=expected,
        status=response.status,
        body=response.preview(),
        request_id=response.request_id,
    )


def _same_key(key: str, asked: str) -> bool:
    if key == asked:
        return True
    try:
        return uuid.UUID(key) == uuid.UUID(asked)
    except ValueError:
        return False


def status_error(
    operation: Operation[Any],
    response: RawResponse,
    conversion: Conversion,
    *,
    retry_after: float | None,
    page: int | None = None,
) -> APIStatusError:
    """The typed error for a response whose status is not a success of the operation (``page``:
    the listing's page it answered, named in the message).

    Its message, ``body`` and ``headers`` hide the client's secrets, whatever the server echoed.
    """
    body = response.shown_body()
    message = response.redactor.text(
        f"{call_label(operation.name, page)}: {response.where} returned {response.status} {response.reason}"
    )
    if detail := error_detail(body):
        message = f"{message}: {response.redactor.text(detail)}"
    error_class = status_error_class(response.status)
    kwargs: dict[str, Any] = {
        "status": response.status,
        "body": body,
        "headers": response.shown_headers(),
        "result": error_result(operation.outcomes.get(response.status), response, conversion),
        "method": response.method,
        "path": response.path,
        "request_id": response.request_id,
        "response_request_id": response.response_request_id,
    }
    if error_class is RateLimitError:
        return RateLimitError(message, retry_after=retry_after, **kwargs)
    if refusal := _limit_refusal(operation, response.status, body):
        return limit_error(message, refusal, kwargs)
    return error_class(message, **kwargs)


def _limit_refusal(operation: Operation[Any], status: int, body: Any) -> LimitRefusal | None:
    """The spec's refusal (``x-sdk-limit-refusal``) this answer is, if any."""
    detail = error_detail(body)
    matching = (refusal for refusal in operation.limit_refusals if refusal.status == status)
    return next((refusal for refusal in matching if refusal.detail == detail), None)


def limit_error(message: str, refusal: LimitRefusal, details: Mapping[str, Any]) -> RequestLimitError:
    """``RequestLimitError`` for an answer over the service's own limit, saying what the limit is."""
    setting = f" ({refusal.setting} by default)" if refusal.setting else ""
    said = f"{message}; the service takes at most {refusal.maximum} {refusal.label} a request{setting}"
    return RequestLimitError(said, limit=refusal.maximum, setting=refusal.setting, **details)


def request_id_of(headers: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    """The gateway's request id from response headers (``names``, case-insensitive), or None."""
    if isinstance(headers, CIMultiDictProxy | CIMultiDict):  # aiohttp's headers: no copy needed
        return next((value for name in names if (value := headers.get(name))), None)
    lowered = {name.lower(): value for name, value in headers.items()}
    for name in names:
        value = lowered.get(name.lower())
        if value:
            return value
    return None
