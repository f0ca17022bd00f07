"""B17's figure of a worker's memory is the worker's own: a worker started by a process that holds
far more memory than the worker ever uses reports its own peak, not its parent's size at the fork
(``ru_maxrss`` survives ``execve`` on Linux, which made B17's peak grow with the catalogs' size)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench._measured_worker import own_peak_mb

from ._fleet import ROOT

BALLAST_MB = 400
"""What the parent holds while it starts the worker: far more than a worker's command line uses."""


def _resident_mb() -> float:
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS line")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the peak is read from /proc")
def test_a_measured_worker_reports_its_own_peak_not_its_parents(tmp_path: Path) -> None:
    figures = tmp_path / "worker.json"
    ballast = b"\x01" * (BALLAST_MB << 20)  # resident: every page written
    parent = _resident_mb()
    assert parent > BALLAST_MB
    subprocess.run(
        [sys.executable, "-m", "tests.bench._measured_worker", str(figures), "worker", "--help"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    del ballast
    peak = json.loads(figures.read_text(encoding="utf-8"))["peak_rss_mb"]
    assert 0 < peak < BALLAST_MB / 2, (peak, parent)


def test_the_peak_is_read_from_the_high_water_mark() -> None:
    status = "Name:\tpython\nVmPeak:\t  900000 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40960 kB\n"
    assert own_peak_mb(status) == 50.0
    with pytest.raises(RuntimeError, match="VmHWM"):
        own_peak_mb("Name:\tpython\n")
