"""Run the test suite several times in a row on a clean clone, beside one CPU-burning process per
core: a test whose outcome depends on the machine's load fails here rather than once in a while in CI.

    python .ci/loaded.py [--runs 5] [--burners N] [--step 'pytest args' ...]

Each ``--step`` is one pytest command line (its arguments, split as a shell would); the steps of
a run go in order and the run fails at its first failing step. Without ``--step`` the only step is
``pytest -q``. The clone is taken from the committed ``HEAD`` of the repository this script is in
(uncommitted changes are not in it), placed beside a link to the repository's ``../shared`` where
that exists (so that the tests reading the services' real payloads run, as in CI), and imported
from there (``PYTHONPATH``), with the Python running this script. Prints each run's time and
result, and exits non-zero if any run failed.
``nox -s loaded`` runs it with the steps of the ``tests`` session.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BURN = "while True: pass"


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5, help="runs of the whole suite (default 5)")
    parser.add_argument(
        "--burners", type=int, default=os.cpu_count() or 1, help="CPU burners (default: one per core)"
    )
    parser.add_argument("--step", action="append", default=[], help="one pytest command line; repeatable")
    arguments = parser.parse_args(argv)
    if arguments.runs < 1 or arguments.burners < 0:
        parser.error("--runs must be at least 1 and --burners at least 0")
    return arguments


def _clone(directory: Path) -> Path:
    clone = directory / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
    shared = ROOT.parent / "shared"
    if shared.is_dir():
        # The tests that read the services' real payloads find them at ../shared, as in CI.
        (directory / "shared").symlink_to(shared.resolve(), target_is_directory=True)
    head = subprocess.run(["git", "-C", str(clone), "log", "--oneline", "-1"], capture_output=True, text=True)
    print(f"clean clone of {head.stdout.strip()} in {clone}", flush=True)
    return clone


def _check_imported_from(clone: Path, environment: dict[str, str]) -> None:
    """The clone's package is the one imported, not an installed (or editable) one elsewhere."""
    where = subprocess.run(
        [sys.executable, "-c", "import enterprise_async; print(enterprise_async.__file__)"],
        cwd=clone,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not Path(where).is_relative_to(clone):
        raise SystemExit(f"enterprise_async is imported from {where}, not from the clone")


def _run(clone: Path, steps: list[list[str]]) -> tuple[float, str]:
    """One run of every step: its seconds and what became of it."""
    environment = {**os.environ, "PYTHONPATH": str(clone), "PYTHONDONTWRITEBYTECODE": "1"}
    _check_imported_from(clone, environment)
    started = time.monotonic()
    for number, step in enumerate(steps, 1):
        code = subprocess.run([sys.executable, "-m", "pytest", *step], cwd=clone, env=environment).returncode
        if code != 0:
            return time.monotonic() - started, f"FAILED at step {number} (pytest exit {code})"
    return time.monotonic() - started, "passed"


def main(argv: list[str]) -> int:
    arguments = _arguments(argv)
    steps = [shlex.split(step) for step in arguments.step] or [["-q"]]
    burners: list[subprocess.Popen[bytes]] = []
    results: list[tuple[float, str]] = []
    with tempfile.TemporaryDirectory(prefix="loaded-") as scratch:
        clone = _clone(Path(scratch))
        try:
            burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(arguments.burners)]
            print(f"{len(burners)} CPU-burning processes beside the suite", flush=True)
            for number in range(1, arguments.runs + 1):
                seconds, outcome = _run(clone, steps)
                results.append((seconds, outcome))
                print(f"== loaded run {number}/{arguments.runs}: {seconds:.1f} s, {outcome}", flush=True)
        finally:
            for burner in burners:
                burner.kill()
            for burner in burners:
                burner.wait()
    print("\nloaded runs (suite beside one CPU burner per core):")
    for number, (seconds, outcome) in enumerate(results, 1):
        print(f"  run {number}: {seconds:7.1f} s  {outcome}")
    failed = sum(outcome != "passed" for _, outcome in results)
    print(f"{len(results) - failed} of {len(results)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
