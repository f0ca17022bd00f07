"""Every setting is checked when it is given, with a typed error naming it; a client that cannot
make a call (closed, or on another event loop) says so with a typed error, and no wait is longer
than the call's timeout."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from enterprise_async import (
    APITimeoutError,
    ClientStateError,
    ClientValidationError,
    EnterpriseClient,
    EnterpriseError,
    Timeout,
)
from enterprise_async.cli import cli as command_line
from tests.hostile.leak_server import HostileServer, serving

CATALOG = "00000000-0000-4000-8000-000000000007"
"""A catalog id (a UUID, as every catalog's is) that the test's server does not know."""

CATALOGS = "/enterprise/v2/enterprise-catalogs"
SETTINGS: dict[str, Any] = {"client_id": "id", "client_secret": "secret", "base_url": "https://api.test"}
NOT_A_DURATION = [float("nan"), float("inf"), -1.0, 0, "30", True, None]


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with serving() as running:
        yield running


def refused(field: str, **settings: Any) -> ClientValidationError:
    with pytest.raises(ClientValidationError) as caught:
        EnterpriseClient(**{**SETTINGS, **settings})
    assert caught.value.field == field
    return caught.value


@pytest.mark.parametrize("timeout", NOT_A_DURATION, ids=repr)
def test_the_constructor_refuses_a_timeout_that_is_not_a_finite_positive_number(timeout: object) -> None:
    refused("timeout", timeout=timeout)


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), -1.0, 0], ids=repr)
def test_with_options_refuses_a_timeout_that_is_not_a_finite_positive_number(timeout: float) -> None:
    with pytest.raises(ClientValidationError) as caught:
        EnterpriseClient(**SETTINGS).with_options(timeout=timeout)
    assert caught.value.field == "timeout"


@pytest.mark.parametrize("rate_limit", ["0/second", "0/minute; 10/hour", "-1/second"])
def test_a_rate_budget_of_nothing_is_refused(rate_limit: str) -> None:
    refused("rate_limit", rate_limit=rate_limit)


@pytest.mark.parametrize(
    "headers",
    [{"X-Note": "a\r\nInjected: yes"}, {"X-Note": "a\nb"}, {"X-Bad\r\nName": "a"}, {"X Bad": "a"}],
    ids=["crlf-in-value", "lf-in-value", "crlf-in-name", "space-in-name"],
)
def test_with_options_refuses_headers_that_would_break_the_request(headers: dict[str, str]) -> None:
    with pytest.raises(ClientValidationError) as caught:
        EnterpriseClient(**SETTINGS).with_options(headers=headers)
    assert caught.value.field == "headers"


async def test_a_calls_extra_headers_with_a_line_break_are_refused_before_sending(
    server: HostileServer,
) -> None:
    async with server.client() as client:
        with pytest.raises(ClientValidationError) as caught:
            await client.catalogs.course(CATALOG, "edX+DemoX", extra_headers={"X-Note": "a\r\nb"})  # type: ignore[call-arg]
    assert caught.value.field == "extra_headers"
    assert server.tokens == [], "nothing was sent"


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("token_cache", object()),
        ("session", "nope"),
        ("rate_limiter", "redis://localhost"),
        ("max_response_bytes", 0),
        ("max_response_bytes", 1.5),
        ("max_concurrency", 2.0),
        ("max_retries", "2"),
        ("auth_url", 42),
    ],
)
def test_options_of_the_wrong_type_are_refused_when_given(setting: str, value: object) -> None:
    refused(setting, **{setting: value})


async def test_a_closed_client_refuses_calls(server: HostileServer) -> None:
    client = server.client()
    await client.aclose()
    with pytest.raises(ClientStateError, match="closed"):
        await client.catalogs.list().to_list()
    assert server.tokens == []


async def test_a_closed_view_refuses_calls_and_its_client_goes_on(server: HostileServer) -> None:
    async with server.client() as client:
        view = client.with_options(timeout=2.0)
        await view.aclose()
        assert view.closed
        with pytest.raises(ClientStateError, match="closed"):
            await view.catalogs.list().to_list()
        assert await client.catalogs.list().to_list() == []


async def test_a_view_of_a_closed_client_refuses_calls(server: HostileServer) -> None:
    client = server.client()
    view = client.with_options(max_retries=1)
    await client.aclose()
    with pytest.raises(ClientStateError, match="closed"):
        await view.catalogs.list().to_list()


def test_a_client_used_from_another_event_loop_raises_a_clear_error(server: HostileServer) -> None:
    client = server.client()
    home = asyncio.new_event_loop()
    try:
        assert home.run_until_complete(client.catalogs.list().to_list()) == []
        with pytest.raises(ClientStateError, match="another event loop") as caught:
            asyncio.run(client.catalogs.list().to_list())
        assert isinstance(caught.value, EnterpriseError)
        assert home.run_until_complete(client.catalogs.list().to_list()) == [], "still usable at home"
    finally:
        home.run_until_complete(client.aclose())
        home.close()


async def test_a_rate_wait_longer_than_its_limit_ends_as_a_timeout_with_nothing_sent(
    server: HostileServer,
) -> None:
    async with server.client(rate_limit="1/hour") as client:
        await client.catalogs.list().to_list()  # under the ample timeout: a loaded machine's first call
        sent = len(server.received)
        hasty = client.with_options(timeout=Timeout(total=5, rate_wait=0.5))  # shares the budget
        with pytest.raises(APITimeoutError, match=r"rate wait limit \(0.5 s, Timeout\(rate_wait=\)\)"):
            await hasty.catalogs.list().to_list()
    assert len(server.received) == sent, "nothing was sent"


async def test_a_rate_wait_longer_than_the_total_timeout_is_pacing_not_a_failure(
    server: HostileServer,
) -> None:
    # One request per 4 s (1 per second, counted 3 s wider by the margin): of two calls begun
    # together, the second draws at least 4 s after the first, longer than their total of 2 s,
    # which counts from sending. The bound is a lower one: a loaded machine only lengthens it.
    async with server.client(rate_limit="1/second; margin=3s", timeout=Timeout(total=2)) as client:
        began = time.monotonic()
        pages = await asyncio.gather(*(client.catalogs.list().to_list() for _ in range(2)))
        waited = time.monotonic() - began
    assert pages == [[], []]
    assert waited > 2, "the second call waited for the budget longer than its total, and succeeded"


@pytest.mark.parametrize("timeout", ["nan", "inf", "-1", "0"])
def test_the_command_line_refuses_a_timeout_that_is_not_a_finite_positive_number(
    timeout: str, server: HostileServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    monkeypatch.setenv("ENTERPRISE_CLIENT_ID", "id")
    monkeypatch.setenv("ENTERPRISE_CLIENT_SECRET", server.client_secret)
    monkeypatch.setenv("ENTERPRISE_BASE_URL", server.base_url)
    result = CliRunner().invoke(command_line, ["catalogs", "list", "--timeout", timeout])
    assert result.exit_code == 2, result.output
    assert "timeout" in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert server.tokens == [], "nothing was sent"
