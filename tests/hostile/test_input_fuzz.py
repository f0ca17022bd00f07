"""Hypothesis over inputs: any argument is either refused before sending, with a
``ClientValidationError`` naming it, or sent as given (UUID objects in their canonical text);
never an untyped exception, never a hang."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from aiohttp import web
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enterprise_async import ClientValidationError
from enterprise_async._request.validation import is_email_address
from enterprise_async.models import BulkRevokeFilter
from tests.hostile.leak_server import HostileServer, serving

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
POLICY = "c3a1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
PLAN = "2c5e8f1a-4b7d-4a0c-9e3f-6b9c2e5f8a1d"
CANONICAL = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
UUID_LIKE = st.one_of(
    st.uuids().map(str),
    st.uuids().map(lambda value: str(value).upper()),
    st.uuids().map(lambda value: value.hex),
    st.uuids().map(lambda value: f"{{{value}}}"),
    st.uuids().map(lambda value: value.urn),
    st.uuids(),
    st.text(max_size=40),
)
EMAIL_LIKE = st.one_of(
    st.emails(),
    st.text(max_size=30),
    st.builds(lambda local, domain: f"{local}@{domain}", st.text(max_size=10), st.text(max_size=12)),
    st.sampled_from(
        ["x@localhost", "a@[::1]", "a@[1.2.3.4]", "a@b.c", '"q"@x.org', "a@xn--bcher-kva.example"]
    ),
)
ODD = st.one_of(
    st.none(), st.integers(), st.floats(), st.booleans(), st.text(max_size=5), st.lists(st.integers())
)


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with serving(fallback=accept) as running:
        yield running


async def accept(request: web.Request) -> web.StreamResponse:
    """Any POST succeeds: an allocation with nothing created, a revocation with nothing revoked."""
    if request.path.endswith("/bulk-revoke"):
        return web.json_response({"successful_revocations": [], "unsuccessful_revocations": []})
    return web.json_response({"created": [], "updated": [], "no_change": []}, status=202)


def run(coroutine: Any) -> Any:
    """The outcome of one call: its result, or the ``ClientValidationError`` it raised."""
    try:
        return asyncio.run(asyncio.wait_for(coroutine, 30))
    except ClientValidationError as error:
        return error


@FUZZ
@given(
    policy=UUID_LIKE, emails=st.lists(EMAIL_LIKE, min_size=1, max_size=3), price=st.one_of(st.integers(), ODD)
)
def test_an_allocation_is_refused_by_field_or_sent_as_given(
    server: HostileServer, policy: Any, emails: list[str], price: Any
) -> None:
    before = len(server.received)

    async def allocate() -> Any:
        async with server.client() as client:
            return await client.policies.allocate(
                policy, learner_emails=emails, content_key="edX+DemoX", content_price_cents=price
            )

    outcome = run(allocate())
    sent = server.received[before:]
    if isinstance(outcome, ClientValidationError):
        assert sent == []
        assert outcome.field.split("[")[0] in ("policy_uuid", "learner_emails", "content_price_cents")
        return
    ((_, sent_path, body),) = sent
    assert CANONICAL.fullmatch(sent_path.split("/")[4])
    assert sent_path.split("/")[4] == str(policy)
    assert orjson.loads(body)["learner_emails"] == emails
    assert all(is_email_address(email) for email in emails)


@FUZZ
@given(
    filters=st.lists(
        st.one_of(
            st.dictionaries(
                st.sampled_from(["user_email", "status_in", "name", "filter_value"]), ODD, max_size=2
            ),
            st.builds(BulkRevokeFilter, user_email=st.text(max_size=6)),
            st.builds(
                BulkRevokeFilter,
                status_in=st.lists(st.sampled_from(["assigned", "activated", "x"]), min_size=1),
            ),
            ODD,
        ),
        max_size=3,
    )
)
def test_revoke_filters_are_refused_by_field_or_sent_in_the_services_form(
    server: HostileServer, filters: list[Any]
) -> None:
    before = len(server.received)

    async def revoke() -> Any:
        async with server.client() as client:
            return await client.subscriptions.bulk_revoke(PLAN, filters=filters)

    outcome = run(revoke())
    sent = server.received[before:]
    if isinstance(outcome, ClientValidationError):
        assert sent == []
        assert outcome.field.startswith(("filters", "user_emails"))
        return
    ((_, _, body),) = sent
    for wired in orjson.loads(body)["filters"]:
        assert set(wired) == {"name", "filter_value"}
        assert wired["name"] in ("user_email", "status_in")
