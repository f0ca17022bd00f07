"""The demo and an export in a real terminal (a pseudo-terminal of 80 and 120 columns): no line is
wider than the terminal, and the progress bars never cut a figure (they drop columns, then
shorten labels); the demo tours every resource and says what its counts count."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.cells import cell_len

from enterprise_async.cli._progress import ItemsPerSecondColumn
from enterprise_async.testing import Sandbox

ESCAPE = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-Za-z]|[=>78])")
CUT_FIGURE = re.compile(r"\d[\d,./]*…")
"""A figure that ends in an ellipsis: what a cut count, speed or time looks like."""
SEED = 0


def run_in_terminal(
    args: list[str],
    columns: int,
    *,
    env: dict[str, str] | None = None,
    until: Callable[[str], bool] | None = None,
) -> tuple[int, str]:
    """Run ``args`` with a pseudo-terminal of ``columns`` for its standard output and error; returns
    its exit code and everything it wrote. ``until(output)`` true sends it SIGINT."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    environment = {**os.environ, **(env or {})}
    for name in ("COLUMNS", "LINES", "NO_COLOR", "TERM"):
        environment.pop(name, None)
    environment["TERM"] = "xterm-256color"
    process = subprocess.Popen(args, stdin=follower, stdout=follower, stderr=follower, env=environment)
    os.close(follower)
    chunks: list[bytes] = []
    interrupted = False
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.1)
        if ready:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal closed: the process ended
                break
            if not data:
                break
            chunks.append(data)
        if until is not None and not interrupted and until(b"".join(chunks).decode("utf-8", "replace")):
            process.send_signal(signal.SIGINT)
            interrupted = True
        if not ready and process.poll() is not None:
            break
    os.close(leader)
    code = process.wait(timeout=60)
    return code, b"".join(chunks).decode("utf-8", "replace")


def screen_lines(output: str) -> list[str]:
    """Every line the terminal showed, escape sequences removed (a carriage return starts one)."""
    return [line for line in re.split(r"[\r\n]", ESCAPE.sub("", output)) if line.strip()]


def too_wide(lines: list[str], columns: int) -> list[str]:
    """Lines wider than the terminal; a failure's one ``Error:`` line is left to the terminal to
    wrap (it stays one line so that it greps whole)."""
    return [line for line in lines if cell_len(line) > columns and not line.startswith("Error: ")]


@pytest.mark.parametrize("columns", [80, 120])
def test_the_demo_fits_the_terminal_and_covers_every_resource(columns: int) -> None:
    code, output = run_in_terminal(
        [sys.executable, "-m", "enterprise_async", "demo", "--catalog-items", "2000"], columns
    )
    lines = screen_lines(output)
    assert code == 0, output[-2000:]
    assert too_wide(lines, columns) == []
    assert [line for line in lines if CUT_FIGURE.search(line)] == []
    text = "\n".join(lines)
    for call in (
        "client.policies.",
        "client.assignments.",
        "client.subscriptions.",
        "client.enrollments.",
        "client.catalogs.",
        "client.learner_summary.",
    ):
        assert call in text.replace("\n", "")
    assert "2000/2000" in text  # the catalogs' bars end with their whole count


def test_the_demos_counts_say_what_they_count() -> None:
    """The figures the demo prints that the sandbox can settle: the assignments' learner state
    counts count every assignment of the listing, not only the page shown."""
    sandbox = Sandbox(seed=SEED)
    policy = next(p for p in sandbox.data.policies if p.assignment_configuration_uuid)
    records = sandbox.data.assignments(str(policy.assignment_configuration_uuid))
    code, output = run_in_terminal(
        [sys.executable, "-m", "enterprise_async", "demo", "--catalog-items", "10"], 200
    )
    assert code == 0, output[-2000:]
    text = " ".join(line.strip() for line in screen_lines(output))
    shown = re.search(r"8 assignments shown of (\d+)", text)
    assert shown is not None
    total = int(shown[1])
    assert len(records) <= total <= len(records) + 2  # the sandbox's, and the demo's two allocations
    assert f"The learner state counts are over all {total} assignments the listing matches" in text
    states = text.split("Learner state counts", 1)[1].split("The learner state counts", 1)[0]
    assert sum(int(count) for count in re.findall(r"\b[a-z_]+\s+(\d+)\b", states)) <= total
    summary = sandbox.data.summaries(sandbox.data.customers[0].uuid)
    assert f"8 records shown of {len(summary):,}" in text


@pytest.mark.parametrize("columns", [80, 120])
def test_an_interrupted_export_fits_the_terminal_and_keeps_its_figures_whole(
    served: Sandbox, tmp_path: Path, columns: int
) -> None:
    code, output = run_in_terminal(
        [
            sys.executable,
            "-m",
            "enterprise_async",
            "catalogs",
            "export",
            "--out",
            str(tmp_path),
            "--page-size",
            "10",
        ],
        columns,
        until=lambda seen: "items/s" in seen,
    )
    lines = screen_lines(output)
    assert code == 130, output[-2000:]
    assert too_wide(lines, columns) == []
    assert [line for line in lines if CUT_FIGURE.search(line)] == []
    assert any("interrupted" in line for line in lines)


def test_the_rate_of_a_resumed_catalog_leaves_out_the_items_already_on_disk() -> None:
    """The progress bars' items per second count this run's items only."""
    from rich.console import Console
    from rich.progress import Task, TaskID

    from enterprise_async.cli._progress import CatalogProgressBars
    from enterprise_async.models import Catalog

    bars = CatalogProgressBars(Console(width=120, force_terminal=False))
    catalog = Catalog(uuid="c1", title="One", enterprise_customer="e1")
    bars.catalogs_listed([catalog])
    bars.catalog_started(catalog, 1000)
    bars.items_resumed(catalog, 900)
    bars._progress.stop()
    one, overall = (
        [task for task in bars._progress.tasks if task.description == "One"],
        bars._progress.tasks[0],
    )
    assert one[0].fields["resumed"] == 900
    assert overall.fields["resumed"] == 900
    column = ItemsPerSecondColumn()
    for completed, shown in ((1000, "10 items/s"), (900, "")):  # 100 items of this run in 10 s; none
        task = Task(TaskID(0), "One", 1000, completed, _get_time=lambda: 10.0, fields={"resumed": 900})
        task.start_time = 0.0
        assert column.render(task).plain == shown


def test_a_message_wraps_at_words_on_a_terminal_and_stays_one_line_through_a_pipe(
    served: Sandbox, tmp_path: Path
) -> None:
    """Wrapping is for terminals only: through a real pipe, whatever COLUMNS says, a message is
    one line (a log reader takes a line for a record); on a terminal it wraps at the terminal's
    width. Both streams: learners export's note on standard error, sandbox-edit's on standard output."""
    out = tmp_path / ("a-folder-whose-name-is-long-" * 3) / "and of several words" / "learners.csv"
    out.parent.mkdir(parents=True)
    customer = served.data.customers[0].uuid
    catalog = served.data.catalogs[0].uuid
    fields = [f"field_{number}_with_a_long_name=1" for number in range(4)]
    runs = {
        "stderr": (
            ["learners", "export", customer, "--out", str(out)],
            f"wrote {len(served.data.summaries(customer))} learner records to {out} (csv)",
        ),
        "stdout": (
            ["sandbox-edit", "update", catalog, "3", *fields],
            f"updated {', '.join(field.split('=')[0] for field in fields)} of item 3 of catalog {catalog}",
        ),
    }
    columns = 60
    for stream, (arguments, message) in runs.items():
        assert len(message) > columns
        command = [sys.executable, "-m", "enterprise_async", *arguments]
        piped = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "COLUMNS": "40"},
        )
        assert piped.returncode == 0, piped.stderr
        assert getattr(piped, stream).splitlines() == [message]
        code, output = run_in_terminal(command, columns)
        lines = screen_lines(output)
        assert code == 0, output[-2000:]
        assert len(lines) > 1
        assert too_wide(lines, columns) == []
        assert "".join(lines).replace(" ", "") == message.replace(" ", "")
