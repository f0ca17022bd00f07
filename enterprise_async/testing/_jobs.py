"""Bulk enrollment jobs run to their results, and the storage host their results files live on.

license-manager queues a bulk enrollment (``POST``), a worker enrolls each learner in each course
and writes a CSV of what became of every enrollment, uploads it to a bucket, and the job's status
(``GET`` on the same route) then answers a presigned link to it that lives 300 seconds
(``x-sdk-job-results`` in the spec). Here a job is pending for ``delay`` seconds, then its file is
on ``ResultsStorage``: a second loopback server that, as S3 does, serves an object only through a
link whose signature and lifetime it checks, answers an expired link 403, and refuses a request
that also carries an ``Authorization`` header.
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import hmac
import io
import socket
import time
from collections.abc import Callable, Sequence
from typing import Any, Final
from urllib.parse import urlencode

from aiohttp import web
from attrs import define, field, frozen

from .._generated.operations import ENROLLMENTS_JOB_STATUS
from ._records import EnrollmentJob
from ._shutdown import stop_serving
from ._state import SandboxData

__all__ = [
    "DEFAULT_RESULTS_DELAY",
    "EnrollmentJobs",
    "ResultsStorage",
    "StorageRequest",
    "spec_link_lifetime",
]

DEFAULT_RESULTS_DELAY: Final = 2.0
"""Seconds a sandbox job stays pending before its results file is written."""
BUCKET: Final = "sandbox-bulk-enrollment-results"
_EXPIRED: Final = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    "<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>"
)
_TWO_MECHANISMS: Final = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InvalidArgument</Code>'
    "<Message>Only one auth mechanism allowed</Message></Error>"
)


def spec_link_lifetime() -> float:
    """The link lifetime the spec gives (``x-sdk-job-results`` ``link-lifetime``: 300 s)."""
    results = ENROLLMENTS_JOB_STATUS.job_results
    return float(results.link_lifetime or 300) if results is not None else 300.0


@frozen
class StorageRequest:
    """A request the storage host received: its path, whether its link was valid, and whether it
    carried an ``Authorization`` header (a token sent where it does not belong)."""

    path: str
    status: int
    authorization: bool


@define
class ResultsStorage:
    """A loopback storage host serving objects through presigned, expiring links."""

    lifetime: float = 300.0
    clock: Callable[[], float] = time.time
    host: str = "127.0.0.1"
    requests: list[StorageRequest] = field(factory=list, init=False)
    """Every request received, in order."""
    _objects: dict[str, bytes] = field(factory=dict, init=False)
    _key: bytes = field(default=b"sandbox-storage-signing-key", init=False)
    _expired_before: float = field(default=float("-inf"), init=False)
    _late_reads: int = field(default=0, init=False)
    _runner: web.AppRunner | None = field(default=None, init=False)
    _listener: socket.socket | None = field(default=None, init=False)
    _port: int | None = field(default=None, init=False)

    @property
    def base_url(self) -> str:
        if self._port is None:
            raise RuntimeError("the storage host is not running")
        return f"http://{self.host}:{self._port}"

    def put(self, name: str, body: bytes) -> None:
        """Store an object under ``name``."""
        self._objects[name] = body

    def presign(self, name: str) -> str:
        """A link to ``name`` that lives ``lifetime`` seconds from now (S3's query form)."""
        issued = self.clock()
        stamp = datetime.datetime.fromtimestamp(issued, datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        query = {
            "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
            "X-Amz-Credential": "sandbox/s3/aws4_request",
            "X-Amz-Date": stamp,
            "X-Amz-Expires": str(int(self.lifetime)),
            "X-Amz-Issued": repr(issued),
            "X-Amz-SignedHeaders": "host",
        }
        query["X-Amz-Signature"] = self._sign(name, query)
        return f"{self.base_url}/{BUCKET}/{name}?{urlencode(query)}"

    def expire_links(self) -> None:
        """Make every link issued so far expired (as if its lifetime had passed)."""
        self._expired_before = self.clock()

    def read_late(self, count: int = 1) -> None:
        """The next ``count`` reads find their link expired, as if each were read after its
        lifetime (a slow client, a clock ahead of the storage host's)."""
        self._late_reads += count

    def _sign(self, name: str, query: dict[str, str]) -> str:
        signed = "&".join(f"{key}={query[key]}" for key in sorted(query) if key != "X-Amz-Signature")
        return hmac.new(self._key, f"{name}?{signed}".encode(), hashlib.sha256).hexdigest()

    async def _serve(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        authorization = "Authorization" in request.headers
        status, body = self._answer(name, dict(request.query), authorization)
        self.requests.append(StorageRequest(request.path, status, authorization))
        content_type = "text/csv" if status == 200 else "application/xml"
        return web.Response(status=status, body=body, content_type=content_type)

    def _answer(self, name: str, query: dict[str, str], authorization: bool) -> tuple[int, bytes]:
        if authorization:
            return 400, _TWO_MECHANISMS.encode()
        signature = query.get("X-Amz-Signature", "")
        if name not in self._objects or not hmac.compare_digest(signature, self._sign(name, query)):
            return 403, b"<Error><Code>SignatureDoesNotMatch</Code></Error>"
        issued = float(query["X-Amz-Issued"])
        if self._late_reads > 0:
            self._late_reads -= 1
            return 403, _EXPIRED.encode()
        if issued <= self._expired_before or self.clock() > issued + float(query["X-Amz-Expires"]):
            return 403, _EXPIRED.encode()
        return 200, self._objects[name]

    async def start(self) -> None:
        """Listen on a loopback port of the OS's choice."""
        application = web.Application()
        application.router.add_get(f"/{BUCKET}/{{name:.+}}", self._serve)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind((self.host, 0))
        listener.listen(16)
        listener.setblocking(False)
        runner = web.AppRunner(application, access_log=None, handle_signals=False, shutdown_timeout=0.5)
        await runner.setup()
        await web.SockSite(runner, listener).start()
        self._runner, self._listener, self._port = runner, listener, int(listener.getsockname()[1])

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None and self._listener is not None:
            await stop_serving(runner, self._listener)


@define
class EnrollmentJobs:
    """The sandbox's bulk enrollment jobs: pending ``delay`` seconds from their creation, then
    done, their results file on ``storage`` (None: no results storage, so no link ever, as a
    license-manager without ``BULK_ENROLL_JOB_AWS_BUCKET``)."""

    data: SandboxData
    storage: ResultsStorage | None
    delay: float = DEFAULT_RESULTS_DELAY
    clock: Callable[[], float] = time.monotonic
    _started: dict[str, float] = field(factory=dict, init=False)
    _written: dict[str, str] = field(factory=dict, init=False)

    def started(self, job: EnrollmentJob) -> None:
        """Note that ``job`` was queued now."""
        self._started[job.job_id] = self.clock()

    def status(self, job_id: str) -> dict[str, Any] | None:
        """The job's status as the service answers it; None for an unknown job."""
        job = next((job for job in self.data.enrollment_jobs if job.job_id == job_id), None)
        if job is None:
            return None
        return {"job_id": job.job_id, "download_url": self._link(job)}

    def _link(self, job: EnrollmentJob) -> str | None:
        if self.storage is None or self.clock() < self._started.get(job.job_id, 0.0) + self.delay:
            return None
        name = self._written.get(job.job_id)
        if name is None:
            name = f"{job.customer_uuid}/{job.job_id}/Bulk-Enrollment-Results.csv"
            self.storage.put(name, results_file(self.data, job))
            self._written[job.job_id] = name
        return self.storage.presign(name)


def results_file(data: SandboxData, job: EnrollmentJob) -> bytes:
    """The job's results CSV: a learner with an activated license of the customer is enrolled, one
    whose license is only assigned is pending until activation, any other fails."""
    states = _license_states(data, job.customer_uuid)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(_header())
    for key in job.course_run_keys:
        for email in job.emails:
            writer.writerow([email, key, *_outcome(states.get(email.lower()))])
    return out.getvalue().encode()


def _header() -> Sequence[str]:
    results = ENROLLMENTS_JOB_STATUS.job_results
    return [header for header, _ in results.columns] if results is not None else []


def _outcome(state: str | None) -> tuple[str, str]:
    if state == "activated":
        return "success", ""
    if state == "assigned":
        return "pending", "pending license activation"
    return "failed", "missing subscription"


def _license_states(data: SandboxData, customer_uuid: str) -> dict[str, str]:
    states: dict[str, str] = {}
    for plan in data.plans:
        if plan.customer_uuid != customer_uuid:
            continue
        for license in data.licenses(plan.uuid):
            if license.user_email and license.status in ("activated", "assigned"):
                email = license.user_email.lower()
                states[email] = "activated" if states.get(email) == "activated" else license.status
    return states
