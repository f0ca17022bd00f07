"""``Answer``: one call's answer, read to what it makes: a result, or the typed error of its status.

A status the operation calls a success decodes to its model (plus SDK fields such as
``partial``), in one go or in steps (a listing's page: the event loop gets a turn between them),
and a lookup by key is checked to have answered the item asked for. A success the spec does not
document is no error: it goes to the client's drift report. Any other status raises the error
class of the status, whose ``body`` holds the decoded error body however the server wrote it and
whose ``result`` holds the decoded result where the operation documents one for that status.
Where the data does not fit, the error names the item of a list that broke a promise of the spec
(a required field left out), with the items before it, decoded.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
from attrs import frozen

from .._decoding import DecodeError, Finding, PathsWanted, known_fields, type_name
from .._decoding.drift import LEFT_OUT, DriftCollector
from .._decoding.enums import OpenEnum
from .._decoding.failure import MissingFieldError
from .._request.request import call_label
from .._spec import LimitRefusal, Operation, Outcome
from .._utils.xml import Steps, XMLDecodeError
from ..errors import (
    APIStatusError,
    ContentMismatchError,
    RateLimitError,
    RequestLimitError,
    ResponseDecodeError,
    status_error_class,
)
from .error_detail import error_detail
from .item_reading import read_apart
from .responses import RawResponse

if TYPE_CHECKING:
    from .._decoding import Conversion

__all__ = ["Answer"]


@frozen
class Answer:
    """An answer with what reads it: the operation it answers, the client's conversion (which
    decodes it) and drift report (None: what drifts from the spec is not counted)."""

    operation: Operation[Any]
    response: RawResponse
    conversion: Conversion
    drift: DriftCollector | None = None

    def raise_for_status(self, *, page: int | None = None) -> Answer:
        """This answer, when its status is a success of the operation; else raise the typed error
        of its status (naming the listing's ``page``). A success the spec does not document goes
        to the drift report."""
        operation, response = self.operation, self.response
        outcome = operation.outcomes.get(response.status)
        success = outcome.success if outcome is not None else 200 <= response.status < 300
        if not success:
            raise self._status_error(page)
        if outcome is None and self.drift is not None:
            documented = (status for status, known in operation.outcomes.items() if known.success)
            where = f"{response.method} {response.path}"
            self.drift.record_status(operation.name, response.status, documented, where)
        return self

    def result(self, arguments: Mapping[str, Any] | None = None) -> Any:
        """The decoded result of a successful answer; ``arguments`` given, a lookup by key checks
        that it is the item asked for (``x-sdk-identity``)."""
        try:
            next(self._read(stepped=False))  # read in one go: it returns at once
        except StopIteration as done:
            result = done.value
        if arguments is not None and self.operation.identity is not None:
            self._check_identity(result, arguments)
        return result

    def steps(self, apart: int | None = None) -> Steps:
        """``result()`` in steps of a few milliseconds each: the body's parse (XML: a slice of the
        document, or a few of its list items, at a time), then the models. Each ``yield`` is a
        point where the event loop may run other work.

        ``apart``, for a listing that goes on past the items it cannot read, is the number of the
        page this answer is: a page one of whose items breaks a promise of the spec is then read
        item by item, an ``UnreadableItem`` in place of each item that does not fit
        (``item_reading``); a page that fits is read as always."""
        return self._read(stepped=True, apart=apart)

    @property
    def _outcome(self) -> Outcome | None:
        """The outcome of the answer's status; an undocumented 2xx decodes like the documented one."""
        outcomes = self.operation.outcomes
        found = outcomes.get(self.response.status)
        return found or next((outcome for outcome in outcomes.values() if outcome.success), None)

    def _read(self, *, stepped: bool, apart: int | None = None) -> Steps:
        """The result, from the body to the model; in steps when ``stepped`` (``apart``: see ``steps``)."""
        response, outcome = self.response, self._outcome
        model = None if outcome is None else outcome.model
        if response.is_xml:
            xml = self.conversion
            try:
                if stepped:
                    data = yield from xml.read_drf_xml_in_steps(response.body, model)
                else:
                    data = xml.read_drf_xml(response.body, model)
            except XMLDecodeError as error:
                raise response.unreadable("xml", error) from None
        else:
            data = response.data()
        if stepped:
            yield
        return self._result_of(data, outcome, apart)

    def _result_of(self, data: Any, outcome: Outcome | None, apart: int | None = None) -> Any:
        """The result of data decoded from the body (XML read by the status's model); ``apart``:
        see ``steps``."""
        if outcome is None or outcome.model is None:
            return data
        if data is None and outcome.empty:
            data = {}  # a status documented without a body: the model with only the outcome's fields
        drift, name = self.drift, self.operation.name
        findings: list[Finding] | None = None if drift is None else []
        wanted = None if drift is None else drift.wants_paths(name)
        try:
            try:
                result = self._structure(data, outcome.model, findings, wanted)
            except ResponseDecodeError as error:
                if apart is None or error.item is None:
                    raise
                if findings is not None:
                    findings.clear()  # read again, item by item: counted once, from there
                page = (self.operation, self.response, self.conversion, data, outcome.model, apart)
                result = read_apart(*page, findings, wanted)
        finally:  # a required field missing raises, and is counted too
            if findings and drift is not None:
                drift.record(name, findings)
        if result is None:
            response = self.response
            raise ResponseDecodeError(
                f"{name}: {response.where} returned {response.status} with an "
                f"empty body where {type_name(outcome.model)} was expected",
                status=response.status,
                body=response.preview(),
                request_id=response.request_id,
            )
        for field, value in outcome.fields.items():
            setattr(result, field, value)
        return result

    def _structure(
        self,
        data: Any,
        model: Any,
        findings: list[Finding] | None = None,
        paths_wanted: PathsWanted | None = None,
    ) -> Any:
        """``data`` as ``model``; ``ResponseDecodeError`` (secrets hidden) where it does not fit."""
        try:
            return self.conversion.structure(data, model, findings, paths_wanted, self.response.redactor.data)
        except DecodeError as error:
            raise self._unfit(error, data, model, findings) from None

    def _unfit(
        self, error: DecodeError, data: Any, model: Any, findings: list[Finding] | None
    ) -> ResponseDecodeError:
        """The error for data that does not fit ``model``; a required field left out is counted
        among the ``findings``, and the error holds the items before the one that broke it."""
        item: int | None = None
        items: list[Any] = []
        if isinstance(error, MissingFieldError):
            if findings is not None:
                sent = None if error.null else LEFT_OUT
                findings.append(("missing_required", error.place, error.model, error.field, "required", sent))
            item, items = _items_before(self.conversion, data, model, error.path)
        response = self.response
        return ResponseDecodeError(
            f"{self.operation.name}: the {response.status} body of {response.where} does not fit "
            f"{type_name(model)}: {response.redactor.text(str(error))}",
            status=response.status,
            body=response.preview(),
            request_id=response.request_id,
            item=item,
            items=items,
        )

    def _as_model(self, model: Any, data: Any) -> Any:
        """``data`` as ``model``'s fields say it: XML's empty elements, numbers and booleans (see
        ``_decoding.xml_schema``); JSON as it is."""
        if self.response.body_format == "xml":
            return self.conversion.fill_empty_elements(data, model)
        return data

    def _check_identity(self, result: Any, arguments: Mapping[str, Any]) -> None:
        """Refuse an answer that is not the item asked for: a key other than the one asked for,
        or a content type other than the operation's. A key or type the answer leaves out cannot
        be checked and is not held against it; an answer without the key (an empty object
        included) is not the item asked for."""
        operation, response = self.operation, self.response
        identity = operation.identity
        assert identity is not None
        asked = str(arguments.get(identity.param, ""))
        key = getattr(result, identity.field, None)
        kind = getattr(result, identity.type_field, None) if identity.type_field else None
        kind = kind.value if isinstance(kind, OpenEnum) else kind
        if key is not None and _same_key(str(key), asked) and (kind is None or kind in identity.types):
            return
        received = result
        if identity.received:  # the answer read as what it is, for the error
            received = self._structure(self._as_model(identity.received, response.data()), identity.received)
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

    def _status_error(self, page: int | None) -> APIStatusError:
        """The typed error for a status that is no success of the operation (``page``: the listing's
        page it answered, named in the message). Its message, ``body`` and ``headers`` hide the
        client's secrets, whatever the server echoed."""
        operation, response = self.operation, self.response
        body = response.shown_body()
        message = response.redactor.text(
            f"{call_label(operation.name, page)}: {response.where} "
            f"returned {response.status} {response.reason}"
        )
        if detail := error_detail(body):
            message = f"{message}: {response.redactor.text(detail)}"
        error_class = status_error_class(response.status)
        details: dict[str, Any] = {
            "status": response.status,
            "body": body,
            "headers": response.shown_headers(),
            "result": self._error_result(operation.outcomes.get(response.status)),
            "method": response.method,
            "path": response.path,
            "request_id": response.request_id,
            "response_request_id": response.response_request_id,
        }
        if error_class is RateLimitError:
            retry_after = response.retry_after
            return RateLimitError(message, retry_after=retry_after, **details)
        if refusal := _limit_refusal(operation, response.status, body):
            return _limit_error(message, refusal, details)
        return error_class(message, **details)

    def _error_result(self, outcome: Outcome | None) -> Any:
        """The documented result of an error status, when the body carries one: read as a
        success's is (XML's text as the model's fields say), secrets hidden."""
        if outcome is None or outcome.model is None:
            return None
        try:
            body = self.response.data()
        except ResponseDecodeError:
            return None
        if not isinstance(body, dict):
            return None
        if attrs.has(outcome.model) and known_fields(outcome.model).isdisjoint(body):
            return None
        try:
            body = self.response.redactor.data(self._as_model(outcome.model, body))
            return self.conversion.structure(body, outcome.model)
        except DecodeError:
            return None


def _same_key(key: str, asked: str) -> bool:
    if key == asked:
        return True
    try:
        return uuid.UUID(key) == uuid.UUID(asked)
    except ValueError:
        return False


def _limit_refusal(operation: Operation[Any], status: int, body: Any) -> LimitRefusal | None:
    """The spec's refusal (``x-sdk-limit-refusal``) this answer is, if any."""
    detail = error_detail(body)
    matching = (refusal for refusal in operation.limit_refusals if refusal.status == status)
    return next((refusal for refusal in matching if refusal.detail == detail), None)


def _limit_error(message: str, refusal: LimitRefusal, details: Mapping[str, Any]) -> RequestLimitError:
    """``RequestLimitError`` for an answer over the service's own limit, saying what the limit is."""
    setting = f" ({refusal.setting} by default)" if refusal.setting else ""
    said = f"{message}; the service takes at most {refusal.maximum} {refusal.label} a request{setting}"
    return RequestLimitError(said, limit=refusal.maximum, setting=refusal.setting, **details)


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
