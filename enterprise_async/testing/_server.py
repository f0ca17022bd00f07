"""The HTTP side of the sandbox: one aiohttp handler that logs, injects faults, authenticates,
routes, and renders every answer as JSON (``Accept: application/json``) or DRF XML (anything else).

Routing is one compiled pattern per operation of the spec (``_registry``), matched on the raw
path, so a course run key such as ``course-v1:MITx+CS.0.7x+1T2026`` reaches its handler as it was
sent, and so that unknown paths (404), wrong methods (405) and missing tokens (401, for operations
whose ``security`` asks for one) answer in the API's own format.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import parse_qsl

import orjson
from aiohttp import web

from .._generated.operations import REQUEST_ID_HEADERS
from .._utils.xml import render_drf_xml
from ._call import Call
from ._canned import CannedAnswers
from ._edit_requests import EDITS_PATH, catalog_edit
from ._endpoints import Endpoints
from ._faults import Fault, FaultInjector
from ._log import RequestLog
from ._registry import GENERATED_SPEC, Route, SpecTable
from ._replies import ApiError, Reply
from ._services import NOT_ACCEPTABLE, Services
from ._throttle import Throttle
from ._tokens import AuthFailure, TokenIssuer

__all__ = ["TOKEN_PATH", "SandboxServer"]

TOKEN_PATH: Final = "/oauth2/v1/access_token"
JSON: Final = "application/json"
XML: Final = "application/xml; charset=utf-8"

_UNANSWERED: Final = frozenset({"drop", "truncated"})
_MATCHES_KEPT: Final = 1024
"""Routed paths kept (``SandboxServer._match``)."""
_GATEWAY_PAGE: Final = (
    "<!DOCTYPE html><html><head><title>{status} {reason}</title></head>"
    "<body><center><h1>{status} {reason}</h1></center><hr><center>nginx</center></body></html>"
)


class SandboxServer:
    """The aiohttp application of one sandbox, over its endpoints, tokens, faults and log.

    ``spec`` is the operation table it serves (the generated one by default): every operation is
    routed, to its stateful handler or to an answer synthesized from its response schemas.
    """

    def __init__(
        self,
        endpoints: Endpoints,
        *,
        tokens: TokenIssuer,
        faults: FaultInjector,
        log: RequestLog,
        spec: SpecTable = GENERATED_SPEC,
        throttle: Throttle | None = None,
        services: Services | None = None,
    ) -> None:
        self.endpoints = endpoints
        self.services = services or Services("reference", {}, {}, endpoints.data, tokens.customer_uuid)
        """How the services behind the gateway answer (nothing of it under the reference profile)."""
        self.throttle = throttle
        self.tokens = tokens
        self.faults = faults
        self.log = log
        self._routes: list[Route] = endpoints.routes(spec)
        self._matched: dict[tuple[str, str], tuple[Route | list[str], str]] = {}
        self.canned = CannedAnswers(route.operation for route in self._routes)
        """Bodies served for an operation in place of its handler's (``Sandbox.canned``)."""
        self._next_host = endpoints.options.next_host.rstrip("/") if endpoints.options.next_host else None

    def application(self) -> web.Application:
        """A fresh aiohttp application serving every path through this server."""
        app = web.Application(client_max_size=8 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self.handle)
        return app

    # ------------------------------------------------------------------ one request

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """Answer one request: fault, authentication, routing, rendering; and log it."""
        started = time.monotonic()
        body = await request.read() if request.can_read_body else b""
        path = request.rel_url.raw_path
        fault = self.faults.pick(request.method, path)
        if self.throttle is not None and (fault is None or fault.kind == "latency"):
            # A slow answer is still counted, and refused at once past the limit, as a service
            # throttles before its view runs.
            fault = self.throttle.pick(path) or fault
        status: int | None = None
        try:
            response = await self._respond(request, body, path, fault)
            if not response.prepared and REQUEST_ID_HEADERS:  # answers name themselves, as the gateway's do
                response.headers.setdefault(REQUEST_ID_HEADERS[0], str(uuid.uuid4()))
            status = None if fault is not None and fault.kind in _UNANSWERED else response.status
            return response
        finally:
            self.log.record(
                method=request.method,
                path=path,
                query=tuple(request.query.items()),
                headers=request.headers,
                body=body,
                status=status,
                fault=fault.name if fault else None,
                started=started,
                operation=self._operation(request.method, path) if self.log.enabled else None,
            )

    async def _respond(
        self, request: web.Request, body: bytes, path: str, fault: Fault | None
    ) -> web.StreamResponse:
        if fault is not None and fault.kind == "latency":
            await asyncio.sleep(fault.seconds)
        if fault is not None and fault.kind == "drop":
            return _drop(request)
        wants_json = JSON in request.headers.get("Accept", "")
        if fault is not None and fault.kind == "status":
            return self._fault_response(fault, wants_json)
        response = self._answer(request, body, path, wants_json)
        if fault is None or fault.kind == "latency":
            return response
        return await _misbehave(request, response, fault)

    def _answer(self, request: web.Request, body: bytes, path: str, wants_json: bool) -> web.Response:
        if path == TOKEN_PATH:
            return self._token(request, body)
        if path == EDITS_PATH:
            return render(self._edit(request, body), True)
        operation = self._operation(request.method, path)
        media = self.services.media(operation, request.headers.get("Accept", "")) if operation else None
        echoed = self.services.request_id(operation, request.headers.get("X-Request-ID"))
        if operation is not None and media is None:  # DRF negotiates before it authenticates
            return render(Reply({"detail": NOT_ACCEPTABLE}, 406, echoed), True)
        try:
            reply = self._dispatch(request, body, path)
        except ApiError as error:
            reply = error.reply
        if echoed:
            reply = Reply(reply.data, reply.status, {**reply.headers, **echoed})
        if operation is not None and reply.status == 200 and self.services.streams(operation, media or ""):
            body, headers = self.services.csv(operation, reply.data)
            return web.Response(status=200, body=body, headers={**reply.headers, **headers, "Vary": "Accept"})
        return render(reply, wants_json if media is None else "xml" not in media)  # a CSV view's errors: JSON

    def _dispatch(self, request: web.Request, body: bytes, path: str) -> Reply:
        found, path = self._match(request.method, path)
        if isinstance(found, Route):
            if found.authenticated:
                self._authenticate(request, found.operation)
            match = found.pattern.match(path)
            assert match is not None
            params = found.params(match)
            canned = self.canned.take(found.operation, params)
            if canned is not None:
                return canned
            call = self._call(request, body, request.rel_url.raw_path, params)
            return found.handler(self.services.check(found.operation, call))
        if found:
            detail = f'Method "{request.method}" not allowed.'
            raise ApiError(405, {"detail": detail}, {"Allow": ", ".join([*found, "OPTIONS"])})
        raise ApiError(404, {"detail": "Not found."})

    def route(self, method: str, path: str) -> Route | list[str]:
        """The route serving ``method`` on the raw ``path``; else the methods the path allows
        (none: an unknown path)."""
        return self._match(method, path)[0]

    def _match(self, method: str, path: str) -> tuple[Route | list[str], str]:
        """The route of ``path`` and the form of the path it matched: as sent, or, where the
        services answer (their Django routes end in a slash), with the trailing slash toggled
        (kept for the latest paths: a request is routed three times, a listing's pages share a path)."""
        key = (method, path)
        found = self._matched.get(key)
        if found is None:
            if len(self._matched) >= _MATCHES_KEPT:
                self._matched.clear()
            found = self._matched[key] = self._match_now(method, path)
        return found

    def _match_now(self, method: str, path: str) -> tuple[Route | list[str], str]:
        found = self._route(method, path)
        if found or not self.services.active:
            return found, path
        other = path[:-1] if path.endswith("/") else f"{path}/"
        return self._route(method, other), other

    def _route(self, method: str, path: str) -> Route | list[str]:
        allowed: list[str] = []
        for route in self._routes:
            if route.pattern.match(path) is None:
                continue
            if route.method == method:
                return route
            allowed.append(route.method)
        return allowed

    def _operation(self, method: str, path: str) -> str | None:
        found = self.route(method, path)
        return found.operation if isinstance(found, Route) else None

    def _authenticate(self, request: web.Request, operation: str) -> None:
        failure = self.tokens.check(request.headers.get("Authorization"))
        if failure is None:
            return
        body = failure.body
        worded = self.services.expired(operation) if failure.expired else None
        if worded is not None:
            body = {**body, "detail": worded}
        raise ApiError(failure.status, body, {"WWW-Authenticate": 'JWT realm="api"'})

    def _edit(self, request: web.Request, body: bytes) -> Reply:
        """The sandbox's own endpoint for catalog edits (``_edit_requests``): a POST with a token."""
        if request.method != "POST":
            return Reply({"detail": f'Method "{request.method}" not allowed.'}, 405, {"Allow": "POST"})
        failure = self.tokens.check(request.headers.get("Authorization"))
        if failure is not None:
            return Reply(failure.body, failure.status, {"WWW-Authenticate": 'JWT realm="api"'})
        data = self.endpoints.data
        try:
            return catalog_edit(data.catalog_edits, body, lambda uuid: data.customer(uuid) is not None)
        except ApiError as error:
            return error.reply

    def _call(self, request: web.Request, body: bytes, path: str, params: Mapping[str, str]) -> Call:
        origin = self._next_host or f"{request.scheme}://{request.host}"
        return Call(
            params=params,
            query=request.query,
            body=body,
            content_type=request.headers.get("Content-Type", ""),
            origin=origin,
            path=path,
            accept=request.headers.get("Accept", ""),
        )

    def _token(self, request: web.Request, body: bytes) -> web.Response:
        """The token issuer: form-encoded client credentials in, JSON out (whatever ``Accept`` says)."""
        if request.method != "POST":
            return render(
                Reply({"detail": f'Method "{request.method}" not allowed.'}, 405, {"Allow": "POST"}), True
            )
        media = request.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if media != "application/x-www-form-urlencoded":
            failure = AuthFailure(
                400, {"error": "invalid_request", "error_description": "Send a form-encoded body."}
            )
            return render(Reply(failure.body, failure.status), True)
        form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
        granted = self.tokens.grant(form)
        if isinstance(granted, AuthFailure):
            return render(Reply(granted.body, granted.status, {"Cache-Control": "no-store"}), True)
        return render(Reply(granted, 200, {"Cache-Control": "no-store", "Pragma": "no-cache"}), True)

    def _fault_response(self, fault: Fault, wants_json: bool) -> web.Response:
        if fault.status == 429:
            wait = fault.retry_after or "1"
            detail = f"Request was throttled. Expected available in {wait} seconds."
            return render(Reply({"detail": detail}, 429, {"Retry-After": wait}), wants_json)
        if fault.status == 500:
            return render(Reply({"detail": "A server error occurred."}, 500), wants_json)
        reason = {502: "Bad Gateway", 503: "Service Temporarily Unavailable", 504: "Gateway Time-out"}
        text = _GATEWAY_PAGE.format(status=fault.status, reason=reason.get(fault.status, "Server Error"))
        return web.Response(status=fault.status, text=text, content_type="text/html")


def render(reply: Reply, wants_json: bool) -> web.Response:
    """A ``Reply`` as JSON or DRF XML; an empty body when its data is None."""
    headers = dict(reply.headers)
    headers["Vary"] = "Accept"
    if reply.data is None:
        return web.Response(status=reply.status, headers=headers)
    if wants_json:
        headers["Content-Type"] = JSON
        return web.Response(status=reply.status, body=orjson.dumps(reply.data), headers=headers)
    headers["Content-Type"] = XML
    return web.Response(status=reply.status, body=render_drf_xml(reply.data), headers=headers)


def _drop(request: web.Request) -> web.Response:
    """Abort the connection. The returned response is never sent: aiohttp finds the transport
    closed and lets the request go as a client disconnection, without logging an error."""
    transport = request.transport
    if transport is not None:
        transport.abort()
    return web.Response(status=500)


async def _misbehave(request: web.Request, response: web.Response, fault: Fault) -> web.StreamResponse:
    """Send a real answer badly: cut short (malformed), cut off (truncated), or late (slow)."""
    body = bytes(response.body) if isinstance(response.body, (bytes, bytearray)) else b""
    if fault.kind == "malformed":
        return web.Response(
            status=response.status, body=body[: len(body) // 2], headers=_headers_of(response)
        )
    stream = web.StreamResponse(status=response.status, headers=_headers_of(response))
    stream.content_length = len(body)
    await stream.prepare(request)
    if fault.kind == "truncated":
        await stream.write(body[: len(body) // 2])
        _drop(request)
        return stream
    await asyncio.sleep(fault.seconds)
    with contextlib.suppress(ConnectionError):
        await stream.write(body)
        await stream.write_eof()
    return stream


def _headers_of(response: web.Response) -> dict[str, Any]:
    return {name: value for name, value in response.headers.items() if name.lower() != "content-length"}
