"""No POST of the contract is ever sent twice, except after a 429 or a connection that provably
never reached the server; proven by the sandbox's own request count."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aioresponses import aioresponses

from enterprise_async import (
    APIConnectionError,
    APITimeoutError,
    EnterpriseClient,
    EnterpriseError,
    ResponseDecodeError,
    ServerError,
)
from enterprise_async.testing import Fault, Sandbox
from tests.conftest import Backoffs
from tests.transport.test_transport import refused

Call = Callable[[EnterpriseClient], Awaitable[Any]]


def post_calls(sandbox: Sandbox) -> dict[str, tuple[str, Call]]:
    """Every POST of the contract, with valid arguments from the sandbox's data: (path, call)."""
    data = sandbox.data
    customer = data.customers[0].uuid
    policy = next(policy for policy in data.policies if policy.assignment_configuration_uuid)
    configuration = str(policy.assignment_configuration_uuid)
    allocated = [record.uuid for record in data.assignments(configuration) if record.state == "allocated"][:2]
    plan = data.plans[0]
    holder = next(
        lic.user_email for lic in data.licenses(plan.uuid) if lic.status in ("assigned", "activated")
    )
    course = data.first(next(c for c in data.catalogs if c.uuid == policy.catalog_uuid), "course")
    run_key = course["course_runs"][0]["key"]
    admin = f"/enterprise/v1/assignment-configurations/{configuration}/admin/assignments"
    subscriptions = f"/enterprise/v1/subscriptions/{plan.uuid}/licenses"
    return {
        "allocate": (
            f"/enterprise/v1/policy-allocation/{policy.uuid}/allocate/",
            lambda c: c.policies.allocate(
                policy.uuid,
                learner_emails=["new.learner@example.org"],
                content_key=course["key"],
                # the course's price: enterprise-access refuses another (validate_requested_allocation_price)
                content_price_cents=int(course["course_runs"][0]["first_enrollable_paid_seat_price"]) * 100,
            ),
        ),
        "remind": (
            f"{admin}/remind/",
            lambda c: c.assignments.remind(configuration, assignment_uuids=allocated),
        ),
        "cancel": (
            f"{admin}/cancel/",
            lambda c: c.assignments.cancel(configuration, assignment_uuids=allocated),
        ),
        "assign_licenses": (
            f"{subscriptions}/assign",
            lambda c: c.subscriptions.assign_licenses(plan.uuid, user_emails=["fresh.user@example.org"]),
        ),
        "bulk_revoke": (
            f"{subscriptions}/bulk-revoke",
            lambda c: c.subscriptions.bulk_revoke(plan.uuid, user_emails=[holder]),
        ),
        "bulk_enroll": (
            "/enterprise/v1/bulk-license-enrollment",
            lambda c: c.enrollments.bulk_enroll(
                customer, emails=["enrollee@example.org"], course_run_keys=[run_key], notify=False
            ),
        ),
    }


POSTS = ["allocate", "remind", "cancel", "assign_licenses", "bulk_revoke", "bulk_enroll"]
NOT_RETRIED = [
    (Fault.server_error(500), ServerError),
    (Fault.server_error(502), ServerError),
    (Fault.server_error(503), ServerError),
    (Fault.drop(), APIConnectionError),
    (Fault.truncated(), APIConnectionError),
    (Fault.malformed(), ResponseDecodeError),
    (Fault.slow(2.5), APITimeoutError),  # past TIMEOUT, which never fires early
]

TIMEOUT = 1.0
"""The client's timeout in the sent-once tests: the answers other than the slow one (and the token's)
are loopback answers of a few milliseconds, given a second, room for a loaded machine, so that each
fault ends in its own error and not in a timeout."""


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(seed=11) as sandbox:
        yield sandbox


EMPTY_ANSWERS = {"remind", "cancel"}
"""POSTs whose real answer has an empty body (enterprise-access): nothing to cut short or delay."""
BODY_FAULTS = {"truncated", "malformed", "slow"}
"""Faults acting on the body: the status and headers go out at once."""
SENT_ONCE = [
    pytest.param(fault, error, name, id=f"{fault.kind}-{fault.status or ''}-{name}")
    for fault, error in NOT_RETRIED
    for name in POSTS
    if not (fault.kind in BODY_FAULTS and name in EMPTY_ANSWERS)
]


@pytest.mark.parametrize(("fault", "error", "name"), SENT_ONCE)
async def test_a_post_that_may_have_reached_the_server_is_sent_once(
    sandbox: Sandbox, no_sleep: Backoffs, name: str, fault: Fault, error: type[EnterpriseError]
) -> None:
    path, call = post_calls(sandbox)[name]
    sandbox.faults.inject(path, fault, times=1)
    async with sandbox.client(retry=no_sleep.policy, max_retries=3, timeout=TIMEOUT) as client:
        with pytest.raises(error):
            await call(client)
    assert await logged(sandbox, path) == 1


async def logged(sandbox: Sandbox, path: str) -> int:
    """POSTs to ``path`` the sandbox has finished handling (a slow answer is logged when it ends,
    2.5 s after it began: up to 10 s are waited for it)."""
    for _ in range(500):
        if sandbox.requests.find("POST", path):
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.05)  # room for a second request, were the client to send one
    return len(sandbox.requests.find("POST", path))


@pytest.mark.parametrize("name", POSTS)
async def test_a_post_answered_429_is_sent_again_and_succeeds(
    sandbox: Sandbox, no_sleep: Backoffs, name: str
) -> None:
    path, call = post_calls(sandbox)[name]
    sandbox.faults.inject(path, Fault.rate_limited(2), times=1)
    async with sandbox.client(retry=no_sleep.policy) as client:
        await call(client)
    statuses = [entry.status for entry in sandbox.requests.find("POST", path)]
    assert len(statuses) == 2
    assert statuses[0] == 429
    assert statuses[1] is not None
    assert statuses[1] < 300
    assert no_sleep == [2.0]


@pytest.mark.parametrize("name", POSTS)
async def test_a_post_is_sent_once_when_all_goes_well(sandbox: Sandbox, name: str) -> None:
    path, call = post_calls(sandbox)[name]
    async with sandbox.client() as client:
        await call(client)
    assert len(sandbox.requests.find("POST", path)) == 1


@pytest.mark.parametrize("name", POSTS)
async def test_a_post_whose_connection_was_refused_is_sent_again(
    sandbox: Sandbox, no_sleep: Backoffs, mocked_aiohttp: aioresponses, name: str
) -> None:
    mocked = mocked_aiohttp
    path, call = post_calls(sandbox)[name]
    base = "https://api.example.test"
    mocked.post(f"{base}/oauth2/v1/access_token", payload={"access_token": "t", "expires_in": "60"})
    url = re.compile(re.escape(f"{base}{path}") + r"(\?.*)?$")
    mocked.post(url, exception=refused())
    mocked.post(url, status=200, payload={})
    async with EnterpriseClient(
        retry=no_sleep.policy, client_id="id", client_secret="secret", base_url=base
    ) as client:
        # The mocked body is not each operation's result; what matters is the count.
        with contextlib.suppress(ResponseDecodeError):
            await call(client)
    attempts = [
        call for (method, sent), calls in mocked.requests.items() if sent.path == path for call in calls
    ]
    assert len(attempts) == 2


async def test_a_post_with_a_stale_token_is_sent_again_after_one_refresh(sandbox: Sandbox) -> None:
    path, call = post_calls(sandbox)["allocate"]
    async with sandbox.client() as client:
        await client.catalogs.list().first_page()
        sandbox.tokens.expire_all()
        await call(client)
    statuses = [entry.status for entry in sandbox.requests.find("POST", path)]
    assert statuses == [401, 202]
