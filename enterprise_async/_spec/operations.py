"""The vocabulary of the generated tables: what the generator writes down about the spec.

`enterprise_async/_generated/operations.py` and `variants.py` instantiate these classes from
`spec/`; the runtime reads them to validate arguments, build requests, map statuses, paginate and
pick union variants. Nothing here knows a particular endpoint or model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, Literal, TypeVar

from attrs import field, frozen

__all__ = [
    "ApiSpec",
    "AtLeastOneOf",
    "Check",
    "Chunking",
    "Identity",
    "JobResults",
    "LimitRefusal",
    "MaxCombinedItems",
    "MaxProductItems",
    "NamedValue",
    "NeverTogether",
    "Operation",
    "Outcome",
    "Pagination",
    "Param",
    "Rule",
    "VariantRule",
]

ResultT = TypeVar("ResultT")

RuleType = Literal["string", "integer", "number", "boolean", "array", "object", "any"]
Location = Literal["path", "query"]


@frozen
class NeverTogether:
    """At most one of ``fields`` may be given (``not: {required: [...]}`` in the spec)."""

    fields: tuple[str, ...]


@frozen
class AtLeastOneOf:
    """One of ``fields`` must be given (``anyOf`` of ``required`` in the spec)."""

    fields: tuple[str, ...]


@frozen
class MaxCombinedItems:
    """The arrays ``fields`` hold at most ``maximum`` items together (``x-sdk-max-combined-items``)."""

    fields: tuple[str, ...]
    maximum: int
    label: str = ""


@frozen
class MaxProductItems:
    """The lengths of the arrays ``fields`` multiplied stay within ``maximum``
    (``x-sdk-max-product-items``: learners times course keys in a bulk enrollment)."""

    fields: tuple[str, ...]
    maximum: int
    label: str = ""


Check = NeverTogether | AtLeastOneOf | MaxCombinedItems | MaxProductItems


@frozen
class NamedValue:
    """How an object of one field is written on the wire (``x-sdk-wire`` on its schema).

    The public form ``{"user_email": "al"}`` travels as ``{name_field: "user_email", value_field: "al"}``;
    the wire form is accepted from callers too and read back to the public form before checking.
    """

    name_field: str
    value_field: str


@frozen
class Rule:
    """What a value must be: the part of a JSON Schema the SDK checks before sending.

    ``kind`` is the schema's ``type``.
    ``enum`` accepts members of an open enum as well as plain strings; ``choices``, when given, are
    the only values a request may carry (a closed request enum: the spec's ``enum``, or a ``$ref`` to
    one, where the service accepts nothing else); ``model`` is an attrs class accepted in place of a
    mapping for an object.
    """

    kind: RuleType = "any"
    format: str | None = None
    nullable: bool = False
    enum: type[Any] | None = None
    choices: tuple[str, ...] = ()
    const: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    pattern: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    items: Rule | None = None
    properties: Mapping[str, Rule] = field(factory=dict)
    required: frozenset[str] = frozenset()
    closed: bool = False
    model: type[Any] | None = None
    checks: tuple[Check, ...] = ()
    wire: NamedValue | None = None


@frozen
class Param:
    """A path or query parameter. ``explode=False`` sends an array as one comma-separated value.

    ``name`` is the method's argument; ``wire`` the parameter's name on the wire when the two
    differ (``x-sdk-argument``: ``job_id`` sent as ``bulk_enrollment_job_uuid``)."""

    name: str
    location: Location
    rule: Rule
    required: bool = False
    explode: bool = True
    wire: str | None = None

    @property
    def wire_name(self) -> str:
        """The name the request carries."""
        return self.wire or self.name


@frozen
class Outcome:
    """What a documented status means.

    A 2xx outcome returns ``model`` (None when the body is undocumented), with ``fields`` set on the
    result (``partial`` for bulk revoke). A non-2xx outcome raises the status's error, carrying the
    body decoded as ``model`` in ``.result`` when it fits. ``empty`` marks a status answered with
    no body whose result is ``model`` built with nothing but ``fields`` (``x-sdk-empty-result``: a
    bulk revoke's 204).
    """

    status: int
    model: Any = None
    fields: Mapping[str, Any] = field(factory=dict)
    empty: bool = False

    @property
    def success(self) -> bool:
        return 200 <= self.status < 300


@frozen
class Pagination:
    """How a list operation pages (``x-sdk-pagination`` in the spec): the envelope class, which of
    its fields hold the items, the next link and the counts, and which query parameters number the
    pages (``page_param`` or ``offset_param``, driven by the pager) and set their size.

    ``items`` is None when the body is a bare list (``page_model`` is then ``list``);
    ``next_field`` is None when the envelope carries no link to the next page.
    ``past_last_status`` and ``past_last_detail`` are the answer the service gives to a page number
    past the last page (``x-sdk-past-last-page``; Django REST framework's 404 "Invalid page."): only
    that answer ends a listing early; any other failure of a page makes it incomplete
    (``past_last_detail`` None: any body of that status; ``past_last_status`` None: no answer).

    ``default_size`` and ``max_size`` are what the service applies to ``size_param`` (the
    parameter's ``default`` and ``maximum``); ``bulk_size`` is the page size ``to_list()`` and
    exports ask for when the call sets none (``bulk_size`` of ``x-sdk-pagination``, else
    ``max_size``). ``size_aliases`` are other names a caller may give the page size by (the
    reference's ``limit``), sent as ``size_param``.
    """

    page_model: type[Any]
    item_type: Any
    items: str | None = "results"
    next_field: str | None = "next"
    count_field: str | None = "count"
    pages_field: str | None = None
    size_field: str | None = None
    page_param: str | None = "page"
    offset_param: str | None = None
    size_param: str | None = None
    past_last_status: int | None = 404
    past_last_detail: str | None = "Invalid page."
    default_size: int | None = None
    max_size: int | None = None
    bulk_size: int | None = None
    size_aliases: tuple[str, ...] = ()
    identity: str | None = None
    """The item field that names an item (``x-sdk-identity-field`` of the item schema): a cursor
    records the last item given by it, and a resume looks for that item in the refetched page."""
    identity_fallbacks: tuple[str, ...] = ()
    """Templates (``"{content_type}:{key}"``) naming an item that lacks ``identity``: the first
    whose every field the item has."""
    identity_type_field: str | None = None
    """The union's discriminator: a template reads it, where the item names none, from the
    item's class (``identity_types``)."""
    identity_types: tuple[tuple[str, str], ...] = ()
    """``(class name, discriminator value)`` of each variant of the item union."""
    change_identity: tuple[str, ...] = ()
    """Templates naming an item in a change feed (``x-sdk-changes`` of the item schema): the first
    whose every field the item has. Unlike ``identity``, no two items of one listing share it."""
    not_content: tuple[str, ...] = ()
    """Top-level fields of an item that are no part of its content (``x-sdk-changes``): a change
    feed does not call an item updated when only they moved."""


@frozen
class Chunking:
    """How a bulk operation is cut into requests the service accepts (``x-sdk-chunks``).

    ``field`` is the array cut into chunks; ``aligned`` arrays are cut in step with it (their n-th
    item belongs to its n-th: a license assignment's ``user_sfids``). Without ``across``, a chunk
    holds at most ``size`` items of ``field``. With ``across`` (an array whose length multiplies
    with ``field``'s: a bulk enrollment's course keys), ``size`` bounds the product instead.
    ``concurrent`` says whether chunks may be in flight together: False where the service holds a
    lock for the whole request (a plan's, a policy's), so a second chunk would only find it taken.
    """

    field: str
    size: int
    aligned: tuple[str, ...] = ()
    across: str | None = None
    concurrent: bool = False


@frozen
class JobResults:
    """How the results of a job are read (``x-sdk-job-results`` on its status operation): the status
    is asked for until its ``link`` field holds a link, and the file behind the link (a CSV with a
    header row) is read into ``row_model``s, each column named by ``columns`` (header, field).
    ``link_lifetime`` is the seconds a link lives at the service (a presigned URL)."""

    method: str
    link: str
    row_model: type[Any]
    columns: tuple[tuple[str, str], ...]
    link_lifetime: float | None = None


@frozen
class LimitRefusal:
    """The service's answer to a request over its own limit (``x-sdk-limit-refusal`` on a
    response): that ``status`` with that ``detail`` raises ``RequestLimitError``, naming the
    ``maximum`` of ``label`` a request and the service's ``setting`` for it."""

    status: int
    detail: str
    maximum: int
    label: str
    setting: str | None = None


@frozen
class Identity:
    """What the answer of a lookup by key must be (``x-sdk-identity``): its ``field`` equals the
    path parameter ``param``, and its ``type_field``, when the answer has one, is one of ``types``.
    A service that answers another item (enterprise-catalog answers a run key with the run's
    course) fails the check; the answer is then decoded as ``received`` for the error."""

    param: str
    field: str
    type_field: str | None = None
    types: tuple[str, ...] = ()
    received: Any = None


@frozen
class Operation(Generic[ResultT]):
    """One endpoint: its name in the client (``policies.allocate``), request shape and outcomes."""

    name: str
    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
    path: str
    params: tuple[Param, ...] = ()
    body: Rule | None = None
    outcomes: Mapping[int, Outcome] = field(factory=dict)
    pagination: Pagination | None = None
    retry_statuses: frozenset[int] = frozenset()
    """Statuses meaning "nothing was done, try later": retried whatever the method
    (``x-sdk-retry-statuses`` of the spec, plus ``x-sdk-retry`` on a response of the operation)."""
    identity: Identity | None = None
    json_fallback_statuses: frozenset[int] = frozenset()
    """Statuses meaning "not in this format": the request is made once more asking for JSON
    (``x-sdk-json-fallback`` on a response: a view that renders JSON only answers XML with 406)."""
    summary: str = ""
    description: str = ""
    descriptions: Mapping[str, str] = field(factory=dict)
    """The spec's description of each parameter and body field, by argument name (help texts)."""
    chunking: Chunking | None = None
    """How the call is cut into requests by its ``..._in_chunks`` method (``x-sdk-chunks``)."""
    job_results: JobResults | None = None
    """How the results of the job this operation reports on are read (``x-sdk-job-results``)."""
    limit_refusals: tuple[LimitRefusal, ...] = ()
    """The service's answers to a request over its own limit (``x-sdk-limit-refusal``)."""

    @property
    def idempotent(self) -> bool:
        """Whether a retry can never repeat a side effect."""
        return self.method == "GET"


@frozen
class VariantRule:
    """How to choose among the classes of a union: the ``discriminator`` property and its
    ``mapping`` when the server sends it, else the first variant owning one of its ``markers``
    fields (``x-sdk-variants``).

    ``fallback`` (``x-sdk-fallback-variant``) is the class of a value whose discriminator names no
    variant, or that has none and no marker field: a generic class that keeps every field, so a
    value never decodes into a class it does not belong to. A discriminator value that names no
    variant is reported as drift, with the class chosen, under the union's ``name``.
    """

    discriminator: str | None
    mapping: Mapping[str, type[Any]]
    markers: tuple[tuple[type[Any], frozenset[str]], ...]
    fallback: type[Any] | None = None
    name: str = ""
    """The union's name in the spec (``ContentItem``), as the drift report shows it."""


@frozen
class ApiSpec:
    """The whole spec as the runtime reads it: the generator writes one (``SPEC``), and the client
    is given it. The runtime knows no operation, status list or header name of its own.
    """

    operations: Mapping[str, Operation[Any]]
    """Every operation by its name in the client (``policies.allocate``)."""
    retry_statuses: frozenset[int] = frozenset()
    """Statuses every request retries, whatever its method, and that pause a rate-limited client
    (``x-sdk-retry-statuses``: 429, "nothing was done, try later")."""
    request_id_headers: tuple[str, ...] = ()
    """Response headers naming a request, in order of preference (``x-sdk-request-id-headers``)."""
    request_id_placeholders: frozenset[str] = frozenset()
    """What such a header holds when it names no request, lower-cased
    (``x-sdk-request-id-placeholders``)."""
    request_id_header: str | None = None
    """The header each request sends its own id in (``x-sdk-request-id-header``: X-Request-ID);
    None sends none."""
