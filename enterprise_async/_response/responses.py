"""Read answers: decode bodies (JSON or DRF XML), map statuses to results and typed errors.

A status the operation calls a success decodes to its model (plus SDK fields such as
``partial``), and a lookup by key is checked to have answered the item asked for
(``read_answer``); a success the spec does not document is no error: it goes to the client's
drift report (``accept``). Any other status raises the error class of the status, whose ``body``
holds the decoded error body however the server wrote it (JSON object, list or string, XML, HTML,
nothing) and whose ``result`` holds the decoded result where the operation documents one for that
status.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any

import attrs
import orjson
from attrs import field, frozen
from multidict import CIMultiDict, CIMultiDictProxy

from .._decoding import DecodeError, Finding, PathsWanted, known_fields, structure, type_name
from .._decoding.drift import LEFT_OUT, DriftCollector
from .._decoding.enums import OpenEnum
from .._decoding.failure import MissingFieldError
from .._decoding.spec import Identity, LimitRefusal, Operation, Outcome
from .._decoding.xml_reading import read_drf_xml
from .._decoding.xml_schema import fill_empty_elements
from .._request.request import call_label
from .._request.retry import parse_retry_after
from .._utils.constants import ERROR_DETAIL_LIMIT
from .._utils.redaction import Redactor
from .._utils.xml import XMLDecodeError, parse_drf_xml
from ..errors import (
    APIStatusError,
    ContentMismatchError,
    RateLimitError,
    RequestLimitError,
    ResponseDecodeError,
    status_error_class,
)
from .error_detail import error_detail

__all__ = [
    "RawResponse",
    "accept",
    "check_identity",
    "decode_body",
    "is_xml",
    "model_of",
    "read_answer",
    "read_result",
    "real_request_id",
    "result_of",
    "status_error",
    "unreadable",
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

    def timed(self, elapsed: float, retries: int, sent_request_id: str | None = None) -> RawResponse:
        """This answer with the time it took and the retries made (and the id its request was
        sent with, when it does not know it: a middleware's own answer)."""
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


def _format_of(response: RawResponse) -> str:
    kind = response.content_type
    if kind == "application/json" or kind.endswith("+json"):
        return "json"
    if kind in ("application/xml", "text/xml") or kind.endswith("+xml"):
        return "xml"
    head = response.body.lstrip()[:5]
    if not kind and head[:1] in (b"{", b"["):
        return "json"
    if not kind and head.startswith((b"<?xml", b"<root")):
        return "xml"
    return kind or "unknown"


def decode_body(response: RawResponse) -> Any:
    """The body as JSON-shaped data (None when empty); ``ResponseDecodeError`` when unreadable."""
    body = response.body
    if not body or body.isspace():  # what ``strip()`` would leave empty, without copying a page
        return None
    kind = _format_of(response)
    try:
        if kind == "json":
            return orjson.loads(response.body)
        if kind == "xml":
            return parse_drf_xml(response.body)
    except (orjson.JSONDecodeError, XMLDecodeError) as error:
        raise unreadable(response, kind, error) from None
    raise ResponseDecodeError(
        f"{response.method} {response.path} returned {response.status} with content type "
        f"{kind!r} where JSON or XML was expected",
        status=response.status,
        body=response.preview(),
        request_id=response.request_id,
    )


def is_xml(response: RawResponse) -> bool:
    """Whether the answer's body is read as XML (non-empty, and XML by its type or its start)."""
    body = response.body
    return bool(body) and not body.isspace() and _format_of(response) == "xml"


def unreadable(response: RawResponse, kind: str, error: ValueError) -> ResponseDecodeError:
    """The error for a body that is not valid ``kind`` (``json``, ``xml``), secrets hidden."""
    reason = response.redactor.text(str(error))
    return ResponseDecodeError(
        f"{response.method} {response.path} returned {response.status} with a body that is not "
        f"valid {kind.upper()}: {reason}",
        status=response.status,
        body=response.preview(),
        request_id=response.request_id,
    )


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
        drift.record_status(operation.name, response.status, documented, f"{response.method} {response.path}")


def read_answer(
    operation: Operation[Any],
    response: RawResponse,
    drift: DriftCollector,
    arguments: Mapping[str, Any] | None = None,
) -> Any:
    """The result of an accepted answer; ``arguments`` given, a lookup by key checks that it is
    the item asked for (``check_identity``)."""
    result = read_result(operation, response, drift)
    if arguments is not None and operation.identity is not None:
        check_identity(operation, response, result, arguments)
    return result


def read_result(operation: Operation[Any], response: RawResponse, drift: DriftCollector | None = None) -> Any:
    """The decoded result of a successful response; what it holds that the spec does not describe
    goes to ``drift``."""
    model = model_of(operation, response)
    if is_xml(response):
        try:
            data = read_drf_xml(response.body, model)
        except XMLDecodeError as error:
            raise unreadable(response, "xml", error) from None
    else:
        data = decode_body(response)
    return result_of(operation, response, data, drift)


def model_of(operation: Operation[Any], response: RawResponse) -> Any:
    """The model the answer's status decodes to; None when its body is returned as it is."""
    outcome = operation.outcomes.get(response.status) or _default_success(operation)
    return None if outcome is None else outcome.model


def result_of(
    operation: Operation[Any], response: RawResponse, data: Any, drift: DriftCollector | None = None
) -> Any:
    """``read_result`` from the body already decoded (``data``, JSON-shaped; from XML, read by the
    status's model: ``read_drf_xml(body, model_of(...))``)."""
    outcome = operation.outcomes.get(response.status) or _default_success(operation)
    if outcome is None or outcome.model is None:
        return data
    if data is None and outcome.empty:
        data = {}  # a status documented without a body: the model with only the outcome's fields
    if drift is None:
        result = _structure(operation, response, data, outcome.model)
    else:
        findings: list[Finding] = []
        try:
            result = _structure(
                operation, response, data, outcome.model, findings, drift.wants_paths(operation.name)
            )
        finally:  # a required field missing raises, and is counted too
            if findings:
                drift.record(operation.name, findings)
    if result is None:
        raise ResponseDecodeError(
            f"{operation.name}: {response.method} {response.path} returned {response.status} with an "
            f"empty body where {type_name(outcome.model)} was expected",
            status=response.status,
            body=response.preview(),
            request_id=response.request_id,
        )
    for name, value in outcome.fields.items():
        setattr(result, name, value)
    return result


def check_identity(
    operation: Operation[Any], response: RawResponse, result: Any, arguments: Mapping[str, Any]
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
    received = _received(operation, identity, response) if identity.received else result
    expected = {identity.field: asked}
    if identity.type_field and identity.types:
        expected[identity.type_field] = "|".join(identity.types)
    answered = f"{kind or type(received).__name__} {key!r}" if key is not None else f"no {identity.field}"
    raise ContentMismatchError(
        f"{operation.name}: {response.method} {response.path} asked for "
        f"{expected.get(identity.type_field or '', 'the item')} {asked!r} and the service answered "
        f"{answered}",
        received=received,
        expected=expected,
        status=response.status,
        body=response.preview(),
        request_id=response.request_id,
    )


def _read_as(response: RawResponse, data: Any, model: Any) -> Any:
    """``data`` as ``model``'s fields say it: XML's empty elements, numbers and booleans (see
    ``_decoding.xml_schema``); JSON as it is."""
    if _format_of(response) == "xml":
        return fill_empty_elements(data, model)
    return data


def _received(operation: Operation[Any], identity: Identity, response: RawResponse) -> Any:
    """The answer decoded as what it is (the union ``received`` names), for the error."""
    data = _read_as(response, decode_body(response), identity.received)
    return _structure(operation, response, data, identity.received)


def _same_key(key: str, asked: str) -> bool:
    if key == asked:
        return True
    try:
        return uuid.UUID(key) == uuid.UUID(asked)
    except ValueError:
        return False


def _default_success(operation: Operation[Any]) -> Outcome | None:
    """An undocumented 2xx status decodes like the documented one."""
    return next((outcome for outcome in operation.outcomes.values() if outcome.success), None)


def _structure(
    operation: Operation[Any],
    response: RawResponse,
    data: Any,
    model: Any,
    findings: list[Finding] | None = None,
    paths_wanted: PathsWanted | None = None,
) -> Any:
    try:
        return structure(data, model, findings, paths_wanted, response.redactor.data)
    except DecodeError as error:
        item: int | None = None
        items: list[Any] = []
        if isinstance(error, MissingFieldError):
            if findings is not None:
                sent = None if error.null else LEFT_OUT
                findings.append(("missing_required", error.place, error.model, error.field, "required", sent))
            item, items = _items_before(data, model, error.path)
        reason = response.redactor.text(str(error))
        raise ResponseDecodeError(
            f"{operation.name}: the {response.status} body does not fit {type_name(model)}: {reason}",
            status=response.status,
            body=response.preview(),
            request_id=response.request_id,
            item=item,
            items=items,
        ) from None


_ITEM_PATH = re.compile(r"([A-Za-z_]\w*)?\[(\d+)\]")


def _items_before(data: Any, model: Any, path: str) -> tuple[int | None, list[Any]]:
    """For an answer whose item ``path`` names (``results[3]...``, ``[3]...`` in a bare list) broke
    a promise of the spec: that item's index, and the items before it, decoded (none when the
    path names no item of a list at the answer's top)."""
    found = _ITEM_PATH.match(path)
    if found is None:
        return None, []
    name, index = found.group(1), int(found.group(2))
    try:
        if name is None and isinstance(data, list):
            return index, list(structure(data[:index], model))
        if name is not None and isinstance(data, dict) and isinstance(data.get(name), list):
            before = structure({**data, name: data[name][:index]}, model)
            return index, list(getattr(before, name, ()))
    except DecodeError:  # the answer breaks another promise outside that list: nothing to give
        pass
    return None, []


def status_error(
    operation: Operation[Any], response: RawResponse, *, retry_after: float | None, page: int | None = None
) -> APIStatusError:
    """The typed error for a response whose status is not a success of the operation (``page``:
    the listing's page it answered, named in the message).

    Its message, ``body`` and ``headers`` hide the client's secrets, whatever the server echoed.
    """
    body = response.shown_body()
    message = response.redactor.text(
        f"{call_label(operation.name, page)}: {response.method} {response.path} "
        f"returned {response.status} {response.reason}"
    )
    if detail := error_detail(body):
        message = f"{message}: {response.redactor.text(detail)}"
    error_class = status_error_class(response.status)
    kwargs: dict[str, Any] = {
        "status": response.status,
        "body": body,
        "headers": response.shown_headers(),
        "result": _error_result(operation.outcomes.get(response.status), response),
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


def _error_result(outcome: Outcome | None, response: RawResponse) -> Any:
    """The documented result of an error status, when the body carries one: read as a success's
    is (XML's text as the model's fields say), secrets hidden."""
    if outcome is None or outcome.model is None:
        return None
    try:
        body = decode_body(response)
    except ResponseDecodeError:
        return None
    if not isinstance(body, dict):
        return None
    if attrs.has(outcome.model) and known_fields(outcome.model).isdisjoint(body):
        return None
    try:
        return structure(response.redactor.data(_read_as(response, body, outcome.model)), outcome.model)
    except DecodeError:
        return None


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
