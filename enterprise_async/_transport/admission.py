"""An attempt's place among the client's requests: the rate budget and the bound on requests in flight.

``async with Admission(...) as place:`` around one exchange (the middleware chain and the wire)
waits for the budget's turn (after a pause, one probe goes first), takes a place within
``max_concurrency``, draws from the budget right before sending (no burst of draws queued behind
the bound), and makes the attempt's ``RequestTrace`` the current one. On the way out the place is
given back, an adaptive bound hears how the attempt went, the answer is logged (DEBUG) and a
client-wide "try later" pauses the whole budget. Its OpenTelemetry span (``_transport.telemetry``) covers
the exchange alone, not the wait for a place.

The token issuer's requests take a place in the bound but draw nothing from the API's budget, and
steer no adaptive bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from types import TracebackType

from .._request.options import RequestTrace, reset_current_trace, set_current_trace
from .._request.request import HTTPRequest
from .._request.retry import parse_retry_after
from .._response.responses import RawResponse
from .._utils.constants import DEFAULT_PAUSE, MAX_RETRY_AFTER
from ..errors import APIConnectionError, APITimeoutError
from .concurrency import ConcurrencyLimit, Ticket
from .rate_limit import RateBudget
from .telemetry import AttemptSpan, Telemetry
from .wire import Attempt

__all__ = ["Admission", "means_pause"]

logger = logging.getLogger("enterprise_async")


class Admission:
    """One attempt's place; the exchange it admits sets ``answer`` (left None: no answer)."""

    __slots__ = (
        "_attempt",
        "_budget",
        "_concurrency",
        "_pause_statuses",
        "_sent_at",
        "_span",
        "_telemetry",
        "_ticket",
        "_trace",
        "_turn",
        "admitted",
        "answer",
    )

    def __init__(
        self,
        attempt: Attempt,
        concurrency: ConcurrencyLimit,
        budget: RateBudget | None,
        pause_statuses: frozenset[int],
        telemetry: Telemetry,
    ) -> None:
        self._attempt = attempt
        self._telemetry = telemetry
        self._span: AttemptSpan | None = None
        self._concurrency = concurrency
        self._budget = budget if attempt.request.authenticated else None
        self._pause_statuses = pause_statuses
        self._turn: contextlib.AbstractAsyncContextManager[None] | None = None
        self._ticket = Ticket(0)
        self._sent_at = 0.0
        self._trace: contextvars.Token[RequestTrace | None] | None = None
        self.answer: RawResponse | None = None
        self.admitted = False
        """Whether the attempt got its place and draw (and so may have been sent)."""

    async def __aenter__(self) -> Admission:
        if self._budget is not None:
            self._turn = self._budget.attempt()
            await self._turn.__aenter__()
        try:
            self._ticket = self._concurrency.enter_now() or await self._concurrency.enter()
        except BaseException:
            await self._end_turn()
            raise
        try:
            if self._budget is not None:
                await _draw(self._budget, self._attempt)  # right before sending: no burst of draws
        except BaseException:
            self._concurrency.leave()
            await self._end_turn()
            raise
        self._sent_at = time.perf_counter()
        self._trace = set_current_trace(self._attempt.trace)
        self._span = self._telemetry.attempt(self._attempt.request, self._attempt.retries)
        self.admitted = True
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._trace is not None:
            reset_current_trace(self._trace)
        elapsed = time.perf_counter() - self._sent_at
        if self._span is not None:
            self._span.end(self.answer, error)
        self._concurrency.leave()
        try:
            await self._observe(error, elapsed)
            if self.answer is not None:
                _log_answer(self._attempt, self.answer, elapsed * 1000)
                await self._pause_if_asked(self.answer)
        finally:
            await self._end_turn()

    async def _observe(self, error: BaseException | None, elapsed: float) -> None:
        """The API's answers, or their absence, steer an adaptive bound; the token issuer's do not,
        and a fixed bound hears nothing."""
        request = self._attempt.request
        if not (self._concurrency.adaptive and request.authenticated):
            return
        if self.answer is None and not isinstance(error, APIConnectionError):
            return  # no exchange took place (a middleware's own error): nothing to hear
        status = self.answer.status if self.answer is not None else None
        await self._concurrency.observe(self._ticket, status, elapsed, request.operation or "undocumented")

    async def _pause_if_asked(self, answer: RawResponse) -> None:
        """A client-wide "try later" pauses every attempt sharing the budget."""
        if self._budget is None or not means_pause(self._attempt.request, answer, self._pause_statuses):
            return
        wait = parse_retry_after(answer.headers.get("Retry-After"))
        await self._budget.pause(min(wait if wait is not None else DEFAULT_PAUSE, MAX_RETRY_AFTER))

    async def _end_turn(self) -> None:
        if self._turn is not None:
            await self._turn.__aexit__(None, None, None)


async def _draw(budget: RateBudget, attempt: Attempt) -> None:
    """Draw from the rate budget, waiting no longer than the request's timeout.

    A budget of "1/hour" would otherwise hold the second call for an hour, whatever its
    timeout; the wait is not retried (another wait would end the same way).
    """
    request, limit = attempt.request, attempt.timeout.total
    try:
        await asyncio.wait_for(budget.draw(), limit)
    except asyncio.TimeoutError:
        raise APITimeoutError(
            f"{request.method} {request.path} waited longer than its timeout ({limit:g} s) for "
            "the rate budget (rate_limit); nothing was sent",
            method=request.method,
            path=request.path,
        ) from None


def _log_answer(attempt: Attempt, raw: RawResponse, elapsed_ms: float) -> None:
    """One DEBUG record per answer, with the id its request was sent with (and the one the answer
    gave itself, the gateway's, when it named another)."""
    if not logger.isEnabledFor(logging.DEBUG):
        return
    request, trace = attempt.request, attempt.trace
    request_id = raw.request_id
    logger.debug(
        "%s %s -> %d in %.1f ms (%s)%s",
        request.method,
        request.path,
        raw.status,
        elapsed_ms,
        trace,
        f" request id {request_id}" if request_id else "",
        extra={
            "method": request.method,
            "path": request.path,
            "status": raw.status,
            "attempt": trace.attempt,
            "operation": trace.operation,
            "page": trace.page,
            "request_id": request_id,
            "response_request_id": raw.response_request_id,
        },
    )


def means_pause(request: HTTPRequest, response: RawResponse, pause_statuses: frozenset[int]) -> bool:
    """Whether an answer says "try later" to every request of the client, not just this one.

    Those are the spec's client-wide retry statuses (``x-sdk-retry-statuses``: 429, the throttle
    counts per user). A status only one operation retries (``x-sdk-retry``: license assignment's
    423, a lock on one subscription plan) is retried by that request alone: pausing the client
    would stall calls the lock does not concern.
    """
    return response.status in pause_statuses and request.authenticated
