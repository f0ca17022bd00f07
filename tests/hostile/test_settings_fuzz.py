"""Hypothesis over settings: whatever a user passes, the client is made or a ``ClientValidationError``
names the setting; a call with any per-call options ends with a typed outcome, never a hang."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enterprise_async import (
    APITimeoutError,
    ClientValidationError,
    EnterpriseClient,
    EnterpriseError,
    NotFoundError,
)
from tests.hostile.leak_server import HostileServer, serving

CATALOG = "00000000-0000-4000-8000-000000000007"
"""A catalog id (a UUID, as every catalog's is) that the test's server does not know."""

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
BASE: dict[str, Any] = {
    "client_id": "id",
    "client_secret": "secret-value-123",
    "base_url": "https://api.test",
}
ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=2**64),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["0/second", "1/second; 0/hour", "5/minute", "json", "xml", "http://x", "https://a:b@h"]),
    st.builds(object),
    st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=2),
    st.lists(st.integers(), max_size=2),
)
VIEW_OPTIONS = ["timeout", "max_retries", "max_concurrency", "headers"]
HEADERS = st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=2)
SETTING_NAMES = [
    "client_id",
    "client_secret",
    "base_url",
    "auth_url",
    "response_format",
    "max_concurrency",
    "max_retries",
    "timeout",
    "session",
    "token_cache",
    "rate_limit",
    "rate_limiter",
    "max_response_bytes",
]


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with serving() as running:
        yield running


@FUZZ
@given(st.dictionaries(st.sampled_from(SETTING_NAMES), ODD, max_size=4))
def test_any_settings_make_a_client_or_a_typed_error_naming_one(changes: dict[str, Any]) -> None:
    outcome = attempt(lambda: EnterpriseClient(**{**BASE, **changes}))
    if isinstance(outcome, ClientValidationError):
        assert outcome.field in changes
    else:
        assert "secret-value-123" not in repr(outcome)


@FUZZ
@given(st.dictionaries(st.sampled_from(VIEW_OPTIONS), ODD, max_size=3))
def test_any_view_options_make_a_view_or_a_typed_error_naming_one(changes: dict[str, Any]) -> None:
    client = EnterpriseClient(**BASE)
    outcome = attempt(lambda: client.with_options(**changes))
    if isinstance(outcome, ClientValidationError):
        assert outcome.field in changes
    else:
        assert isinstance(outcome, EnterpriseClient)


@FUZZ
@given(
    timeout=st.one_of(st.none(), st.floats(min_value=1e-9, max_value=5), ODD),
    extra_headers=st.one_of(
        st.none(), st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=2), ODD
    ),
)
def test_a_call_with_any_options_ends_typed_and_never_hangs(
    server: HostileServer, timeout: Any, extra_headers: Any
) -> None:
    async def call() -> None:
        async with server.client() as client:
            await client.catalogs.course(CATALOG, "edX+DemoX", timeout=timeout, extra_headers=extra_headers)

    with pytest.raises(EnterpriseError) as caught:
        asyncio.run(asyncio.wait_for(call(), 30))
    assert type(caught.value) in (ClientValidationError, NotFoundError, APITimeoutError)
    if isinstance(caught.value, ClientValidationError):
        assert caught.value.field in ("timeout", "extra_headers")


def attempt(make: Callable[[], Any]) -> Any:
    """What ``make`` returns, or the ``ClientValidationError`` it raises (anything else propagates)."""
    try:
        return make()
    except ClientValidationError as error:
        return error
