"""``BaseClient``: the hand-written runtime every generated client stands on.

It is given the spec (an ``ApiSpec``: the operation table, the client-wide retry statuses, the
request-id headers) and does everything once: it validates a call's arguments and builds the
request, sends it through its transport, maps the status to a result or a typed error, and pages.
It knows no endpoint, model or resource of its own: the generated ``EnterpriseClient`` subclasses
it, gives it ``SPEC`` and holds the resource namespaces (``client.policies``...), whose methods call
``call`` and ``paginate`` here.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import logging
import os
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar, overload
from urllib.parse import quote, urlencode

import aiohttp
import attrs
from typing_extensions import Self
from yarl import URL

from ._auth import ClientCredentials, InMemoryTokenCache, Secret, TokenCache
from ._bulk import BulkResult, send_in_chunks
from ._concurrency import ConcurrencyLimit
from ._constants import (
    AUTO_CONCURRENCY_BOUNDS,
    DEFAULT_MAX_CONCURRENCY,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    USER_AGENT,
)
from ._drift import DriftCollector, DriftReport
from ._extras import with_extra_body, with_extra_query
from ._job_results import read_presigned
from ._middleware import Middleware, check_middleware
from ._options import ClientOptions, Concurrency, RequestOptions, ResponseFormat
from ._paging import AsyncPager
from ._paging.reading import PageRead
from ._proxy import check_proxy
from ._rate_limit import InMemoryRateStore, RateBudget, RateStore, budget_key, parse_rate_limit
from ._raw_response import APIResponse, RawPager
from ._redaction import Redactor, redact_url
from ._request import HTTPRequest, PreparedRequest, Query, prepare_request
from ._responses import RawResponse, check_identity, read_result, status_error
from ._retry import RetryPolicy
from ._spec import ApiSpec, Operation
from ._timeouts import Timeout
from ._transport import RequestStats, Transport, parse_retry_after
from ._undocumented import prepare_undocumented
from .errors import ClientStateError, ClientValidationError

__all__ = ["BaseClient", "BaseClientWithRawResponse", "check_base_url"]

ResultT = TypeVar("ResultT")

logger = logging.getLogger("enterprise_async")

_ACCEPT = {"json": "application/json", "xml": "application/xml"}
URLS_KEPT = 256
"""Request URLs kept for reuse (``_url``)."""
_ENVIRONMENT = {
    "client_id": "ENTERPRISE_CLIENT_ID",
    "client_secret": "ENTERPRISE_CLIENT_SECRET",
    "base_url": "ENTERPRISE_BASE_URL",
    "auth_url": "ENTERPRISE_AUTH_URL",
}


class BaseClient:
    """Asynchronous client of the enterprise learning platform's API.

    Use it as ``async with EnterpriseClient(...) as client:``; the resource namespaces
    (``client.policies``, ``client.assignments``, ``client.subscriptions``, ``client.enrollments``,
    ``client.catalogs``, ``client.learner_summary``) hold the operations.

    Args:
        client_id: The client identifier issued to the customer account.
        client_secret: Its secret. It only ever goes to ``auth_url``, and never into a repr, a log
            record or an error message.
        base_url: The API's base URL.
        auth_url: The token issuer's base URL; defaults to ``base_url``.
        response_format: ``"json"`` or ``"xml"``; both decode to equal models.
        max_concurrency: Requests in flight at once for this client, pages of listings included;
            ``"auto"`` adapts it to the answers (enterprise_async/README.md, *Adaptive concurrency*).
        concurrency_bounds: ``(minimum, maximum)`` requests in flight ``"auto"`` stays within.
        max_retries: Retries of retryable failures (see enterprise_async/README.md, *Reliability*).
        timeout: Seconds allowed per request, or a ``Timeout(connect=, read=, total=)``.
        retry: A ``RetryPolicy``: the delays between retries, their jitter, the statuses retried.
        session: An ``aiohttp.ClientSession`` of the caller's; the client then leaves it open.
        proxy: A proxy for every request (``http://[user:password@]host:port``), over the
            environment's ``HTTP_PROXY``/``HTTPS_PROXY``.
        trust_env: Whether the client's own session reads ``HTTP_PROXY``, ``HTTPS_PROXY``,
            ``NO_PROXY`` (and ``~/.netrc``); on by default. A session of yours keeps its own setting.
        middleware: Async functions every attempt of an API request passes through, which may
            change it (``async def middleware(request, send)``; see ``OutgoingRequest``).
        token_cache: Where the access token is kept; share one among workers to share the token
            (``RedisTokenCache(url)``: one token, and one refresh, for a whole fleet).
        rate_limit: A budget every request, retries included, draws from, e.g.
            ``"18/second; 360/minute"``; a 429 then pauses every request of the client.
        rate_limiter: Where that budget and the pause are kept (a ``RateStore``):
            ``RateLimiter("redis://...")`` shares them with every process using the same client
            id; in this process by default.
        max_response_bytes: The most one answer may inflate to (64 MiB by default); a larger one
            (a gzip bomb, an endless body) raises ``ResponseTooLargeError`` and nothing is kept.
        options: A whole ``ClientOptions`` (a queued job's, a command line's) in place of
            ``response_format``, ``max_concurrency``, ``max_retries``, ``timeout`` and
            ``max_response_bytes``, which are then left out.

    Every setting is checked here, with a ``ClientValidationError`` naming it. A client belongs to
    the event loop of its first call; a call from another loop, or after ``aclose()``, raises
    ``ClientStateError``.
    """

    spec: ClassVar[ApiSpec]
    """The spec this client runs (the generated ``SPEC``, given by the generated subclass)."""

    def __init__(
        self,
        *,
        client_id: str,
        client_secret: str,
        base_url: str,
        auth_url: str | None = None,
        response_format: ResponseFormat = "json",
        max_concurrency: Concurrency = DEFAULT_MAX_CONCURRENCY,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float | Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        concurrency_bounds: tuple[int, int] = AUTO_CONCURRENCY_BOUNDS,
        session: aiohttp.ClientSession | None = None,
        token_cache: TokenCache | None = None,
        rate_limit: str | None = None,
        rate_limiter: RateStore | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        options: ClientOptions | None = None,
        proxy: str | None = None,
        trust_env: bool | None = None,
        middleware: Sequence[Middleware] | None = None,
    ) -> None:
        _require_text("client_id", client_id)
        _require_text("client_secret", client_secret)
        separate = ClientOptions(
            response_format=response_format,
            max_concurrency=max_concurrency,
            max_retries=max_retries,
            timeout=timeout,
            retry=retry,
            max_response_bytes=max_response_bytes,
            concurrency_bounds=concurrency_bounds,
        )
        self._options = _one_of(options, separate)
        self._trust_env = _trust_env(trust_env, session)
        self._proxy = check_proxy(proxy)
        self._base_url = check_base_url("base_url", base_url)
        self._base_text = str(self._base_url).rstrip("/")
        auth = check_base_url("auth_url", auth_url) if auth_url is not None else self._base_url
        _require_instance("session", session, aiohttp.ClientSession, "an aiohttp.ClientSession")
        _require_instance("token_cache", token_cache, TokenCache, "a TokenCache (async get and set)")
        self._redactor = Redactor(
            [client_secret, self._base_url.password or "", auth.password or "", _password(self._proxy)]
        )
        self._client_id = client_id
        self._drift = DriftCollector(self._redactor)  # shared by reference with every view
        self._session = session
        self._owns_session = session is None
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop of the first call
        self._parent: BaseClient | None = None  # set on a view made by with_options
        self._closed = False
        self._credentials = ClientCredentials(
            client_id,
            Secret(client_secret),
            auth,
            retry_statuses=self.spec.retry_statuses,
            request_id_header=self.spec.request_id_header,
        )
        self._transport = Transport(
            self._session_now,
            options=self._options,
            spec=self.spec,
            credentials=self._credentials,
            token_cache=token_cache if token_cache is not None else InMemoryTokenCache(),
            budget=_budget(client_id, rate_limit, rate_limiter),
            redactor=self._redactor,
            proxy=self._proxy,
            proxy_from_environment=self._trust_env,
            middleware=check_middleware(middleware) or (),
        )
        self._bind_resources()

    def _bind_resources(self) -> None:
        """Make the resource namespaces of this client (or view); the generated subclass does."""

    @classmethod
    def from_env(cls, **overrides: Any) -> Self:
        """A client configured from ``ENTERPRISE_CLIENT_ID``, ``ENTERPRISE_CLIENT_SECRET``,
        ``ENTERPRISE_BASE_URL`` and ``ENTERPRISE_AUTH_URL`` (optional); keyword arguments override them."""
        settings: dict[str, Any] = {
            name: os.environ[variable] for name, variable in _ENVIRONMENT.items() if os.environ.get(variable)
        }
        settings.update(overrides)
        for name in ("client_id", "client_secret", "base_url"):
            if not settings.get(name):
                raise ClientValidationError(name, f"is not set: export {_ENVIRONMENT[name]} or pass {name}=")
        return cls(**settings)

    # ------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> Self:
        await self._get_session()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the client's own session (a caller's session is left open). Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._owns_session and self._session is not None:
            await self._session.close()
        self._session = None

    close = aclose

    @property
    def closed(self) -> bool:
        """Whether this client, or for a view the client it belongs to, is closed."""
        return self._closed or (self._parent is not None and self._parent.closed)

    async def _get_session(self) -> aiohttp.ClientSession:
        return self._session_now()

    def _session_now(self) -> aiohttp.ClientSession:
        """The session, made at the first call; what the transport asks for at every attempt."""
        if self._closed:
            raise ClientStateError(f"the {'view' if self._parent else 'client'} is closed: make a new one")
        if self._parent is not None:
            return self._parent._session_now()
        self._check_loop()
        if self._session is None:
            # No pool limit: max_concurrency is enforced once, by the transport, for every view.
            connector = aiohttp.TCPConnector(limit=0, enable_cleanup_closed=True)
            # The transport reads the proxy variables itself (once per host): a session that trusts the
            # environment looks up ~/.netrc in a thread for every request, a cost bigger than the rest.
            self._session = aiohttp.ClientSession(connector=connector)
        return self._session

    def _check_loop(self) -> None:
        """Bind the client to the running loop at its first call; refuse any other loop after.

        Its connections belong to that loop: used from another one (a second ``asyncio.run``)
        they fail with aiohttp's bare ``RuntimeError``, or hang.
        """
        running = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = running
        elif self._loop is not running:
            raise ClientStateError(
                "the client is used from another event loop than the one it started on; make one "
                "client per event loop (each asyncio.run), inside it"
            )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(base_url={redact_url(self._base_url)!r}, client_id={self._client_id!r}, "
            f"response_format={self._options.response_format!r}, "
            f"max_concurrency={self._options.max_concurrency})"
        )

    # ------------------------------------------------------------------ observability

    @property
    def options(self) -> ClientOptions:
        """How this client sends: format, concurrency, retries, timeout and headers."""
        return self._options

    @property
    def base_url(self) -> str:
        return str(self._base_url)

    @property
    def response_format(self) -> ResponseFormat:
        return self._options.response_format

    @property
    def max_concurrency(self) -> Concurrency:
        """Requests this client keeps in flight at most, pages of every listing included ("auto": adapted)."""
        return self._options.max_concurrency

    @property
    def concurrency(self) -> ConcurrencyLimit:
        """The bound on requests in flight as it stands (``limit``, ``in_flight``), shared by views alike."""
        return self._transport.concurrency

    @property
    def max_response_bytes(self) -> int:
        """The most one answer may inflate to before ``ResponseTooLargeError``."""
        return self._options.max_response_bytes

    @property
    def stats(self) -> RequestStats:
        """Requests, retries and faults seen by this client so far."""
        return self._transport.stats

    @property
    def rate_budget(self) -> RateBudget | None:
        """The rate budget this client draws from (None without ``rate_limit``/``rate_limiter``)."""
        return self._transport.budget

    @property
    def token_requests(self) -> int:
        """Tokens this client has requested from the issuer."""
        return self._transport.tokens.requests

    def drift(self, *, reset: bool = False) -> DriftReport:
        """What this client's responses (and its views') held that the spec does not describe:
        unknown fields, enum values outside the spec, values kept as sent, undocumented statuses,
        each with a count, the operation and an example path. ``reset=True`` starts a new count
        after this report. See spec/README.md, *Keeping spec/ true*."""
        report = self._drift.report()
        if reset:
            self._drift.clear()
        return report

    async def _fetch_token(self) -> tuple[str, float]:
        """A new token from the issuer and its lifetime (what the token provider calls)."""
        return await self._credentials.fetch(self._transport.send)

    # ------------------------------------------------------------------ running operations

    async def call(
        self,
        operation: Operation[ResultT],
        arguments: Mapping[str, Any],
        options: RequestOptions | None = None,
    ) -> ResultT:
        """Run one operation with a call's arguments: the first step of the send chain, which
        validates them and builds the request (``_send``), and maps the answer's status."""
        prepared = prepare_request(operation, arguments)
        with self._transport.telemetry.operation(operation.name):
            response = await self._send(prepared, options)
            return self._answer(operation, response, arguments).parse()

    async def call_raw(
        self,
        operation: Operation[ResultT],
        arguments: Mapping[str, Any],
        options: RequestOptions | None = None,
    ) -> APIResponse[ResultT]:
        """Like ``call``, but the answer with its HTTP details; an error status still raises."""
        prepared = prepare_request(operation, arguments)
        with self._transport.telemetry.operation(operation.name):
            response = await self._send(prepared, options)
            return self._answer(operation, response, arguments)

    async def call_in_chunks(
        self,
        operation: Operation[ResultT],
        arguments: Mapping[str, Any],
        options: RequestOptions | None = None,
    ) -> BulkResult[ResultT]:
        """Run a bulk operation over any number of items, in the chunks its spec allows
        (``x-sdk-chunks``); each chunk is checked, then sent once as ``call`` sends; see
        ``enterprise_async._bulk``."""

        async def send(prepared: PreparedRequest, chunk_arguments: Mapping[str, Any]) -> ResultT:
            response = await self._send(prepared, options)
            return self._answer(operation, response, chunk_arguments).parse()

        extra_body = options.extra_body if options is not None else None
        with self._transport.telemetry.operation(operation.name):
            return await send_in_chunks(
                send, operation, arguments, concurrency=self._options.max_concurrency, extra_body=extra_body
            )

    async def read_link(self, link: str) -> bytes | None:
        """The body behind a presigned link (a job's results file), through this client's session
        and limits but with no token: the link is its own credential, and the token goes to the
        API's hosts alone. None when the storage host says the link expired (``_job_results``)."""
        session = self._session_now()
        return await read_presigned(session, link, self._options, proxy=self._proxy)

    def paginate(
        self, operation: Operation[Any], arguments: Mapping[str, Any], options: RequestOptions | None = None
    ) -> AsyncPager[Any, Any]:
        """An ``AsyncPager`` over a list operation. Arguments are validated now, before any request."""
        return self._pager(operation, arguments, options, None)

    def paginate_raw(
        self, operation: Operation[Any], arguments: Mapping[str, Any], options: RequestOptions | None = None
    ) -> RawPager[Any]:
        """A ``RawPager`` over a list operation: each page's answer with its HTTP details."""
        answers: dict[int, tuple[Any, APIResponse[Any]]] = {}
        return RawPager(self._pager(operation, arguments, options, answers), answers)

    def _pager(
        self,
        operation: Operation[Any],
        arguments: Mapping[str, Any],
        options: RequestOptions | None,
        answers: dict[int, tuple[Any, APIResponse[Any]]] | None,
    ) -> AsyncPager[Any, Any]:
        pagination = operation.pagination
        if pagination is None:
            raise TypeError(f"{operation.name} is not a list operation")
        prepared = prepare_request(operation, arguments)
        listing = self._transport.telemetry.listing(operation.name)

        async def fetch(query: Query) -> Callable[[], Any]:
            number = _page_number(pagination, query)
            page_request = prepared.with_query(query)
            response = await self._send(page_request, options, page=number, parent_span=listing.span)
            if answers is None:  # the plain pager: the page alone, no answer kept around it
                self._accept(operation, response, page=number)
                return PageRead(operation, response, self._drift)
            return _kept(self._answer(operation, response, page=number), answers)

        return AsyncPager(
            fetch,
            pagination,
            prepared.query,
            window=self._options.most_in_flight,
            listing=operation.name,
            scope=_listing_scope(prepared.path, options),
            span=listing.walk,
        )

    @overload
    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        cast_to: type[ResultT],
        timeout: float | Timeout | None = None,
        retry: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> ResultT: ...

    @overload
    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        cast_to: Any = None,
        timeout: float | Timeout | None = None,
        retry: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> Any: ...

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        cast_to: Any = None,
        timeout: float | Timeout | None = None,
        retry: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> Any:
        """Call an endpoint the spec does not describe, with everything a generated method has: the
        token, retries, middleware, error mapping, request ids, tracing and redaction.

        Args:
            method: ``GET``, ``POST``, ``PUT``, ``PATCH`` or ``DELETE``.
            path: The path under ``base_url`` (``/enterprise/v1/...``); never another host.
            params: Query parameters (a list is sent as one comma-separated value; None is left out).
            json: The JSON body (not for a GET).
            cast_to: The model (or type, such as ``list[Course]``) to decode a 2xx body into; by
                default the body is returned as decoded JSON (or XML) data, None when empty.
            timeout: Seconds, or a ``Timeout``, for this call's requests.
            retry: A ``RetryPolicy`` for this call.
            extra_headers: Headers added to this call's requests.

        An error status raises its typed error (``NotFoundError``...), with the request id.
        ``client.with_raw_response.request(...)`` returns the ``APIResponse`` instead.
        """
        answer = await self._request_raw(method, path, params, json, cast_to, timeout, retry, extra_headers)
        return answer.parse()

    async def _request_raw(
        self,
        method: object,
        path: object,
        params: object,
        json: object,
        cast_to: object,
        timeout: object,
        retry: object,
        extra_headers: object,
    ) -> APIResponse[Any]:
        prepared = prepare_undocumented(
            method, path, params=params, json=json, cast_to=cast_to, retry_statuses=self.spec.retry_statuses
        )
        options = RequestOptions.of(timeout=timeout, extra_headers=extra_headers, retry=retry)
        with self._transport.telemetry.operation(prepared.operation.name):
            response = await self._transport.send(self._http_request(prepared, options))
            return self._answer(prepared.operation, response)

    def _send(
        self,
        prepared: PreparedRequest,
        options: RequestOptions | None,
        *,
        page: int | None = None,
        parent_span: Any = None,
    ) -> Awaitable[RawResponse]:
        """Send one request; a status the operation marks "not in this format"
        (``json_fallback_statuses``: 406 from a view that renders JSON only) is asked once more in
        JSON, which decodes to the same models. The client's ``response_format`` stays as it is."""
        request = self._http_request(prepared, options, page=page, parent_span=parent_span)
        if self._options.response_format == "json" or not prepared.operation.json_fallback_statuses:
            return self._transport.send(request)  # nothing to fall back to
        return self._send_or_fall_back(prepared.operation, request)

    async def _send_or_fall_back(self, operation: Operation[Any], request: HTTPRequest) -> RawResponse:
        """``_send`` in a format other than JSON, for an operation that names fallback statuses;
        the JSON request is the same call (its request id too), asking for JSON."""
        response = await self._transport.send(request)
        if response.status not in operation.json_fallback_statuses:
            return response
        logger.debug(
            "%s: %s %s answered %d in %s; asking once more in JSON",
            operation.name,
            request.method,
            request.path,
            response.status,
            self._options.response_format.upper(),
            extra={"sdk_operation": operation.name, "sdk_status": response.status, "sdk_format": "json"},
        )
        in_json = attrs.evolve(request, headers={**request.headers, "Accept": _ACCEPT["json"]})
        return await self._transport.send(in_json)

    def _answer(
        self,
        operation: Operation[ResultT],
        response: RawResponse,
        arguments: Mapping[str, Any] | None = None,
        *,
        page: int | None = None,
    ) -> APIResponse[ResultT]:
        self._accept(operation, response, page=page)
        drift = self._drift
        if operation.identity is None or arguments is None:
            return APIResponse(response, lambda raw: read_result(operation, raw, drift))

        def checked(raw: RawResponse) -> ResultT:
            result: ResultT = read_result(operation, raw, drift)
            check_identity(operation, raw, result, arguments)
            return result

        return APIResponse(response, checked)

    def _accept(self, operation: Operation[Any], response: RawResponse, *, page: int | None = None) -> None:
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
            self._drift.record_status(operation.name, response.status, documented, request)

    def _http_request(
        self,
        prepared: PreparedRequest,
        options: RequestOptions | None,
        *,
        page: int | None = None,
        parent_span: Any = None,
    ) -> HTTPRequest:
        """The request of a prepared call, with the client's headers and the call's options; it
        goes with a fresh request id unless the caller gave one of its own."""
        headers = {
            "Accept": _ACCEPT[self._options.response_format],
            "User-Agent": USER_AGENT,
            **self._options.headers,
        }
        options = options or _NO_OPTIONS
        if options.extra_headers:
            headers.update(options.extra_headers)
        body = with_extra_body(prepared.method, prepared.body, options.extra_body)
        if body is not None:
            headers["Content-Type"] = "application/json"
        request_id = _with_request_id(headers, self.spec.request_id_header)
        return HTTPRequest(
            method=prepared.method,
            url=_url(self._base_text, prepared.path, with_extra_query(prepared.query, options.extra_query)),
            path=prepared.path,
            headers=headers,
            body=body,
            idempotent=prepared.operation.idempotent,
            retry_statuses=prepared.operation.retry_statuses,
            timeout=options.timeout,
            retry=options.retry,
            operation=prepared.operation.name,
            page=page,
            request_id=request_id,
            parent_span=parent_span,
        )

    # ------------------------------------------------------------------ views

    def with_options(
        self,
        *,
        timeout: float | Timeout | None = None,
        max_retries: int | None = None,
        max_concurrency: Concurrency | None = None,
        headers: Mapping[str, str] | None = None,
        retry: RetryPolicy | None = None,
        middleware: Sequence[Middleware] | None = None,
        concurrency_bounds: tuple[int, int] | None = None,
    ) -> Self:
        """A view of this client differing only in these options (None keeps this client's;
        ``middleware`` replaces the client's list).

        A fail-fast route and a patient background job can share one client: the view shares the
        connection pool, the token provider, the statistics and everything else this client holds
        (a rate budget included) by reference, and the bound on requests in flight too while the
        view keeps this client's ``max_concurrency`` (an ``"auto"`` limit adapts for both).
        Closing a view leaves this client open; closing
        this client closes the pool under its views too.
        """
        options = self._options.evolve(
            timeout=timeout,
            max_retries=max_retries,
            max_concurrency=max_concurrency,
            headers=headers,
            retry=retry,
            concurrency_bounds=concurrency_bounds,
        )
        chain = check_middleware(middleware)
        view = copy.copy(self)
        view._parent = self._parent or self
        view._owns_session = False
        view._closed = False
        view._options = options
        view._transport = self._transport.derive(options, session=view._session_now, middleware=chain)
        view._bind_resources()
        return view


_NO_OPTIONS = RequestOptions()


def _with_request_id(headers: dict[str, str], name: str | None) -> str | None:
    """The id a request goes with, set in ``headers`` under ``name`` (the spec's header): the
    caller's own value there (``extra_headers``, a view's ``headers``; any case) wins, else a
    fresh UUID. None when the spec names no header."""
    if name is None:
        return None
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return value
    headers[name] = str(uuid.uuid4())
    return headers[name]


def _password(url: str | None) -> str:
    """The password in a URL (a proxy's), for the redactor; empty when there is none."""
    return (URL(url).password or "") if url else ""


def _trust_env(value: object, session: aiohttp.ClientSession | None) -> bool:
    """Whether the client's own session reads the proxy variables: yes unless told otherwise; a
    caller's session has its own setting, which this one cannot change."""
    if value is None:
        return True
    if not isinstance(value, bool):
        raise ClientValidationError("trust_env", f"must be True or False, got {value!r}")
    if session is not None:
        raise ClientValidationError(
            "trust_env",
            "applies to the client's own session; give your aiohttp.ClientSession trust_env= instead",
        )
    return value


def _one_of(options: ClientOptions | None, separate: ClientOptions) -> ClientOptions:
    """``options`` when given (the separate settings then left at their defaults), else ``separate``."""
    if options is None:
        return separate
    if not isinstance(options, ClientOptions):
        raise ClientValidationError("options", f"must be a ClientOptions, got {type(options).__name__}")
    if separate != ClientOptions():
        raise ClientValidationError(
            "options",
            "give either options= or response_format/max_concurrency/concurrency_bounds/max_retries/timeout/"
            "max_response_bytes",
        )
    return options


def _kept(answer: APIResponse[Any], answers: dict[int, tuple[Any, APIResponse[Any]]]) -> Callable[[], Any]:
    """The decoder of a raw pager's page: it keeps the page's answer, found again by the page."""

    def decode() -> Any:
        page = answer.parse()
        answers[id(page)] = (page, answer)  # the page is kept alive, so its id stays its own
        return page

    return decode


def _page_number(pagination: Any, query: Query) -> int:
    """The page a listing's query asks for (1 when it names none), as traces and logs show it."""
    value = dict(query).get(pagination.page_param) if pagination.page_param else None
    return int(value) if value is not None and value.isdigit() else 1


def _budget(client_id: str, rate_limit: str | None, store: RateStore | None) -> RateBudget | None:
    """The client's budget: its limits on the given store (or one of its own, in memory)."""
    if rate_limit is None and store is None:
        return None
    _require_instance("rate_limiter", store, RateStore, "a RateLimiter (or another RateStore)")
    items = parse_rate_limit(rate_limit) if rate_limit is not None else ()
    return RateBudget(store or InMemoryRateStore(), items, key=budget_key(client_id))


def _listing_scope(path: str, options: RequestOptions | None) -> str:
    """What ties a listing's cursors to its call besides its arguments: the path, and the query
    ``extra_query`` adds (another filter is another listing)."""
    extra = sorted((options.extra_query or {}).items(), key=str) if options is not None else []
    return f"{path} {extra!r}" if extra else path


@functools.lru_cache(maxsize=URLS_KEPT)
def _url(base: str, path: str, query: Query) -> URL:
    """The URL of a request. The latest are kept: a URL is immutable, and one used again (the same
    call made again, a retry) keeps what yarl and aiohttp worked out of it (its host, port...)."""
    text = base + path
    if query:
        text += "?" + urlencode(query, quote_via=quote, safe=",")
    return URL(text, encoded=True)


def check_base_url(name: str, value: Any) -> URL:
    """An absolute http(s) URL without query or fragment; a typed error names anything else."""
    if not isinstance(value, str) or not value.strip():
        raise ClientValidationError(name, "must be an absolute http(s) URL")
    try:
        url = URL(value.strip())
    except ValueError:
        raise ClientValidationError(
            name, f"must be an absolute http(s) URL, got {redact_url(value)!r}"
        ) from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ClientValidationError(name, f"must be an absolute http(s) URL, got {redact_url(value)!r}")
    if url.query_string or url.fragment:
        raise ClientValidationError(name, "may not carry a query or fragment")
    return url


def _not_a_url(name: str, value: str) -> ClientValidationError:
    """The error for a URL refused; a password in it is not shown."""
    return ClientValidationError(name, f"must be an absolute http(s) URL, got {redact_url(value)!r}")


def _require_instance(name: str, value: object, kind: type[Any], described: str) -> None:
    """None (the default) or an instance of ``kind``; a typed error names anything else now, not
    at the first call."""
    if value is not None and not isinstance(value, kind):
        raise ClientValidationError(name, f"must be {described}, got {type(value).__name__}")


def _require_text(name: str, value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ClientValidationError(name, "must be a non-empty string")


class BaseClientWithRawResponse:
    """``client.with_raw_response``: what the client calls, answering with HTTP details
    (``APIResponse``) instead of the model; the generated subclass adds every resource."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        cast_to: Any = None,
        timeout: float | Timeout | None = None,
        retry: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> APIResponse[Any]:
        """``client.request``'s answer with its status, headers, request id, time and retries;
        ``parse()`` decodes it as ``client.request`` would. An error status still raises."""
        return await self._client._request_raw(
            method, path, params, json, cast_to, timeout, retry, extra_headers
        )
