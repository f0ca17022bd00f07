"""An attempt's place among the client's requests: the rate budget and the bound on requests in flight.

``admitted(attempt, exchange, ...)`` runs one exchange (the middleware chain and the wire) once the
attempt has its place: it waits for the budget's turn (after a pause, one probe goes first), takes a
place within ``max_concurrency``, draws from the budget right before sending (no burst of draws
queued behind the bound), and makes the attempt's ``RequestTrace`` the current one. Afterwards the
place is given back, an adaptive bound hears how the attempt went, the answer is logged (DEBUG) and
a client-wide "try later" pauses the whole budget. Its OpenTelemetry span (``_transport.telemetry``)
covers the exchange alone, not the wait for a place.

The token issuer's requests take a place in the bound but draw nothing from the API's budget, and
steer no adaptive bound.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from .._request.options import reset_current_trace, set_current_trace
from .._request.request import HTTPRequest
from .._response.responses import RawResponse
from .._utils.constants import DEFAULT_PAUSE, MAX_RETRY_AFTER
from ..errors import APIConnectionError, APITimeoutError
from .concurrency import ConcurrencyLimit, Ticket
from .rate_limit import RateBudget
from .telemetry import Telemetry
from .wire import Attempt

__all__ = ["Exchange", "admitted", "means_pause"]

logger = logging.getLogger("enterprise_async")

Exchange = Callable[[Attempt], Awaitable[RawResponse]]
"""What sends an admitted attempt: through the middleware to the wire, or to the wire alone."""


def admitted(
    attempt: Attempt,
    exchange: Exchange,
    concurrency: ConcurrencyLimit,
    budget: RateBudget | None,
    pause_statuses: frozenset[int],
    telemetry: Telemetry,
) -> Awaitable[RawResponse]:
    """The answer of ``exchange(attempt)``, sent once the attempt has its place: its turn in the
    budget (the API's requests alone; after a pause, one probe goes first), a place within the
    bound, and its draw from the budget right before sending (no burst of draws queued behind the
    bound). ``attempt.admitted`` says whether it got them (and so may have been sent). The
    attempt's trace is the current one and its span open while the exchange runs; then the place
    is given back, and the answer heard, logged, and obeyed when it pauses the budget."""
    attempt.admitted = False
    if budget is None or not attempt.request.authenticated:
        return _exchanged(attempt, exchange, concurrency, None, pause_statuses, telemetry)
    return _in_turn(attempt, exchange, concurrency, budget, pause_statuses, telemetry)


async def _in_turn(
    attempt: Attempt,
    exchange: Exchange,
    concurrency: ConcurrencyLimit,
    budget: RateBudget,
    pause_statuses: frozenset[int],
    telemetry: Telemetry,
) -> RawResponse:
    """``_exchanged`` within the attempt's turn in the budget."""
    async with budget.attempt():
        return await _exchanged(attempt, exchange, concurrency, budget, pause_statuses, telemetry)


async def _exchanged(
    attempt: Attempt,
    exchange: Exchange,
    concurrency: ConcurrencyLimit,
    budget: RateBudget | None,
    pause_statuses: frozenset[int],
    telemetry: Telemetry,
) -> RawResponse:
    """The exchange of an attempt whose turn came (``budget``: the one it draws from, if any)."""
    request = attempt.request
    ticket = concurrency.enter_now() or await concurrency.enter()
    if budget is not None:
        try:
            await _draw(budget, attempt)
        except BaseException:
            concurrency.leave()
            raise
    attempt.admitted = True
    sent_at = time.perf_counter()
    trace = set_current_trace(attempt.trace)
    span = telemetry.attempt(request, attempt.retries)
    answer: RawResponse | None = None
    failure: BaseException | None = None
    try:
        answer = await exchange(attempt)
        return answer
    except BaseException as error:
        failure = error
        raise
    finally:
        reset_current_trace(trace)
        elapsed = time.perf_counter() - sent_at
        if span is not None:
            span.end(answer, failure)
        concurrency.leave()
        if concurrency.adaptive and request.authenticated:
            await _observe(concurrency, ticket, request, answer, failure, elapsed)
        if answer is not None:
            if logger.isEnabledFor(logging.DEBUG):
                _log_answer(attempt, answer, elapsed * 1000)
            if budget is not None and means_pause(request, answer, pause_statuses):
                wait = answer.retry_after
                await budget.pause(min(wait if wait is not None else DEFAULT_PAUSE, MAX_RETRY_AFTER))


async def _observe(
    concurrency: ConcurrencyLimit,
    ticket: Ticket,
    request: HTTPRequest,
    answer: RawResponse | None,
    failure: BaseException | None,
    elapsed: float,
) -> None:
    """The API's answers, or their absence, steer an adaptive bound (the token issuer's do not,
    and a fixed bound hears nothing: the caller asks only an adaptive one, of the API's requests)."""
    if answer is None and not isinstance(failure, APIConnectionError):
        return  # no exchange took place (a middleware's own error): nothing to hear
    status = answer.status if answer is not None else None
    await concurrency.observe(ticket, status, elapsed, request.operation or "undocumented")


async def _draw(budget: RateBudget, attempt: Attempt) -> None:
    """Draw from the rate budget, waiting no longer than the attempt's ``Timeout.rate_wait``.

    None waits as long as the budget needs. The other limits count from sending: a budget of
    several windows (``"18/second; 360/minute"``) may hold a request for the next minute, longer
    than the attempt's ``total``, and that pacing is what ``rate_limit`` asked for. A wait cut
    short by ``rate_wait`` is not retried: it is the caller's own bound on waiting.
    """
    request, limit = attempt.request, attempt.rate_wait
    if limit is None:
        await budget.draw()
        return
    try:
        await asyncio.wait_for(budget.draw(), limit)
    except asyncio.TimeoutError:
        raise APITimeoutError(
            f"{request.where} waited longer than its rate wait limit ({limit:g} s, "
            "Timeout(rate_wait=)) for the rate budget (rate_limit); nothing was sent",
            method=request.method,
            path=request.path,
        ) from None


def _log_answer(attempt: Attempt, raw: RawResponse, elapsed_ms: float) -> None:
    """One DEBUG record per answer, with the id its request was sent with (and the one the answer
    gave itself, the gateway's, when it named another); the caller asks when DEBUG is on."""
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
