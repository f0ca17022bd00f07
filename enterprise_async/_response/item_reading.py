"""A listing's page read item by item, for a listing that goes on past the items it cannot read.

A page is decoded whole, as always; only when one of its items breaks a promise of the spec (a
required field left out: the whole page's decode raises, naming the item) and the listing was
asked to go on past such items (``AsyncPager.with_unreadable()``) is the page read again, one item
at a time: each item that fits becomes its model, and each that does not becomes an
``UnreadableItem`` in its place, holding the item as sent and its ``ResponseDecodeError``. Nothing
is dropped: the page holds as many items as the service sent, in its order, so counts, cursors and
resumes number them as they always do. A clean page costs nothing more than before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

from attrs import frozen

from .._decoding import DecodeError, Finding, PathsWanted
from .._decoding.drift import LEFT_OUT
from .._decoding.failure import MissingFieldError
from ..errors import ResponseDecodeError

if TYPE_CHECKING:
    from .._decoding import Conversion
    from .._spec import Operation
    from .responses import RawResponse

__all__ = ["ListingPage", "UnreadableItem", "read_apart"]

ItemT = TypeVar("ItemT")
PageT = TypeVar("PageT")


@frozen(eq=False)
class UnreadableItem:
    """An item of a listing that could not be read as its model, given in its place by a listing
    that goes on past such items (``pager.with_unreadable()``).

    ``raw`` is the item as the service sent it: the JSON object (dicts, lists, strings, numbers) as
    parsed, untouched; from XML, the element as the JSON it stands for, read as the spec's fields
    say (XML has no other form for one item). ``error`` is why it could not be read: a
    ``ResponseDecodeError`` naming the model, the field and its place (``results[17].entitlements[0]:
    Entitlement.price is required and was left out``), whose ``item`` is ``index``. ``page`` is the
    page it came on (numbered from 1 in listing order, at the page size read) and ``index`` its
    place in that page (from 0).
    """

    raw: Any
    error: ResponseDecodeError
    page: int
    index: int

    @property
    def reason(self) -> str:
        """Why it could not be read, in one line."""
        return " ".join(str(self.error).split())

    def __repr__(self) -> str:
        return f"UnreadableItem(page={self.page}, index={self.index}, error={self.reason!r})"


@frozen
class ListingPage(Generic[ItemT, PageT]):
    """A page of a listing that goes on past the items it cannot read: what ``pages()`` of
    ``pager.with_unreadable()`` gives.

    ``items`` are every item of the page, in the service's order, an ``UnreadableItem`` in place of
    each that could not be read; ``envelope`` is the page as decoded (its count, links and other
    fields as sent) holding the readable items only, so its types say what it holds; ``number`` is
    its place in the listing (from 1).
    """

    number: int
    items: list[ItemT | UnreadableItem]
    envelope: PageT

    @property
    def unreadable(self) -> list[UnreadableItem]:
        """The items of the page that could not be read, in order."""
        return [item for item in self.items if isinstance(item, UnreadableItem)]


def read_apart(
    operation: Operation[Any],
    response: RawResponse,
    conversion: Conversion,
    data: Any,
    model: Any,
    page: int,
    findings: list[Finding] | None,
    paths_wanted: PathsWanted | None,
) -> Any:
    """The page ``data`` (JSON-shaped, as an ``Answer`` got it) read one item at a time: the
    envelope as ``model``, its items each as the listing's item type, an ``UnreadableItem`` in
    place of each that does not fit. ``findings`` gets what every item drifted, and a
    ``missing_required`` finding for each unreadable one.

    Raises ``ResponseDecodeError`` as a whole page's decode does when the fault is not in an item
    (the envelope itself breaks a promise)."""
    pagination = operation.pagination
    assert pagination is not None  # only a listing's page is read apart
    name = pagination.items
    sent = data if name is None else data.get(name) if isinstance(data, dict) else None
    if not isinstance(sent, list):
        raise ResponseDecodeError(f"{operation.name}: page {page} has no list of items to read apart")
    redact = response.redactor.data
    items: list[Any] = []
    for index, raw in enumerate(sent):
        place = f"{name or ''}[{index}]"
        mark = len(findings) if findings is not None else 0
        failure: DecodeError | None = None
        try:
            item = conversion.structure(raw, pagination.item_type, findings, paths_wanted, redact)
        except DecodeError as error:
            failure = error.within(place)
        if findings is not None:  # the item's own paths, from the page's top
            findings[mark:] = [_under(place, finding) for finding in findings[mark:]]
        if failure is not None:
            item = _unreadable(operation, response, raw, failure, page, index, findings)
        items.append(item)
    if name is None:
        return items
    envelope = conversion.structure({**data, name: []}, model, findings, paths_wanted, redact)
    setattr(envelope, name, items)
    return envelope


def _unreadable(
    operation: Operation[Any],
    response: RawResponse,
    raw: Any,
    error: DecodeError,
    page: int,
    index: int,
    findings: list[Finding] | None,
) -> UnreadableItem:
    """The ``UnreadableItem`` of item ``index`` of page ``page``, whose decode raised ``error``
    (its path from the page's top); its broken promise counted in ``findings``."""
    if findings is not None and isinstance(error, MissingFieldError):
        value = None if error.null else LEFT_OUT
        findings.append(("missing_required", error.place, error.model, error.field, "required", value))
    reason = response.redactor.text(str(error))
    decode_error = ResponseDecodeError(
        f"{operation.name} page {page}, item {index} ({response.where}): {reason}",
        status=response.status,
        request_id=response.request_id,
        item=index,
    )
    return UnreadableItem(raw, decode_error, page, index)


def _under(place: str, finding: Finding) -> Finding:
    """A finding of one item's decode, its path from the page's top (``results[3].foo``)."""
    kind, path, model, where, declared, value = finding
    joined = f"{place}.{path}" if path and not path.startswith("[") else f"{place}{path}"
    return (kind, joined, model, where, declared, value)
