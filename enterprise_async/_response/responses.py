"""``RawResponse``: an answer as the SDK receives it, its body read as JSON-shaped data (JSON, or
Django REST framework's XML), the request it names and the wait it asks for (``retry_after``).

What the answer makes, a result or a typed error, is ``answer``'s to say.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping

import orjson
from attrs import field, frozen
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from .._utils.constants import ERROR_DETAIL_LIMIT
from .._utils.json_types import JSONValue
from .._utils.redaction import Redactor, shown_url
from .._utils.xml import XMLDecodeError, parse_drf_xml
from ..errors import ResponseDecodeError

__all__ = ["RawResponse", "real_request_id", "request_id_of"]


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
    def retry_after(self) -> float | None:
        """Seconds the answer asks to wait (``Retry-After``: a number of seconds or an HTTP date)."""
        value = self.headers.get("Retry-After")
        if not value:
            return None
        value = value.strip()
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            moment = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, moment.timestamp() - time.time())

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()

    @property
    def body_format(self) -> str:
        """How the body is read: ``json``, ``xml``, else its content type (``unknown`` for none)."""
        kind = self.content_type
        if kind == "application/json" or kind.endswith("+json"):
            return "json"
        if kind in ("application/xml", "text/xml") or kind.endswith("+xml"):
            return "xml"
        head = self.body.lstrip()[:5]
        if not kind and head[:1] in (b"{", b"["):
            return "json"
        if not kind and head.startswith((b"<?xml", b"<root")):
            return "xml"
        return kind or "unknown"

    @property
    def is_xml(self) -> bool:
        """Whether the body is read as XML (non-empty, and XML by its type or its start)."""
        body = self.body
        return bool(body) and not body.isspace() and self.body_format == "xml"

    def data(self) -> JSONValue:
        """The body as JSON-shaped data (None when empty); ``ResponseDecodeError`` when unreadable."""
        body = self.body
        if not body or body.isspace():  # what ``strip()`` would leave empty, without copying a page
            return None
        kind = self.body_format
        try:
            decoded: JSONValue
            if kind == "json":
                decoded = orjson.loads(body)
                return decoded
            if kind == "xml":
                decoded = parse_drf_xml(body)
                return decoded
        except (orjson.JSONDecodeError, XMLDecodeError) as error:
            raise self.unreadable(kind, error) from None
        raise ResponseDecodeError(
            f"{self.where} returned {self.status} with content type {kind!r} where JSON or XML was expected",
            status=self.status,
            body=self.preview(),
            request_id=self.request_id,
        )

    def unreadable(self, kind: str, error: ValueError) -> ResponseDecodeError:
        """The error for a body that is not valid ``kind`` (``json``, ``xml``), secrets hidden."""
        return ResponseDecodeError(
            f"{self.where} returned {self.status} with a body that is not valid {kind.upper()}: "
            f"{self.redactor.text(str(error))}",
            status=self.status,
            body=self.preview(),
            request_id=self.request_id,
        )

    def preview(self) -> str:
        """The start of the body, for an error to show (secrets hidden)."""
        return self.redactor.text(self.body[:ERROR_DETAIL_LIMIT].decode("utf-8", "replace"))

    def shown_body(self) -> JSONValue:
        """The whole body decoded as well as it can be (JSON, XML, else text), secrets hidden: what
        an error carries as ``.body``."""
        try:
            body = self.data()
        except ResponseDecodeError:
            body = self.body.decode("utf-8", "replace")
        shown: JSONValue = self.redactor.data(body)
        return shown

    def shown_headers(self) -> Mapping[str, str]:
        """The headers, secrets hidden from their values: what an error carries as ``.headers``."""
        return self.redactor.headers(self.headers)


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
