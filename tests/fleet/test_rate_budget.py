"""A fleet draws from one rate budget on Redis, and a 429 pauses all of it.

The sandbox stamps each request as it arrives, as the services' throttle counts them; a window of
arrival times over the budget is what would have met a 429.
"""

from __future__ import annotations

import bisect
from collections import defaultdict

import redis

from enterprise_async.testing import Fault, Sandbox

from . import _fleet
from ._process import PROCESS_HEADER
from .loaded_network import DelayingRelay, cpu_burners

BUDGET = "18/second; 360/minute"
PER_SECOND = 18
PER_MINUTE = 360
STORM_RETRY_AFTER = 1.0
CALLS_PER_PROCESS = PER_MINUTE // 4
"""The whole minute's budget spread over 4 processes: a run of 20 seconds at 18 per second."""
NETWORK_HOLD = (0.01, 0.05)
"""Seconds the relay holds each request, at random: a network's jitter of tens of milliseconds."""
LOADED_MARGIN = 0.25
"""Seconds of margin on a machine whose every core is busy: there the sandbox, which stamps the
arrivals, waits for a CPU too, and a span of 19 requests shrank from draw to stamp by 48-101 ms
(14 runs) and by more than 100 ms in one run of ten more, beside the relay's 0.04 s of jitter:
with the default margin (0.1 s, for a service elsewhere that needs no CPU of the client's machine:
see ``_transport.rate_window``) one run in ten had 19 arrivals within a second. 0.25 s is 2.5
times the most seen; the ten runs of this test hold within it."""
LOADED_BUDGET = f"{BUDGET}; margin={LOADED_MARGIN}s"
LOADED_RUNS = 10
CALLS_PER_LOADED_RUN = 20
"""Per process: 80 requests a run, over four seconds of the per-second budget (the minute's is not
reached: Redis is emptied between runs)."""


def most_in_any_window(moments: list[float], width: float) -> int:
    """The most requests the sandbox received within any ``width`` seconds."""
    ordered = sorted(moments)
    return max(
        (bisect.bisect_left(ordered, start + width) - index for index, start in enumerate(ordered)),
        default=0,
    )


async def test_four_processes_stay_within_the_budget_for_twenty_seconds(redis_url: str) -> None:
    async with Sandbox(seed=0, log_limit=100_000) as sandbox:
        reports = await _fleet.run(
            sandbox, 4, "--redis", redis_url, "--rate-limit", BUDGET, "--calls", str(CALLS_PER_PROCESS)
        )
        arrivals = [entry.started for entry in sandbox.requests.find(path="/enterprise/*")]
    assert most_in_any_window(arrivals, 1.0) <= PER_SECOND
    assert most_in_any_window(arrivals, 60.0) <= PER_MINUTE
    assert sum(report["calls"] for report in reports) == len(sandbox.requests.find("GET")) == PER_MINUTE


async def test_four_processes_through_a_jittery_network_beside_busy_cpus_stay_within_the_budget(
    redis_url: str,
) -> None:
    worst: list[int] = []
    with cpu_burners():
        for run in range(LOADED_RUNS):
            with redis.Redis.from_url(redis_url) as stored:
                stored.flushall()
            async with (
                Sandbox(seed=run, log_limit=100_000) as sandbox,
                DelayingRelay(sandbox.base_url, NETWORK_HOLD, seed=run) as relay,
            ):
                budget = ("--rate-limit", LOADED_BUDGET)
                arguments = ("--redis", redis_url, *budget, "--calls", str(CALLS_PER_LOADED_RUN))
                reports = await _fleet.run(sandbox, 4, *arguments, base_url=relay.url)
                arrivals = [entry.started for entry in sandbox.requests.find(path="/enterprise/*")]
            assert (
                sum(report["calls"] for report in reports)
                == len(arrivals)
                == relay.held
                == 4 * CALLS_PER_LOADED_RUN
            )
            worst.append(most_in_any_window(arrivals, 1.0))
    assert max(worst) <= PER_SECOND, f"the most arrivals within a second, run by run: {worst}"


async def test_a_429_storm_costs_one_429_per_process_per_retry_after_window(redis_url: str) -> None:
    async with Sandbox(seed=0, log_limit=100_000) as sandbox:
        sandbox.faults.inject("/enterprise/*", Fault.rate_limited(STORM_RETRY_AFTER), times=12)
        reports = await _fleet.run(
            sandbox,
            4,
            "--redis",
            redis_url,
            "--rate-limit",
            "100/second",
            "--calls",
            "20",
            "--max-retries",
            "20",
        )
        throttled: defaultdict[str, list[float]] = defaultdict(list)
        for entry in sandbox.requests.find(path="/enterprise/*"):
            if entry.status == 429:
                throttled[entry.headers[PROCESS_HEADER]].append(entry.started)
    assert sum(report["calls"] for report in reports) == 80
    assert sum(len(moments) for moments in throttled.values()) == 12
    for moments in throttled.values():
        windows = int((max(moments) - min(moments)) // STORM_RETRY_AFTER) + 1
        assert len(moments) <= windows
