"""Following a job to its results file: poll its status for a link, then read the file behind it.

A bulk enrollment is queued, not done, when its request returns: the service writes a CSV of
what became of each learner and course, puts it on a storage host, and its status answers a
presigned link to it (``x-sdk-job-results`` in the spec says which field holds the link, which
columns the file has and which model a row is). The link carries its own signature and lives a
few minutes, so the file is read at once, with no token (the token belongs to the API's hosts
alone), and a link that expired is asked for again through the status.
"""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import aiohttp
from yarl import URL

from .._decoding import Conversion
from .._spec import JobResults, Operation
from .._transport.wire import read_bounded
from .._utils.redaction import shown_url
from ..errors import (
    APIConnectionError,
    APITimeoutError,
    ClientValidationError,
    JobResultsDownloadError,
    JobResultsUnavailableError,
    ResponseDecodeError,
)

if TYPE_CHECKING:
    from .._request.options import ClientOptions
    from .resource import OperationCaller

__all__ = [
    "DEFAULT_POLL_INTERVAL",
    "DEFAULT_RESULTS_TIMEOUT",
    "follow_job_results",
    "read_presigned",
    "read_rows",
]

DEFAULT_RESULTS_TIMEOUT: Final = 600.0
"""Seconds ``results()`` waits for a job's file by default (a large job takes minutes)."""
DEFAULT_POLL_INTERVAL: Final = 5.0
"""Seconds between two status requests of ``results()`` by default."""
EXPIRED_LINK_STATUS: Final = 403
"""What a storage host (S3) answers a presigned link past its lifetime: AccessDenied."""


async def follow_job_results(
    client: OperationCaller,
    operation: Operation[Any],
    arguments: Mapping[str, Any],
    *,
    timeout: float,
    poll_interval: float,
) -> list[Any]:
    """Ask ``operation`` (a job's status) until it gives a link, then read the rows behind it.

    Raises ``JobResultsUnavailableError`` when no link could be read within ``timeout`` seconds.
    """
    spec = operation.job_results
    if spec is None:
        raise TypeError(f"{operation.name} reports on no job with a results file")
    _check_seconds("timeout", timeout)
    _check_seconds("poll_interval", poll_interval)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    links = 0
    fresh = False  # the link in hand replaced one that expired: read it without waiting
    while True:
        status = await client.call(operation, arguments)
        link = getattr(status, spec.link, None)
        expired_first = False
        if link:
            links += 1
            body = await client.read_link(str(link))
            if body is not None:
                where = shown_url(URL(str(link), encoded=True))
                return read_rows(spec, body.decode("utf-8-sig"), client.conversion, operation.name, where)
            expired_first = not fresh  # a new link at once; a second one expired too: wait
        fresh = expired_first
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise _unavailable(spec, arguments, timeout, links)
        if not fresh:
            await asyncio.sleep(min(poll_interval, remaining))


def _check_seconds(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ClientValidationError(name, f"must be a positive number of seconds, got {value!r}")


def _unavailable(
    spec: JobResults, arguments: Mapping[str, Any], timeout: float, links: int
) -> JobResultsUnavailableError:
    job = str(list(arguments.values())[-1])
    if links:
        why = f"each of its {links} results link(s) had expired when read"
    else:
        why = (
            f"its status gave no results link ({spec.link}): the job may still be running, or the "
            "service may have no results storage configured, in which case no link will ever come"
        )
    message = f"job {job}: no results within {timeout:g} s; {why}"
    return JobResultsUnavailableError(message, job=job, links=links)


async def read_presigned(
    session: aiohttp.ClientSession, link: str, options: ClientOptions, *, proxy: str | None = None
) -> bytes | None:
    """The body behind a presigned link, or None when the link has expired.

    The request carries no ``Authorization`` header: the link is its own credential, and the
    token is never sent to any host but the API's. Errors name the host and path, never the
    link's query (its signature)."""
    url = URL(link, encoded=True)
    if url.scheme not in ("http", "https") or not url.host:
        raise JobResultsDownloadError(f"the results link is not an http(s) URL (host {url.host!r})")
    where = shown_url(url)
    timeout = options.timeout.to_aiohttp()
    try:
        async with session.get(url, timeout=timeout, proxy=proxy, allow_redirects=False) as response:
            if response.status == EXPIRED_LINK_STATUS:
                return None
            if response.status >= 300:
                raise JobResultsDownloadError(
                    f"the storage host answered {response.status} for {where}", status=response.status
                )
            return await read_bounded(response, limit=options.max_response_bytes, method="GET", url=url)
    except (asyncio.TimeoutError, aiohttp.ServerTimeoutError):
        raise APITimeoutError(f"reading the results file at {where} timed out") from None
    except aiohttp.ClientError as error:
        failure = type(error).__name__
        raise APIConnectionError(f"reading the results file at {where} failed: {failure}") from None


def read_rows(
    spec: JobResults, text: str, conversion: Conversion, operation: str = "", where: str | None = None
) -> list[Any]:
    """The rows of a results file, as ``spec.row_model``s (decoded by ``conversion``) in the file's order.

    The header row names the columns (``spec.columns``: header, field); a column the spec does not
    know is kept under its header (in the model's ``extra``). A file without one of the spec's
    columns raises ``ResponseDecodeError``.
    """
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None:
        return []
    names = dict(spec.columns)
    missing = [column for column in names if column not in header]
    if missing:
        file = f"the results file at {where}" if where else "the results file"
        raise ResponseDecodeError(f"{operation}: {file} lacks the column(s) {', '.join(missing)}")
    fields = [names.get(column, column) for column in header]
    model = spec.row_model
    return [conversion.from_dict(model, dict(zip(fields, row, strict=False))) for row in reader if row]
