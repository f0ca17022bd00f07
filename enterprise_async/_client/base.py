"""``BaseClient``: the client every generated client stands on.

It is given the spec (an ``ApiSpec``: the operation table, the client-wide retry statuses, the
request-id headers) and runs every call the same way: the call's arguments are checked and its
request built (``_request.request``), sent through the transport, and the answer read to a
result or a typed error (``_response.answer``); a list operation's call becomes a pager
(``listing``). It holds what a client is made of: its checked settings (``settings``), its
session (``_transport.session``) and its views. It knows no endpoint, model or resource of its
own: the generated ``EnterpriseClient`` subclasses it, gives it ``SPEC`` and holds the resource
namespaces (``client.policies``...), whose methods call ``call`` and ``paginate`` here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeVar

import aiohttp
from typing_extensions import Self, Unpack

from .._bulk.chunks import BulkResult, send_in_chunks
from .._decoding import Conversion
from .._decoding.drift import DriftReport
from .._paging import AsyncPager
from .._request.options import ClientOptions, Concurrency, RequestOptions, ResponseFormat
from .._request.request import PreparedRequest, RequestDefaults, build_request, prepare_request
from .._request.retry import RetryPolicy
from .._request.timeouts import Timeout
from .._response.answer import Answer
from .._spec import ApiSpec, Operation
from .._transport.auth import TokenCache
from .._transport.concurrency import ConcurrencyLimit
from .._transport.middleware import Middleware, check_middleware
from .._transport.proxy import check_proxy
from .._transport.rate_limit import RateBudget, RateLimit, RateStore
from .._transport.session import SessionHandle
from .._transport.transport import RequestStats, Transport
from .._utils.constants import (
    AUTO_CONCURRENCY_BOUNDS,
    DEFAULT_MAX_CONCURRENCY,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
)
from .._utils.redaction import redact_url
from .identity import TokenIdentity
from .job_results import read_presigned
from .listing import listing_pager
from .raw_response import APIResponse, RawPager
from .settings import (
    ClientSettings,
    check_base_url,
    chosen_options,
    client_parts,
    require_instance,
    require_text,
    settings_from_env,
    trust_env_setting,
)
from .undocumented import UndocumentedCalls

__all__ = ["BaseClient"]

ResultT = TypeVar("ResultT")


class BaseClient(UndocumentedCalls, TokenIdentity):
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
        max_retries: Retries of retryable failures (see enterprise_async/README.md, *Reliability*).
        timeout: Seconds allowed per request, from sending it, or a
            ``Timeout(connect=, read=, total=, rate_wait=)``; the wait for the rate budget before
            sending is bounded by ``rate_wait`` alone (unbounded by default).
        retry: A ``RetryPolicy``: the delays between retries, their jitter, the statuses retried.
        concurrency_bounds: ``(minimum, maximum)`` requests in flight ``"auto"`` stays within.
        session: An ``aiohttp.ClientSession`` of the caller's; the client then leaves it open.
        token_cache: Where the access token is kept; share one among workers to share the token
            (``RedisTokenCache(url)``: one token, and one refresh, for a whole fleet).
        rate_limit: A budget every request, retries included, draws from, e.g.
            ``"18/second; 360/minute"``; a 429 then pauses every request of the client. Each
            window is counted ``margin`` wider than written (0.1 s by default) so that requests
            delayed on their way still arrive within it: ``"18/second; margin=0.05s"`` or a
            ``RateLimit`` sets it.
        rate_limiter: Where that budget and the pause are kept (a ``RateStore``):
            ``RateLimiter("redis://...")`` shares them with every process using the same client
            id; in this process by default.
        max_response_bytes: The most one answer may inflate to (64 MiB by default); a larger one
            (a gzip bomb, an endless body) raises ``ResponseTooLargeError`` and nothing is kept.
        options: A whole ``ClientOptions`` (a queued job's, a command line's) in place of
            ``response_format``, ``max_concurrency``, ``max_retries``, ``timeout`` and
            ``max_response_bytes``, which are then left out.
        proxy: A proxy for every request (``http://[user:password@]host:port``), over the
            environment's ``HTTP_PROXY``/``HTTPS_PROXY``.
        trust_env: Whether the client's own session reads ``HTTP_PROXY``, ``HTTPS_PROXY``,
            ``NO_PROXY`` (and ``~/.netrc``); on by default. A session of yours keeps its own setting.
        middleware: Async functions every attempt of an API request passes through, which may
            change it (``async def middleware(request, send)``; see ``OutgoingRequest``).

    Every setting is checked here, with a ``ClientValidationError`` naming it. A
    client belongs to the event loop of its first call; a call from another loop, or after
    ``aclose()``, raises ``ClientStateError``.
    """

    spec: ClassVar[ApiSpec]
    """The spec this client runs (the generated ``SPEC``, given by the generated subclass)."""
    conversion: ClassVar[Conversion]
    """What decodes this client's answers and writes the models it sends (the generated
    ``CONVERSION``, given by the generated subclass)."""

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
        rate_limit: str | RateLimit | None = None,
        rate_limiter: RateStore | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        options: ClientOptions | None = None,
        proxy: str | None = None,
        trust_env: bool | None = None,
        middleware: Sequence[Middleware] | None = None,
    ) -> None:
        viewed: BaseClient | None = vars(self).pop("_viewed", None)  # set by ``_view``
        require_text("client_id", client_id)
        require_text("client_secret", client_secret)
        separate = ClientOptions(
            response_format=response_format,
            max_concurrency=max_concurrency,
            max_retries=max_retries,
            timeout=timeout,
            retry=retry,
            max_response_bytes=max_response_bytes,
            concurrency_bounds=concurrency_bounds,
        )
        self._options = chosen_options(options, separate)
        self._trust_env = trust_env_setting(trust_env, session)
        self._proxy = check_proxy(proxy)
        self._base_url = check_base_url("base_url", base_url, credentials=False)
        auth = check_base_url("auth_url", auth_url) if auth_url is not None else self._base_url
        require_instance("session", session, aiohttp.ClientSession, "an aiohttp.ClientSession")
        require_instance("token_cache", token_cache, TokenCache, "a TokenCache (async get and set)")
        self._client_id = client_id
        self._middleware = chain = check_middleware(middleware) or ()
        if viewed is None:
            self._drift, self._session, self._link = client_parts(
                self.spec,
                self._options,
                client_id=client_id,
                client_secret=client_secret,
                base_url=self._base_url,
                auth_url=auth,
                session=session,
                token_cache=token_cache,
                rate_limit=rate_limit,
                rate_limiter=rate_limiter,
                proxy=self._proxy,
                trust_env=self._trust_env,
            )
        else:  # a view (``with_options``): the client's drift report, session and link
            self._drift, self._link = viewed._drift, viewed._link
            self._session = SessionHandle(of=viewed._session)
        self._transport = Transport(
            self._session.get, options=self._options, link=self._link, middleware=chain
        )
        self._defaults = RequestDefaults.of(self._options, self._base_url, self.spec.request_id_header)
        self._asks_json = self._options.response_format == "json"
        self._bind_resources()

    def _bind_resources(self) -> None:
        """Make the resource namespaces of this client (or view); the generated subclass does."""

    @classmethod
    def from_env(cls, **overrides: Unpack[ClientSettings]) -> Self:
        """A client configured from ``ENTERPRISE_CLIENT_ID``, ``ENTERPRISE_CLIENT_SECRET``,
        ``ENTERPRISE_BASE_URL`` and ``ENTERPRISE_AUTH_URL`` (optional); keyword arguments, those of
        the constructor and typed as there, override them."""
        return cls(**settings_from_env(overrides))

    @classmethod
    def _view(cls, of: BaseClient, **settings: Unpack[ClientSettings]) -> Self:
        """A client made by this class's constructor with ``settings``, over the drift report,
        session and ``Link`` of ``of``."""
        view = cls.__new__(cls)
        vars(view)["_viewed"] = of  # read, and removed, by ``BaseClient.__init__``
        cls.__init__(view, **settings)
        return view

    # ------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> Self:
        self._session.get()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the client's own session (a caller's session is left open). Safe to call twice.
        Closing a view leaves the client it belongs to open."""
        await self._session.close()

    close = aclose

    @property
    def closed(self) -> bool:
        """Whether this client, or for a view the client it belongs to, is closed."""
        return self._session.closed

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

    # ------------------------------------------------------------------ running operations

    async def call(
        self,
        operation: Operation[ResultT],
        arguments: Mapping[str, object],
        options: RequestOptions | None = None,
    ) -> ResultT:
        """Run one operation with a call's arguments: they are validated, the request is built
        and sent (with the client's retries, rate budget and middleware), and the answer's status
        is mapped to its result or to a typed error."""
        prepared = prepare_request(operation, arguments, self.conversion)
        with self._transport.telemetry.operation(operation.name):
            answer = await self._answer(prepared, options)
            result: ResultT = answer.result(arguments)
            return result

    async def call_raw(
        self,
        operation: Operation[ResultT],
        arguments: Mapping[str, object],
        options: RequestOptions | None = None,
    ) -> APIResponse[ResultT]:
        """Like ``call``, but the answer with its HTTP details; an error status still raises."""
        prepared = prepare_request(operation, arguments, self.conversion)
        return await self._call_prepared(prepared, options, arguments)

    async def call_in_chunks(
        self,
        operation: Operation[ResultT],
        arguments: Mapping[str, object],
        options: RequestOptions | None = None,
    ) -> BulkResult[ResultT]:
        """Run a bulk operation over any number of items, in the chunks its spec allows
        (``x-sdk-chunks`` in spec/openapi.yaml); each chunk is checked, then sent once as
        ``call`` sends it. The ``BulkResult`` names every chunk's outcome."""

        async def send(prepared: PreparedRequest, chunk_arguments: Mapping[str, object]) -> ResultT:
            answer = await self._answer(prepared, options)
            result: ResultT = answer.result(chunk_arguments)
            return result

        extra_body = options.extra_body if options is not None else None
        with self._transport.telemetry.operation(operation.name):
            return await send_in_chunks(
                send,
                operation,
                arguments,
                conversion=self.conversion,
                concurrency=self._options.max_concurrency,
                extra_body=extra_body,
            )

    async def read_link(self, link: str) -> bytes | None:
        """The body behind a presigned link (a job's results file), through this client's session
        and limits but with no token: the link is its own credential, and the token goes to the
        API's hosts alone. None when the storage host says the link expired (403): ask the
        operation for a fresh link."""
        session = self._session.get()
        return await read_presigned(session, link, self._options, proxy=self._proxy)

    def paginate(
        self, operation: Operation[Any], arguments: Mapping[str, Any], options: RequestOptions | None = None
    ) -> AsyncPager[Any, Any]:
        """An ``AsyncPager`` over a list operation. Arguments are validated now, before any request."""
        return listing_pager(
            operation,
            arguments,
            options,
            send=self._answer,
            conversion=self.conversion,
            telemetry=self._transport.telemetry,
            window=self._options.most_in_flight,
        )

    def paginate_raw(
        self, operation: Operation[Any], arguments: Mapping[str, Any], options: RequestOptions | None = None
    ) -> RawPager[Any]:
        """A ``RawPager`` over a list operation: each page's answer with its HTTP details."""
        return RawPager(self.paginate(operation, arguments, options))

    async def _call_prepared(
        self,
        prepared: PreparedRequest,
        options: RequestOptions | None,
        arguments: Mapping[str, Any] | None = None,
    ) -> APIResponse[Any]:
        """Send a prepared call (``call_raw``'s, ``client.request``'s) and give its answer with its HTTP
        details; ``arguments``: the call's, which a lookup's answer is checked against."""
        with self._transport.telemetry.operation(prepared.operation.name):
            return APIResponse(await self._answer(prepared, options), arguments)

    async def _answer(
        self,
        prepared: PreparedRequest,
        options: RequestOptions | None,
        *,
        page: int | None = None,
        parent_span: Any = None,
    ) -> Answer:
        """Send one request, then map its answer's status: the answer of a success, else the typed
        error of its status (naming the listing's ``page``). A status the operation marks "not in
        this format" (``json_fallback_statuses``: 406 from a view that renders JSON only) is asked
        once more in JSON, which decodes to the same models; the client's ``response_format``
        stays as it is."""
        request = build_request(prepared, options, self._defaults, page=page, parent_span=parent_span)
        operation = prepared.operation
        if self._asks_json or not operation.json_fallback_statuses:
            response = await self._transport.send(request)  # nothing to fall back to
        else:
            response = await self._transport.send_asking_json_again(operation, request)
        return Answer(operation, response, self.conversion, self._drift).raise_for_status(page=page)

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
        Closing a view leaves this client open; closing this client closes the pool under its views
        too.
        """
        options = self._options.evolve(
            timeout=timeout,
            max_retries=max_retries,
            max_concurrency=max_concurrency,
            headers=headers,
            retry=retry,
            concurrency_bounds=concurrency_bounds,
        )
        credentials = self._link.credentials
        return self._view(
            self,
            client_id=self._client_id,
            client_secret=credentials.secret.reveal(),
            base_url=self.base_url,
            auth_url=str(credentials.auth_url),
            options=options,
            proxy=self._proxy,
            trust_env=self._trust_env,
            middleware=self._middleware if middleware is None else middleware,
        )
