"""``Sandbox``: the whole API as a real HTTP server on loopback, for tests, demos and benchmarks."""

from __future__ import annotations

import datetime
import hashlib
import logging
import socket
from collections.abc import Mapping
from typing import Final

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from typing_extensions import Unpack

from .._client.settings import ClientSettings
from .._generated.client import EnterpriseClient
from .._utils.optional import require_extra
from ._data_size import DataSize
from ._endpoints import Endpoints
from ._faults import FaultInjector
from ._jobs import DEFAULT_RESULTS_DELAY, EnrollmentJobs, ResultsStorage, spec_link_lifetime
from ._log import RequestLog
from ._pages import DEFAULT_PAGE_SIZES, LISTINGS
from ._registry import GENERATED_SPEC, SpecTable
from ._server import SandboxServer
from ._server_options import CatalogService, CatalogShape, LearnerSummaryShape, ServerOptions
from ._services import Profile, Services
from ._shutdown import stop_serving
from ._state import SandboxData
from ._throttle import Throttle
from ._tokens import TokenIssuer

__all__ = ["DEFAULT_HOST", "DEFAULT_TOKEN_LIFETIME", "Sandbox"]

require_extra("sandbox")  # its request checks use jsonschema: say so here, not on a first request

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_TOKEN_LIFETIME: Final = 3600.0
"""Seconds a sandbox token lives unless ``token_lifetime`` says otherwise."""
SHUTDOWN_TIMEOUT: Final = 0.5
"""Seconds that stopping waits for requests in flight (a slow fault must not hold a test up)."""
DEFAULT_LOG_LIMIT: Final = 10_000
"""Requests the log keeps (the latest ones)."""


class MalformedRequestNote(logging.Filter):
    """aiohttp logs a request it cannot parse (a NUL in a header, from a fuzzer) as an error with
    its traceback, though it answers 400 as it should: one DEBUG line says so instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            record.args = (record.getMessage(), " ".join(str(error).split()))
            record.msg = "%s; answered 400: %s"
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            record.exc_info = record.exc_text = None
        return True


SERVER_LOGGER: Final = logging.getLogger("enterprise_async.testing.server")
"""The logger of the sandbox's HTTP server (aiohttp's ``aiohttp.server`` otherwise)."""
SERVER_LOGGER.addFilter(MalformedRequestNote())


def _service_page_sizes(services: Services) -> dict[str, int]:
    """The listings' default page sizes at their services (``x-sdk-service`` ``page-size``)."""
    return {
        listing: int(services.rules(operation)["page-size"])
        for listing, operation in LISTINGS.items()
        if "page-size" in services.rules(operation)
    }


def _today() -> datetime.datetime:
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


class Sandbox:
    """The enterprise API as a real local server (aiohttp), with deterministic data, state,
    tokens, faults and a request log.

    ::

        async with Sandbox(seed=0) as sandbox:
            async with sandbox.client() as client:
                catalogs = await client.catalogs.list().to_list()
            customer = sandbox.data.customers[0].uuid

    Args:
        seed: Everything generated (ids, names, prices, states) follows from it.
        host: Interface to listen on (loopback by default).
        port: Port to listen on; 0 (the default) lets the OS choose one.
        size: How much data to generate (``DataSize``); catalogs may hold 100,000 items and more.
        token_lifetime: Seconds a token lives (fractions allowed, e.g. 2.0). ``expires_in`` tells
            the whole seconds, rounded down (at least 1).
        next_host: Origin that ``next``/``previous`` links name instead of the sandbox's own, as
            back-ends behind a gateway do (``"http://backend.internal:8000"``).
        learner_summary: ``"paginated"`` (an envelope with ``count``/``next``/``results``) or
            ``"list"`` (a plain list), the two shapes real servers send.
        catalog_shape: ``"nested"`` catalog contents, or the ``"flat"`` (search index) shape.
        profile: ``"services"`` (the default): every endpoint answers as the service behind the
            gateway does (access by the token's customer, the services' checks, error shapes,
            envelopes, page sizes, negotiation, path forms, request ids; see the package's
            README.md). ``"reference"``: the API as the reference documents it (XML unless JSON
            is asked for, its envelopes and limits).
        catalog_service: ``"reference"``, or ``"enterprise-catalog"``: catalogs as that service
            serves them (learner pathways and videos among the contents; lookups by key in JSON
            only, 406 to XML, a course run's key answered with its course). By default, what the
            profile says: ``"enterprise-catalog"`` under ``"services"``.
        page_sizes: Page sizes per listing, over ``DEFAULT_PAGE_SIZES``: a listing named here
            pages that many items at a time, whatever a request asks for (small pages exercise
            paging); the others take a request's size up to the service's maximum.
        client_id, client_secret: The credentials the sandbox accepts; derived from the seed by default.
        anchor: The moment the data is laid out around; midnight UTC today by default.
        log_limit: Requests the request log keeps; 0 turns the log off (benchmarks).
        spec: The operations served (``enterprise_async/_generated/`` by default): each answered by
            its stateful handler, or else with data synthesized from its response schemas.
        rate_limit: The sandbox's own throttle (``"18/second; 360/minute"``): API requests over it
            are answered 429 with ``Retry-After``, as the real services do. None: no throttle.
        results_delay: Seconds a bulk enrollment job stays pending before its results file is
            written (``sandbox.jobs``).
        results_storage: Whether the results go to a storage host (``sandbox.storage``, a second
            loopback server behind presigned links); False: no link ever, as a service with no
            results bucket.
        link_lifetime: Seconds a results link lives (the spec's 300 by default).
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        host: str = DEFAULT_HOST,
        port: int = 0,
        size: DataSize | None = None,
        token_lifetime: float = DEFAULT_TOKEN_LIFETIME,
        next_host: str | None = None,
        learner_summary: LearnerSummaryShape = "paginated",
        catalog_shape: CatalogShape = "nested",
        profile: Profile = "services",
        catalog_service: CatalogService | None = None,
        page_sizes: Mapping[str, int] | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        anchor: datetime.datetime | None = None,
        log_limit: int = DEFAULT_LOG_LIMIT,
        spec: SpecTable = GENERATED_SPEC,
        rate_limit: str | None = None,
        results_delay: float = DEFAULT_RESULTS_DELAY,
        results_storage: bool = True,
        link_lifetime: float | None = None,
    ) -> None:
        unknown = set(page_sizes or {}) - set(DEFAULT_PAGE_SIZES)
        if unknown:
            raise ValueError(
                f"unknown listings in page_sizes: {sorted(unknown)}; known: {sorted(DEFAULT_PAGE_SIZES)}"
            )
        self.seed = seed
        self.host = host
        self._requested_port = port
        self.client_id = client_id or f"sandbox-client-{seed}"
        """The client id the token issuer accepts."""
        self.client_secret = (
            client_secret or hashlib.sha256(f"sandbox-secret:{seed}".encode()).hexdigest()[:40]
        )
        """The client secret the token issuer accepts."""
        self.data = SandboxData(seed, size or DataSize(), anchor or _today())
        """The sandbox's world: ids to use in tests, and the live records behind them."""
        self.faults = FaultInjector()
        """Faults on demand: ``sandbox.faults.inject(pattern, Fault...)``, ``sandbox.faults.random(rate)``."""
        self.requests = RequestLog(secret=self.client_secret, limit=log_limit)
        """Every request received (the latest ``log_limit``), credentials redacted."""
        self.tokens = TokenIssuer(
            client_id=self.client_id,
            client_secret=self.client_secret,
            customer_uuid=self.data.customers[0].uuid,
            user_id=self.data.learners(self.data.customers[0].uuid)[0].lms_user_id,
            lifetime=token_lifetime,
        )
        """The token issuer (``issued`` counts tokens, ``expire_all()`` expires them)."""
        services = Services(
            profile, spec.services, spec.service, self.data, self.tokens.customer_uuid, spec.components
        )
        self.profile = profile
        """``"services"`` (the services behind the gateway, as they answer) or ``"reference"``."""
        options = ServerOptions(
            next_host=next_host,
            learner_summary=learner_summary,
            catalog_shape=catalog_shape,
            catalog_service=catalog_service or ("enterprise-catalog" if services.active else "reference"),
            page_sizes={**DEFAULT_PAGE_SIZES, **_service_page_sizes(services), **(page_sizes or {})},
            largest_pages=dict(page_sizes or {}),
        )
        self.throttle = Throttle(rate_limit) if rate_limit else None
        """The sandbox's own rate limit, if any (``throttled`` counts its 429s)."""
        self.storage = (
            ResultsStorage(lifetime=link_lifetime or spec_link_lifetime()) if results_storage else None
        )
        """The storage host of the bulk enrollment results (None without ``results_storage``)."""
        self.jobs = EnrollmentJobs(self.data, self.storage, delay=results_delay)
        """The bulk enrollment jobs, pending ``results_delay`` seconds, then with their results."""
        endpoints = Endpoints(self.data, options, services, self.jobs)
        self.server = SandboxServer(
            endpoints,
            tokens=self.tokens,
            faults=self.faults,
            log=self.requests,
            spec=spec,
            throttle=self.throttle,
            services=services,
        )
        self.canned = self.server.canned
        """Bodies to serve for an operation in place of the sandbox's data:
        ``sandbox.canned.add("policies.list", page, ...)`` (a real service's payloads, say)."""
        self.edits = self.data.catalog_edits
        """The catalogs changed between two runs: ``sandbox.edits.create(catalog_uuid, item)``,
        ``update(catalog_uuid, key, title=...)``, ``remove``, ``touch`` (its time only),
        ``change_customer(customer_uuid)``; a catalog never edited answers as seeded."""
        self._runner: web.AppRunner | None = None
        self._listener: socket.socket | None = None
        self._port: int | None = None

    def __repr__(self) -> str:
        where = self.base_url if self._port is not None else "not running"
        return f"Sandbox(seed={self.seed}, {where})"

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> Sandbox:
        """Start listening. ``async with Sandbox(...)`` does this for you."""
        if self._runner is not None:
            raise RuntimeError("the sandbox is already running")
        listener = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((self.host, self._requested_port))
            listener.listen(128)
            listener.setblocking(False)
        except OSError:
            listener.close()
            raise
        runner = web.AppRunner(
            self.server.application(),
            access_log=None,
            logger=SERVER_LOGGER,
            handle_signals=False,
            shutdown_timeout=SHUTDOWN_TIMEOUT,
        )
        try:
            await runner.setup()
            await web.SockSite(runner, listener).start()
        except BaseException:
            listener.close()
            await runner.cleanup()
            raise
        self._runner, self._listener = runner, listener
        self._port = int(listener.getsockname()[1])
        if self.storage is not None:
            await self.storage.start()
        return self

    async def stop(self) -> None:
        """Stop listening and close every connection. Safe to call twice."""
        runner, self._runner = self._runner, None
        if runner is not None and self._listener is not None:
            await stop_serving(runner, self._listener)
        if self.storage is not None:
            await self.storage.stop()

    async def __aenter__(self) -> Sandbox:
        return await self.start()

    async def __aexit__(self, *_: object) -> None:
        await self.stop()

    @property
    def running(self) -> bool:
        """Whether the sandbox is listening."""
        return self._runner is not None

    # ------------------------------------------------------------------ where it is

    @property
    def port(self) -> int:
        """The port the sandbox listens on (the OS's choice unless one was given)."""
        if self._port is None:
            raise RuntimeError(
                "the sandbox is not running: use `async with Sandbox(...)` or `await sandbox.start()`"
            )
        return self._port

    @property
    def base_url(self) -> str:
        """The API's base URL (``http://127.0.0.1:PORT``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def auth_url(self) -> str:
        """The token issuer's base URL: the same server."""
        return self.base_url

    # ------------------------------------------------------------------ clients and tokens

    def client(self, **kwargs: Unpack[ClientSettings]) -> EnterpriseClient:
        """An ``EnterpriseClient`` wired to this sandbox; keyword arguments (``response_format``,
        ``max_retries``, ``timeout``...) pass through and may override the wiring.

        The sandbox is on loopback, so the client reads no proxy from the environment
        (``trust_env=False``) unless told to or given a session of its own."""
        settings: ClientSettings = {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "base_url": self.base_url,
            "auth_url": self.auth_url,
        }
        if "session" not in kwargs:
            settings["trust_env"] = False
        settings.update(kwargs)
        return EnterpriseClient(**settings)

    @property
    def tokens_issued(self) -> int:
        """Tokens issued so far."""
        return self.tokens.issued

    def expire_tokens(self) -> None:
        """Expire every token issued so far: the next request with one of them answers 401."""
        self.tokens.expire_all()
