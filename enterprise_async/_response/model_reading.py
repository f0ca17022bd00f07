"""An answer's body read into its result: the body decoded (JSON, or DRF XML read as the status's
model says), the model built by the client's ``Conversion``, the result given the fields its
outcome sets; and, where the data does not fit, the error naming the item of a list that broke a
promise of the spec (a required field left out) with the items before it, decoded.

``responses`` decides what an answer is (a success, or the typed error of its status) and checks
that a lookup answered the item asked for; everything that turns its bytes into data and models is
here, so that one call's answer is read in this module from its body to its result.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import orjson

from .._decoding import DecodeError, Finding, PathsWanted, known_fields, type_name
from .._decoding.drift import LEFT_OUT, DriftCollector
from .._decoding.failure import MissingFieldError
from .._decoding.spec import Operation, Outcome
from .._utils.xml import XMLDecodeError, parse_drf_xml
from ..errors import ResponseDecodeError

if TYPE_CHECKING:
    from .._decoding import Conversion
    from .._utils.redaction import Redactor

__all__ = [
    "Answer",
    "decode_body",
    "error_result",
    "format_of",
    "is_xml",
    "model_of",
    "read_as",
    "read_as_model",
    "read_result",
    "result_of",
    "structure_answer",
    "unreadable",
]


class Answer(Protocol):
    """An answer as this module reads it. ``RawResponse`` is the one there is; its module uses this
    one, so this one names what it reads instead of importing it."""

    @property
    def status(self) -> int: ...
    @property
    def method(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def where(self) -> str: ...
    @property
    def body(self) -> bytes: ...
    @property
    def content_type(self) -> str: ...
    @property
    def redactor(self) -> Redactor: ...
    @property
    def request_id(self) -> str | None: ...
    def preview(self) -> str: ...


def format_of(response: Answer) -> str:
    """How the body is read: ``json``, ``xml``, else its content type (``unknown`` for none)."""
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


def read_as(response: Answer, conversion: Conversion, data: Any, model: Any) -> Any:
    """``data`` as ``model``'s fields say it: XML's empty elements, numbers and booleans (see
    ``_decoding.xml_schema``); JSON as it is."""
    if format_of(response) == "xml":
        return conversion.fill_empty_elements(data, model)
    return data


def decode_body(response: Answer) -> Any:
    """The body as JSON-shaped data (None when empty); ``ResponseDecodeError`` when unreadable."""
    body = response.body
    if not body or body.isspace():  # what ``strip()`` would leave empty, without copying a page
        return None
    kind = format_of(response)
    try:
        if kind == "json":
            return orjson.loads(response.body)
        if kind == "xml":
            return parse_drf_xml(response.body)
    except (orjson.JSONDecodeError, XMLDecodeError) as error:
        raise unreadable(response, kind, error) from None
    raise ResponseDecodeError(
        f"{response.where} returned {response.status} with content type "
        f"{kind!r} where JSON or XML was expected",
        status=response.status,
        body=response.preview(),
        request_id=response.request_id,
    )


def is_xml(response: Answer) -> bool:
    """Whether the answer's body is read as XML (non-empty, and XML by its type or its start)."""
    body = response.body
    return bool(body) and not body.isspace() and format_of(response) == "xml"


def unreadable(response: Answer, kind: str, error: ValueError) -> ResponseDecodeError:
    """The error for a body that is not valid ``kind`` (``json``, ``xml``), secrets hidden."""
    reason = response.redactor.text(str(error))
    return ResponseDecodeError(
        f"{response.where} returned {response.status} with a body that is not valid {kind.upper()}: {reason}",
        status=response.status,
        body=response.preview(),
        request_id=response.request_id,
    )


def read_result(
    operation: Operation[Any],
    response: Answer,
    conversion: Conversion,
    drift: DriftCollector | None = None,
) -> Any:
    """The decoded result of a successful response; what it holds that the spec does not describe
    goes to ``drift``."""
    model = model_of(operation, response)
    if is_xml(response):
        try:
            data = conversion.read_drf_xml(response.body, model)
        except XMLDecodeError as error:
            raise unreadable(response, "xml", error) from None
    else:
        data = decode_body(response)
    return result_of(operation, response, conversion, data, drift)


def model_of(operation: Operation[Any], response: Answer) -> Any:
    """The model the answer's status decodes to; None when its body is returned as it is."""
    outcome = operation.outcomes.get(response.status) or _default_success(operation)
    return None if outcome is None else outcome.model


def result_of(
    operation: Operation[Any],
    response: Answer,
    conversion: Conversion,
    data: Any,
    drift: DriftCollector | None = None,
) -> Any:
    """``read_result`` from the body already decoded (``data``, JSON-shaped; from XML, read by the
    status's model: ``read_drf_xml(body, model_of(...))``)."""
    outcome = operation.outcomes.get(response.status) or _default_success(operation)
    if outcome is None or outcome.model is None:
        return data
    if data is None and outcome.empty:
        data = {}  # a status documented without a body: the model with only the outcome's fields
    if drift is None:
        result = structure_answer(operation, response, conversion, data, outcome.model)
    else:
        findings: list[Finding] = []
        try:
            result = structure_answer(
                operation,
                response,
                conversion,
                data,
                outcome.model,
                findings,
                drift.wants_paths(operation.name),
            )
        finally:  # a required field missing raises, and is counted too
            if findings:
                drift.record(operation.name, findings)
    if result is None:
        raise ResponseDecodeError(
            f"{operation.name}: {response.where} returned {response.status} with an "
            f"empty body where {type_name(outcome.model)} was expected",
            status=response.status,
            body=response.preview(),
            request_id=response.request_id,
        )
    for name, value in outcome.fields.items():
        setattr(result, name, value)
    return result


def read_as_model(operation: Operation[Any], response: Answer, conversion: Conversion, model: Any) -> Any:
    """The answer decoded as ``model`` whatever its status documents (a lookup's answer read as what
    it is, the union its identity's ``received`` names, for the error saying it is not the item)."""
    data = read_as(response, conversion, decode_body(response), model)
    return structure_answer(operation, response, conversion, data, model)


def _default_success(operation: Operation[Any]) -> Outcome | None:
    """An undocumented 2xx status decodes like the documented one."""
    return next((outcome for outcome in operation.outcomes.values() if outcome.success), None)


def error_result(outcome: Outcome | None, response: Answer, conversion: Conversion) -> Any:
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
        body = response.redactor.data(read_as(response, conversion, body, outcome.model))
        return conversion.structure(body, outcome.model)
    except DecodeError:
        return None


def structure_answer(
    operation: Operation[Any],
    response: Answer,
    conversion: Conversion,
    data: Any,
    model: Any,
    findings: list[Finding] | None = None,
    paths_wanted: PathsWanted | None = None,
) -> Any:
    try:
        return conversion.structure(data, model, findings, paths_wanted, response.redactor.data)
    except DecodeError as error:
        item: int | None = None
        items: list[Any] = []
        if isinstance(error, MissingFieldError):
            if findings is not None:
                sent = None if error.null else LEFT_OUT
                findings.append(("missing_required", error.place, error.model, error.field, "required", sent))
            item, items = _items_before(conversion, data, model, error.path)
        reason = response.redactor.text(str(error))
        raise ResponseDecodeError(
            f"{operation.name}: the {response.status} body of {response.where} does not fit "
            f"{type_name(model)}: {reason}",
            status=response.status,
            body=response.preview(),
            request_id=response.request_id,
            item=item,
            items=items,
        ) from None


_ITEM_PATH = re.compile(r"([A-Za-z_]\w*)?\[(\d+)\]")


def _items_before(conversion: Conversion, data: Any, model: Any, path: str) -> tuple[int | None, list[Any]]:
    """For an answer whose item ``path`` names (``results[3]...``, ``[3]...`` in a bare list) broke
    a promise of the spec: that item's index, and the items before it, decoded (none when the
    path names no item of a list at the answer's top)."""
    found = _ITEM_PATH.match(path)
    if found is None:
        return None, []
    name, index = found.group(1), int(found.group(2))
    try:
        if name is None and isinstance(data, list):
            return index, list(conversion.structure(data[:index], model))
        if name is not None and isinstance(data, dict) and isinstance(data.get(name), list):
            before = conversion.structure({**data, name: data[name][:index]}, model)
            return index, list(getattr(before, name, ()))
    except DecodeError:  # the answer breaks another promise outside that list: nothing to give
        pass
    return None, []
