"""A rate budget counts each limit over a window ``margin`` wider than the service's, and spaces
its requests, so that requests delayed on their way still arrive within the service's limits."""

from __future__ import annotations

import pytest

from enterprise_async import ClientValidationError, RateLimit
from enterprise_async._constants import DEFAULT_RATE_MARGIN
from enterprise_async._rate_window import Limit, MemoryWindows, parse_rate_limit, spacing
from enterprise_async.testing import Sandbox


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_contracts_text_keeps_working_and_gets_the_default_margin() -> None:
    budget = parse_rate_limit("18/second; 360/minute")
    assert budget == RateLimit((Limit(18, 1.0), Limit(360, 60.0)), DEFAULT_RATE_MARGIN)
    assert budget.windows == (Limit(18, 1.0 + DEFAULT_RATE_MARGIN), Limit(360, 60.0 + DEFAULT_RATE_MARGIN))


@pytest.mark.parametrize(
    ("text", "margin"),
    [
        ("18/second; 360/minute; margin=0.25s", 0.25),
        ("18/second; margin=40ms; 360/minute", 0.04),
        ("18/second; 360/minute; margin 0", 0.0),
        ("18/second, margin: 1.5", 1.5),
    ],
)
def test_a_margin_written_in_the_text_is_taken(text: str, margin: float) -> None:
    budget = RateLimit.parse(text)
    assert budget.margin == pytest.approx(margin)
    assert budget.limits[0] == Limit(18, 1.0)


def test_a_rate_limit_object_is_taken_as_it_is_and_its_text_reads_back() -> None:
    budget = RateLimit((Limit(18, 1.0),), margin=0.2)
    assert parse_rate_limit(budget) is budget
    assert parse_rate_limit(str(budget)) == budget


@pytest.mark.parametrize(
    "text",
    [
        "18/second; margin=-1",
        "18/second; margin=fast",
        "18/second; margin=0.1s; margin=0.2s",
        "margin=0.1s",
    ],
)
def test_a_margin_that_cannot_be_read_is_refused(text: str) -> None:
    with pytest.raises(ClientValidationError) as raised:
        parse_rate_limit(text)
    assert raised.value.field == "rate_limit"


def test_a_rate_limit_object_with_a_negative_margin_is_refused() -> None:
    with pytest.raises(ClientValidationError):
        parse_rate_limit(RateLimit((Limit(18, 1.0),), margin=-0.1))


def test_requests_leave_spaced_by_the_widened_windows_share_of_one() -> None:
    clock = Clock()
    windows = RateLimit((Limit(3, 1.0),), margin=0.2).windows
    memory = MemoryWindows(clock)
    assert memory.draw(windows, "k") == 0
    assert memory.draw(windows, "k") == pytest.approx(0.4)  # 1.2 s / 3
    clock.now += 0.4
    assert memory.draw(windows, "k") == 0


def test_a_window_is_counted_margin_wider_than_the_services() -> None:
    clock = Clock()
    clock.now = 64.0  # every moment below is exact in binary
    windows = RateLimit((Limit(4, 1.0),), margin=0.25).windows
    memory = MemoryWindows(clock)
    for _ in range(4):
        while (wait := memory.draw(windows, "k")) > 0:
            clock.now += wait
    assert clock.now == 64.9375  # spaced by 1.25 s / 4
    # The service's window (1 s) has let the first request go; the widened one (1.25 s) has not.
    clock.now = 65.0
    assert memory.draw(windows, "k") == 0.25
    clock.now = 65.25
    assert memory.draw(windows, "k") == 0


def test_without_a_margin_the_windows_are_the_services() -> None:
    clock = Clock()
    windows = RateLimit.parse("2/second; margin=0").windows
    memory = MemoryWindows(clock)
    assert memory.draw(windows, "k") == 0
    clock.now += 0.5
    assert memory.draw(windows, "k") == 0
    clock.now += 0.5
    assert memory.draw(windows, "k") == 0


def test_the_spacing_is_that_of_the_tightest_limit() -> None:
    assert spacing(RateLimit.parse("18/second; 360/minute; margin=0.08s").windows) == pytest.approx(1.08 / 18)
    assert spacing(RateLimit.parse("1/second; 360/minute; margin=0").windows) == pytest.approx(60 / 360)


async def test_a_client_takes_a_rate_limit_object() -> None:
    async with (
        Sandbox(seed=0) as sandbox,
        sandbox.client(rate_limit=RateLimit((Limit(100, 1.0),), margin=0.05)) as client,
    ):
        await client.catalogs.list().first_page()
        assert client.rate_budget is not None
        assert client.rate_budget.windows == (Limit(100, 1.05),)
