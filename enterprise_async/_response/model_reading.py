"""An answer's data read into its model: XML's leaves as the model's fields say, the model decoded by
the client's ``Conversion``, and, where it does not fit, the error naming the item of a list that
broke a promise of the spec (a required field left out) with the items before it, decoded.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

from .._decoding import DecodeError, Finding, PathsWanted, type_name
from .._decoding.drift import LEFT_OUT
from .._decoding.failure import MissingFieldError
from .._decoding.spec import Operation
from ..errors import ResponseDecodeError

if TYPE_CHECKING:
    from .._decoding import Conversion
    from .._utils.redaction import Redactor

__all__ = ["Answer", "format_of", "read_as", "structure_answer"]


class Answer(Protocol):
    """An answer as this module reads it. ``RawResponse`` is the one there is; its module uses this
    one, so this one names what it reads instead of importing it."""

    @property
    def status(self) -> int: ...
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
            f"{operation.name}: the {response.status} body does not fit {type_name(model)}: {reason}",
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
