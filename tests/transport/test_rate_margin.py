"""A rate budget counts each limit over a window ``margin`` wider than the service's, and spaces
its requests, so that requests delayed on their way still arrive within the service's limits."""

from __future__ import annotations

import asyncio

import pytest

from enterprise_async import ClientValidationError, RateLimit
from enterprise_async._transport.rate_limit import InMemoryRateStore, RateBudget
from enterprise_async._transport.rate_window import Draw, Limit, MemoryWindows, parse_rate_limit, spacing
from enterprise_async._utils.constants import DEFAULT_RATE_MARGIN, RESERVE_AHEAD
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


def granted_at(memory: MemoryWindows, budget: RateLimit, clock: Clock) -> float:
    """Draw until granted, the clock moving on as a caller would sleep; the moment held."""
    while True:
        granted, wait, _ = memory.draw(budget.windows, "k", budget.margin)
        if granted:
            return clock.now + wait
        clock.now += wait


def test_requests_are_spaced_by_the_widened_windows_share_of_one() -> None:
    clock = Clock()
    clock.now = 64.0  # every moment below is exact in binary
    budget = RateLimit((Limit(4, 1.0),), margin=0.5)
    memory = MemoryWindows(clock)
    assert [granted_at(memory, budget, clock) for _ in range(4)] == [64.0, 64.375, 64.75, 65.125]


def test_a_window_is_counted_margin_wider_than_the_services() -> None:
    clock = Clock()
    clock.now = 64.0
    budget = RateLimit((Limit(4, 1.0), Limit(2, 0.25)), margin=0.25)
    memory = MemoryWindows(clock)
    for _ in range(4):
        granted_at(memory, budget, clock)
    assert clock.now < 65.0
    # The service's window (1 s) lets the first request go at 65; the widened one (1.25 s) at 65.25.
    clock.now = 65.0
    assert memory.draw(budget.windows, "k", budget.margin)[:2] == (True, 0.25)


def test_the_next_free_moment_is_held_only_a_little_ahead() -> None:
    clock = Clock()
    budget = RateLimit((Limit(1, 1.0),), margin=0.0)
    memory = MemoryWindows(clock)
    assert memory.draw(budget.windows, "k", budget.margin)[:2] == (True, 0.0)
    assert memory.draw(budget.windows, "k", budget.margin)[:2] == (False, pytest.approx(1.0))
    clock.now += 1.0 - RESERVE_AHEAD
    assert memory.draw(budget.windows, "k", budget.margin)[:2] == (True, pytest.approx(RESERVE_AHEAD))
    # The moment held counts: the next one is a second after it.
    assert memory.draw(budget.windows, "k", budget.margin)[:2] == (False, pytest.approx(1.0 + RESERVE_AHEAD))


def test_a_moment_given_back_is_free_again() -> None:
    clock = Clock()
    budget = RateLimit.parse("1/second; margin=0")
    memory = MemoryWindows(clock)
    drawn = memory.draw(budget.windows, "k", budget.margin)
    assert drawn.granted
    assert not memory.draw(budget.windows, "k", budget.margin).granted
    memory.release("k", drawn.moment)
    assert memory.draw(budget.windows, "k", budget.margin)[:2] == (True, 0.0)


def test_without_a_margin_the_windows_are_the_services_and_requests_go_at_once() -> None:
    clock = Clock()
    budget = RateLimit.parse("2/second; margin=0")
    memory = MemoryWindows(clock)
    assert [memory.draw(budget.windows, "k", budget.margin)[:2] for _ in range(2)] == [
        (True, 0.0),
        (True, 0.0),
    ]
    assert memory.draw(budget.windows, "k", budget.margin)[:2] == (False, 1.0)


def test_the_spacing_is_the_tightest_limits_and_never_more_than_the_margin() -> None:
    budget = RateLimit.parse("18/second; 360/minute; margin=0.08s")
    assert spacing(budget.windows, budget.margin) == pytest.approx(1.08 / 18)
    slow = RateLimit.parse("10/minute; margin=0.1s")
    assert spacing(slow.windows, slow.margin) == pytest.approx(0.1)


async def test_a_client_takes_a_rate_limit_object() -> None:
    async with (
        Sandbox(seed=0) as sandbox,
        sandbox.client(rate_limit=RateLimit((Limit(100, 1.0),), margin=0.05)) as client,
    ):
        await client.catalogs.list().first_page()
        assert client.rate_budget is not None
        assert client.rate_budget.budget.windows == (Limit(100, 1.05),)


class LateAnswers(InMemoryRateStore):
    """A store whose first grant comes back ``late`` seconds after it was asked for (a busy loop)."""

    def __init__(self, late: float) -> None:
        super().__init__()
        self.late = late
        self.draws = 0
        self.released: list[float | str] = []

    async def draw(self, budget: RateLimit, key: str) -> Draw:
        self.draws += 1
        if self.draws == 1:
            await asyncio.sleep(self.late)  # never ends early: the grant is at least this late
        return Draw(True, 0.0, f"moment {self.draws}")

    async def release(self, key: str, moment: float | str) -> None:
        self.released.append(moment)


async def test_a_request_that_comes_late_to_its_moment_draws_again() -> None:
    budget = RateLimit((Limit(18, 1.0),), margin=0.1)
    store = LateAnswers(late=budget.margin)
    rate = RateBudget(store, budget, key="k")
    await rate.draw()
    assert rate.late >= 1  # late by the whole margin, more than its half
    assert store.draws >= 2
    assert store.released[0] == "moment 1"  # given back: nothing was sent at it


async def test_a_request_on_time_draws_once() -> None:
    budget = RateLimit((Limit(18, 1.0),), margin=1000.0)  # no machine is that late
    store = LateAnswers(late=0.0)
    rate = RateBudget(store, budget, key="k")
    await rate.draw()
    assert (rate.late, store.draws, store.released) == (0, 1, [])
