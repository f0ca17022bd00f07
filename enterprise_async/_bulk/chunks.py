"""Bulk calls that split themselves: one call's items cut into the requests a service accepts.

The spec says how (``Chunking`` on the operation, from ``x-sdk-chunks``): which array is cut, which
arrays are cut in step with it, how many items (or learners times course keys) one request holds,
and whether chunks may be in flight together. This module acts on that description and knows no
operation. It plans the chunks, checks every one before the first is sent, sends each exactly once
through the client's own ``call`` (so retries follow the rules of any call: a POST is resent only
where the server said nothing was done, or nothing reached it), stops starting chunks after one
fails, and merges the answers into one ``BulkResult``.

Nothing ends a call without an account of every item: any exception a chunk raises (a typed error,
or a user's middleware's own) ends in ``IncompleteBulkError``. A cancellation stays a
``CancelledError``, as asyncio requires; ``bulk_progress()`` lets the caller read, after it, what
was applied, what was in flight and what was never sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final, Generic, Literal, TypeVar

from attrs import field, frozen

from .._request.request import PreparedRequest, prepare_request
from .._spec import Chunking, Operation
from .._utils.constants import DEFAULT_MAX_CONCURRENCY
from ..errors import ClientValidationError, EnterpriseError, IncompleteBulkError

if TYPE_CHECKING:
    from .._decoding import Conversion

__all__ = [
    "BulkProgress",
    "BulkResult",
    "Chunk",
    "ChunkOutcome",
    "ChunkState",
    "bulk_progress",
    "plan_chunks",
    "send_in_chunks",
]

T = TypeVar("T")

ChunkState = Literal["succeeded", "failed", "maybe_applied", "not_sent"]
"""What became of a chunk: its answer was a success; it was sent and failed (the error says why,
and whether it may still have been applied: a timeout); it may have been applied, and nothing says
whether (an exception not the SDK's, a middleware's own, or the chunk was in flight when the call
was cancelled); or it was never sent."""

SUCCEEDED: Final = "succeeded"
FAILED: Final = "failed"
MAYBE_APPLIED: Final = "maybe_applied"
NOT_SENT: Final = "not_sent"

SendPrepared = Callable[[PreparedRequest, Mapping[str, Any]], Awaitable[T]]
"""The client's second half of ``call``: send one checked request (with the transport's retry
rules) and decode its answer; given the request and the arguments it was built from."""


@frozen
class Chunk:
    """One request of a bulk call: the items of each array it carries, and where they start in
    the caller's arrays (so ``emails[3]`` of chunk 2 is ``emails[103]`` of the call)."""

    number: int
    """Position among the call's chunks, from 1."""
    items: Mapping[str, tuple[Any, ...]] = field(factory=dict)
    offsets: Mapping[str, int] = field(factory=dict)

    def arguments(self, call: Mapping[str, Any]) -> dict[str, Any]:
        """The call's arguments with the cut arrays replaced by this chunk's share of them."""
        return {**call, **{name: list(values) for name, values in self.items.items()}}


@frozen
class ChunkOutcome(Generic[T]):
    """A chunk and what became of it: its result, or its error, or neither (never sent, or in
    flight when the call was cancelled). The error of a ``maybe_applied`` chunk is whatever was
    raised: a user's middleware may raise its own exceptions."""

    chunk: Chunk
    state: ChunkState
    result: T | None = None
    error: Exception | None = None

    @property
    def number(self) -> int:
        return self.chunk.number

    @property
    def items(self) -> Mapping[str, tuple[Any, ...]]:
        """The items of each cut array this chunk carries (or would have carried)."""
        return self.chunk.items


@frozen
class BulkResult(Generic[T]):
    """The merged answer of a bulk call cut into chunks: every chunk, in order, with its state.

    ``complete`` is True only when every chunk succeeded. ``items(state)`` lists the items of the
    cut array (``field``) by what became of them; ``collect`` and ``total`` merge the chunks'
    results (``collect("created")``: every assignment created; ``total("num_successful_assignments")``).
    """

    operation: str
    field: str
    chunks: tuple[ChunkOutcome[T], ...]

    @property
    def complete(self) -> bool:
        return all(outcome.state == SUCCEEDED for outcome in self.chunks)

    @property
    def succeeded(self) -> tuple[ChunkOutcome[T], ...]:
        return self._in(SUCCEEDED)

    @property
    def failed(self) -> tuple[ChunkOutcome[T], ...]:
        return self._in(FAILED)

    @property
    def maybe_applied(self) -> tuple[ChunkOutcome[T], ...]:
        return self._in(MAYBE_APPLIED)

    @property
    def not_sent(self) -> tuple[ChunkOutcome[T], ...]:
        return self._in(NOT_SENT)

    @property
    def results(self) -> list[T]:
        """The results of the chunks that succeeded, in chunk order."""
        return [outcome.result for outcome in self.succeeded if outcome.result is not None]

    def items(self, state: ChunkState = SUCCEEDED, field: str | None = None) -> list[Any]:
        """The items of ``field`` (the cut array by default) in the chunks of ``state``, in order.

        Items are listed once per chunk that carried them: with course keys cut too, a learner
        appears in each chunk of keys."""
        name = field or self.field
        return [item for outcome in self._in(state) for item in outcome.items.get(name, ())]

    def collect(self, attribute: str) -> list[Any]:
        """The values of ``attribute`` over every result, lists joined (``collect("created")``)."""
        merged: list[Any] = []
        for result in self.results:
            value = getattr(result, attribute)
            if isinstance(value, list):
                merged.extend(value)
            elif value is not None:
                merged.append(value)
        return merged

    def total(self, attribute: str) -> int:
        """``attribute`` summed over every result: numbers added, lists counted."""
        return sum(_count(getattr(result, attribute)) for result in self.results)

    def _in(self, state: ChunkState) -> tuple[ChunkOutcome[T], ...]:
        return tuple(outcome for outcome in self.chunks if outcome.state == state)


def _count(value: Any) -> int:
    if isinstance(value, list):
        return len(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return 0


# ---------------------------------------------------------------------------------- planning


def plan_chunks(chunking: Chunking, arguments: Mapping[str, Any], *, operation: str = "") -> list[Chunk]:
    """The chunks of a call, in order. A call without the cut array (a bulk revoke by filters), or
    with an empty one, is one chunk of the call as it is: its own validation then judges it."""
    values = arguments.get(chunking.field)
    if not isinstance(values, list) or not values:
        return [Chunk(1)]
    aligned = {name: arguments[name] for name in chunking.aligned if arguments.get(name) is not None}
    for name, others in aligned.items():
        if not isinstance(others, list) or len(others) != len(values):
            raise ClientValidationError(
                name,
                f"is cut in step with {chunking.field} (its n-th item belongs to the n-th), so it needs "
                f"as many items: {len(values)}, got {len(others) if isinstance(others, list) else others!r}",
                operation=operation or None,
            )
    cut = {chunking.field: values, **aligned}
    across = arguments.get(chunking.across) if chunking.across else None
    if chunking.across is None or not isinstance(across, list) or not across:
        return _numbered(_slices(cut, len(values), chunking.size, {}))
    return _numbered(_crossed(cut, len(values), chunking.across, across, chunking.size))


def _slices(
    cut: Mapping[str, list[Any]], count: int, size: int, extra: Mapping[str, tuple[Any, ...]]
) -> Iterator[tuple[dict[str, tuple[Any, ...]], dict[str, int]]]:
    for start in range(0, count, max(1, size)):
        stop = min(start + max(1, size), count)
        items = {name: tuple(values[start:stop]) for name, values in cut.items()}
        yield {**items, **extra}, dict.fromkeys(cut, start)


def _crossed(
    cut: Mapping[str, list[Any]], count: int, across_name: str, across: list[Any], size: int
) -> Iterator[tuple[dict[str, tuple[Any, ...]], dict[str, int]]]:
    """Blocks of ``across`` (at most ``size`` each), and for each, slices of the cut arrays small
    enough that their product with the block stays within ``size``."""
    block = min(len(across), max(1, size))
    for start in range(0, len(across), block):
        keys = tuple(across[start : start + block])
        for items, offsets in _slices(cut, count, size // len(keys), {across_name: keys}):
            yield items, {**offsets, across_name: start}


def _numbered(
    planned: Iterable[tuple[dict[str, tuple[Any, ...]], dict[str, int]]],
) -> list[Chunk]:
    return [Chunk(number, items, offsets) for number, (items, offsets) in enumerate(planned, start=1)]


def _materialized(arguments: Mapping[str, Any], chunking: Chunking) -> dict[str, Any]:
    """The call's arguments with every array that may be cut read into a list: a generator or any
    other iterable (the lines of a file) is accepted where the method takes a sequence."""
    names = (chunking.field, *chunking.aligned, *((chunking.across,) if chunking.across else ()))
    materialized = dict(arguments)
    for name in names:
        value = arguments.get(name)
        if isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping)):
            materialized[name] = list(value)
    return materialized


# ---------------------------------------------------------------------------------- checking

_INDEXED = re.compile(r"^(?P<name>\w+)\[(?P<index>\d+)\]")


def _prepared(
    operation: Operation[Any], arguments: Mapping[str, Any], chunk: Chunk, conversion: Conversion
) -> tuple[PreparedRequest, dict[str, Any]]:
    """The chunk's request, checked as any call's before anything is sent; an error names the item
    by its index in the caller's array, not in the chunk."""
    own = chunk.arguments(arguments)
    try:
        return prepare_request(operation, own, conversion), own
    except ClientValidationError as error:
        raise _in_the_call(error, chunk) from None


def _in_the_call(error: ClientValidationError, chunk: Chunk) -> ClientValidationError:
    match = _INDEXED.match(error.field)
    if match is None or match["name"] not in chunk.offsets:
        return error
    index = int(match["index"]) + chunk.offsets[match["name"]]
    field_path = f"{match['name']}[{index}]{error.field[match.end() :]}"
    return ClientValidationError(field_path, error.reason, operation=error.operation)


# ---------------------------------------------------------------------------------- sending


class BulkProgress:
    """What the chunked call made inside ``bulk_progress()`` has done so far, chunk by chunk.

    ``result`` is the call's ``BulkResult`` as it stands: chunks answered (``succeeded``,
    ``failed``), in flight (``maybe_applied``), not yet started (``not_sent``); None before a call
    began. It is what a caller reads after a ``CancelledError`` (which carries no result); after a
    later call it is that call's.
    """

    def __init__(self, on_outcome: Callable[[ChunkOutcome[Any]], None] | None = None) -> None:
        self._on_outcome = on_outcome
        self._operation = ""
        self._field = ""
        self._chunks: tuple[Chunk, ...] = ()
        self._outcomes: dict[int, ChunkOutcome[Any]] = {}

    def __repr__(self) -> str:
        return (
            f"<BulkProgress {self._operation or 'idle'}: {len(self._outcomes)} of {len(self._chunks)} chunks>"
        )

    @property
    def result(self) -> BulkResult[Any] | None:
        if not self._chunks:
            return None
        outcomes = (
            self._outcomes.get(chunk.number) or ChunkOutcome(chunk, NOT_SENT) for chunk in self._chunks
        )
        return BulkResult(self._operation, self._field, tuple(outcomes))

    def _began(self, operation: str, field: str, chunks: Sequence[Chunk]) -> None:
        self._operation, self._field, self._chunks, self._outcomes = operation, field, tuple(chunks), {}

    def _noted(self, outcome: ChunkOutcome[Any]) -> None:
        self._outcomes[outcome.number] = outcome
        if self._on_outcome is not None and outcome.state != MAYBE_APPLIED:
            self._on_outcome(outcome)


_PROGRESS: ContextVar[BulkProgress | None] = ContextVar("enterprise_async_bulk_progress", default=None)


@contextlib.contextmanager
def bulk_progress(
    on_outcome: Callable[[ChunkOutcome[Any]], None] | None = None,
) -> Iterator[BulkProgress]:
    """Follow the chunked calls made inside the block: ``with bulk_progress() as progress:``, and
    after a cancellation ``progress.result`` says what was applied before it. ``on_outcome`` is
    called with each chunk's outcome as it is answered (succeeded or failed): a job queued, say."""
    progress = BulkProgress(on_outcome)
    token = _PROGRESS.set(progress)
    try:
        yield progress
    finally:
        _PROGRESS.reset(token)


async def send_in_chunks(
    send_prepared: SendPrepared[T],
    operation: Operation[T],
    arguments: Mapping[str, Any],
    *,
    conversion: Conversion,
    concurrency: object = DEFAULT_MAX_CONCURRENCY,
    extra_body: Mapping[str, Any] | None = None,
) -> BulkResult[T]:
    """Run ``operation`` over any number of items, in the chunks its spec allows (each chunk's
    request checked, a model in it written by ``conversion``); raise ``IncompleteBulkError``
    (carrying the merged result) when a chunk failed or raised."""
    chunking = operation.chunking
    if chunking is None:
        raise TypeError(f"{operation.name} is not cut into chunks: its spec has no x-sdk-chunks")
    _check_extra_body(chunking, extra_body, operation.name)
    arguments = _materialized(arguments, chunking)
    chunks = plan_chunks(chunking, arguments, operation=operation.name)
    requests = {chunk.number: _prepared(operation, arguments, chunk, conversion) for chunk in chunks}
    progress = _PROGRESS.get() or BulkProgress()
    progress._began(operation.name, chunking.field, chunks)

    async def send(chunk: Chunk) -> ChunkOutcome[T]:
        progress._noted(ChunkOutcome(chunk, MAYBE_APPLIED))  # in flight: it may be applied from now on
        outcome = await _outcome(send_prepared, chunk, requests.pop(chunk.number))
        progress._noted(outcome)
        return outcome

    outcomes = await _send_all(send, chunks, _width(chunking, concurrency))
    result = BulkResult(operation.name, chunking.field, tuple(outcomes))
    if not result.complete:
        raise _incomplete(result)
    return result


async def _outcome(
    send_prepared: SendPrepared[T], chunk: Chunk, request: tuple[PreparedRequest, dict[str, Any]]
) -> ChunkOutcome[T]:
    """What became of one chunk: any exception is its outcome, so that the call can account for
    every item; an exception not the SDK's (a middleware's own) cannot say whether the chunk was
    applied. A cancellation is not caught: it stops the call."""
    try:
        result = await send_prepared(*request)
    except EnterpriseError as error:
        return ChunkOutcome(chunk, FAILED, error=error)
    except Exception as error:  # a user's middleware raises what it likes
        return ChunkOutcome(chunk, MAYBE_APPLIED, error=error)
    return ChunkOutcome(chunk, SUCCEEDED, result=result)


def _check_extra_body(chunking: Chunking, extra_body: Mapping[str, Any] | None, operation: str) -> None:
    """Refuse ``extra_body`` fields the chunking owns: one would replace every chunk's share of
    the items with the same value (sent once per chunk, while the result counted the items)."""
    owned = {chunking.field, *chunking.aligned, *((chunking.across,) if chunking.across else ())}
    named = sorted(owned.intersection(extra_body or {}))
    if named:
        raise ClientValidationError(
            "extra_body",
            f"may not set {', '.join(named)}: the call cuts it into chunks; pass it as an argument",
            operation=operation,
        )


def _width(chunking: Chunking, concurrency: object) -> int:
    """Chunks in flight at once: one where the service locks; else the client's concurrency (the
    transport still bounds what is in flight, and draws every request from the rate budget)."""
    if not chunking.concurrent:
        return 1
    return max(1, concurrency) if isinstance(concurrency, int) else DEFAULT_MAX_CONCURRENCY


async def _send_all(
    send: Callable[[Chunk], Awaitable[ChunkOutcome[T]]], chunks: Sequence[Chunk], width: int
) -> list[ChunkOutcome[T]]:
    """Send the chunks, at most ``width`` in flight, in order of their numbers; once one has failed
    no further chunk is started (those in flight finish), and the rest are marked never sent."""
    done: dict[int, ChunkOutcome[T]] = {}
    waiting = iter(chunks)
    running: set[asyncio.Future[ChunkOutcome[T]]] = set()
    failed = False
    try:
        while True:
            while not failed and len(running) < width and (chunk := next(waiting, None)) is not None:
                running.add(asyncio.ensure_future(send(chunk)))
            if not running:
                break
            finished, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in finished:
                outcome = task.result()
                done[outcome.number] = outcome
                failed = failed or outcome.state in (FAILED, MAYBE_APPLIED)
    finally:
        await _cancelled(running)
    return [done.get(chunk.number) or ChunkOutcome(chunk, NOT_SENT) for chunk in chunks]


async def _cancelled(running: set[asyncio.Future[Any]]) -> None:
    """Cancel what is still in flight (the caller was cancelled) and wait for it to stop."""
    for task in running:
        task.cancel()
    if running:
        await asyncio.gather(*running, return_exceptions=True)


def _incomplete(result: BulkResult[Any]) -> IncompleteBulkError:
    first = min((*result.failed, *result.maybe_applied), key=lambda outcome: outcome.number)
    sent = len(first.items.get(result.field, ()))
    why = f"{type(first.error).__name__}: {first.error}" if first.state == MAYBE_APPLIED else f"{first.error}"
    message = (
        f"{result.operation}: chunk {first.number} of {len(result.chunks)} ({sent} {result.field}) failed: "
        f"{why}; {len(result.succeeded)} chunk(s) succeeded, {len(result.failed)} failed, "
        f"{len(result.maybe_applied)} maybe applied, {len(result.not_sent)} never sent"
    )
    error = IncompleteBulkError(message, result=result, chunk=first.number)
    error.__cause__ = first.error
    return error
