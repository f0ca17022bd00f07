"""A fleet draws from one rate budget on Redis, and a 429 pauses all of it."""

from __future__ import annotations

import bisect
from collections import defaultdict

from enterprise_async.testing import Fault, Sandbox

from . import _fleet
from ._process import PROCESS_HEADER

BUDGET = "18/second; 360/minute"
PER_SECOND = 18
PER_MINUTE = 360
STORM_RETRY_AFTER = 1.0
CALLS_PER_PROCESS = PER_MINUTE // 4
"""The whole minute's budget spread over 4 processes: a run of 20 seconds at 18 per second."""


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
