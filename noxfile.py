"""Sessions: `nox` runs lint, typecheck, drift (codegen --check), dist (the wheel and the sdist
built and checked with `twine check`), conformance (schemathesis against the sandbox) and the
tests, last, so that a run ends with pytest's summary: exactly what CI runs.

The tests run once per supported Python this machine has (`tests-3.10` ... `tests-3.13`); the other
sessions on the Python running nox. Interpreters are looked for, not assumed: with `CI=true` nox
fails on a session whose Python is missing, so a machine without 3.12 simply has no `tests-3.12`.

On demand: `nox -s quick` runs the tests on one Python without the slow suites (a few minutes,
for while you work), `nox -s codegen` regenerates from the spec, `nox -s bench` runs the benchmarks,
`nox -s soak` the long fault-injection run, `nox -s loaded` the whole suite five times beside one
CPU-burning process per core.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys

import nox

nox.options.sessions = ["lint", "typecheck", "drift", "dist", "conformance", "tests"]
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "uv|venv"
"""uv where it is installed (`pip install 'nox[uv]'`, as CI does): it makes each session's
environment in seconds where pip takes a minute, from the same releases; plain venv and pip
otherwise."""
os.environ.setdefault("UV_PYTHON_DOWNLOADS", "never")  # the machine's interpreters only, found below

DEV = ".[dev]"
SUPPORTED_PYTHONS = ("3.10", "3.11", "3.12", "3.13")


def _runs_as(executable: str, version: str) -> bool:
    """Whether the file is a working interpreter of that version (a pyenv shim of a version that
    is installed but not selected is on PATH, yet fails when run)."""
    try:
        probe = subprocess.run(
            [executable, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0 and probe.stdout.strip() == version


def _installed(version: str) -> str | None:
    """A working `pythonX.Y`: the one on PATH, else the newest of pyenv's (PYENV_ROOT or ~/.pyenv)."""
    on_path = shutil.which(f"python{version}")
    if on_path and _runs_as(on_path, version):
        return on_path
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    pattern = os.path.join(root, "versions", f"{version}.*", "bin", f"python{version}")
    for candidate in sorted(glob.glob(pattern), key=_patch_level, reverse=True):
        if _runs_as(candidate, version):
            return candidate
    return None


def _patch_level(executable: str) -> int:
    """The Z of a pyenv `versions/X.Y.Z/bin/pythonX.Y` (0 for a name like `3.12-dev`)."""
    patch = os.path.basename(os.path.dirname(os.path.dirname(executable))).split(".")[2:3]
    return int(patch[0]) if patch and patch[0].isdigit() else 0


def _test_pythons() -> list[str]:
    """Every supported Python found here, each made findable by nox under its `pythonX.Y` name;
    never an empty list (the Python running nox is always there), so the tests always run."""
    found: list[str] = []
    for version in SUPPORTED_PYTHONS:
        executable = _installed(version)
        if executable is None:
            continue
        found.append(version)
        if shutil.which(f"python{version}") != executable:
            os.environ["PATH"] = os.path.dirname(executable) + os.pathsep + os.environ["PATH"]
    return found or [f"{sys.version_info.major}.{sys.version_info.minor}"]


TEST_PYTHONS = _test_pythons()
RUNNING_PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
FULL_SUITE_PYTHON = RUNNING_PYTHON if RUNNING_PYTHON in TEST_PYTHONS else TEST_PYTHONS[-1]
"""The Python whose tests session also runs the slow suites (the one running nox, as CI's)."""
SLOW_SUITES = (
    "tests/fleet",
    "tests/codegen",
    "tests/exports/test_soak.py",
    "tests/docs/test_markdown_blocks.py",
    "tests/docs/test_adding_a_field.py",
)
"""Multi-process, regeneration and guide-running suites (minutes each; each guide block runs in a
process of its own) that test no Python-version-specific code
of their own (the generator is a development tool, run on the Python running nox, as `drift`
does; the code it writes is tested on every Python by the rest): run on FULL_SUITE_PYTHON only,
so that CI on four Pythons stays within its time."""
ALONE = ("tests/fleet/test_rate_budget.py",)
"""Counts the requests the sandbox receives in each second: run alone after the others, as a
service would see a fleet, not beside tests that load the machine and stretch the way there."""


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: lint and formatting; import-linter: the layers contract of pyproject.toml."""
    session.install("ruff==0.17.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.install("-e", ".", "import-linter>=2.1")
    session.run("lint-imports")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the package."""
    session.install("-e", DEV)
    session.run("mypy", "--strict", "enterprise_async")


@nox.session
def codegen(session: nox.Session) -> None:
    """Regenerate enterprise_async/_generated from spec/ (`-- --check` fails on drift instead)."""
    session.install("-e", DEV)
    session.run("python", "-m", "codegen", *session.posargs)


@nox.session
def drift(session: nox.Session) -> None:
    """Fail when the committed generated code differs from a fresh generation."""
    session.install("-e", DEV)
    session.run("python", "-m", "codegen", "--check")


@nox.session
def dist(session: nox.Session) -> None:
    """Build the wheel and the sdist into dist/, and check them with `twine check --strict` (the
    metadata and the README an index would show): what `pip install dist/*.whl` installs."""
    session.install("build", "twine")
    shutil.rmtree("dist", ignore_errors=True)
    session.run("python", "-m", "build", "--sdist", "--wheel", "--outdir", "dist", ".")
    session.run("twine", "check", "--strict", *sorted(glob.glob("dist/*")))


@nox.session(python=TEST_PYTHONS)
def tests(session: nox.Session) -> None:
    """The test suite (warnings are errors) on every supported Python this machine has, spread
    over every core (pytest-xdist); the slow suites on one of them, after the rest, in a run of
    their own, so that their processes and Redis servers never share the machine with the rest's
    CPU-bound tests (all of it with `-- tests`, or any pytest arguments given).

    pytest's exit code 5 (no test collected) fails the session like any other non-zero code. Every
    test of every run, on every worker, is checked for leaked secrets by tests/_leak_watch.py.
    """
    session.install("-e", DEV)
    if session.posargs:
        session.run("pytest", *session.posargs, success_codes=[0])
        return
    for step in _suite_steps(full=session.python == FULL_SUITE_PYTHON):
        session.run("pytest", *step, success_codes=[0])


@nox.session(python=FULL_SUITE_PYTHON)
def quick(session: nox.Session) -> None:
    """The suite on one Python (the one running nox) without the slow suites (SLOW_SUITES: the
    fleet, the generator, the soak run, the guides' blocks), spread over every core: the check to
    run while you work. Arguments after `--` are added to pytest's (`-- -x`); `nox` runs everything.
    """
    session.install("-e", DEV)
    session.run("pytest", *quick_arguments(), *session.posargs, success_codes=[0])


def quick_arguments() -> list[str]:
    """pytest's arguments of `nox -s quick`: the first step of the whole suite, which leaves the
    slow suites out."""
    return _suite_steps(full=False)[0]


def _suite_steps(*, full: bool) -> list[list[str]]:
    """The pytest command lines of the whole suite, in order (``full``: the slow suites too)."""
    steps = [["-n", "auto", *[f"--ignore={suite}" for suite in SLOW_SUITES]]]
    if full:
        steps.append(["-n", "auto", *SLOW_SUITES, *[f"--ignore={suite}" for suite in ALONE]])
        steps.append([*ALONE])
    return steps


@nox.session
def loaded(session: nox.Session) -> None:
    """The whole suite (as `tests` runs it on the Python running nox) five times in a row on a clean
    clone of HEAD, beside one CPU-burning process per core; prints each run's time and result
    (.ci/loaded.py). Not in the default run: it takes the machine for a long while.

    `nox -s loaded -- --runs 2 --step "tests/transport/test_auth.py -q"` for a part of it; any
    `--step` given replaces the suite's steps.
    """
    session.install("-e", DEV)
    arguments = list(session.posargs)
    if "--step" not in arguments:
        for step in _suite_steps(full=True):
            arguments += ["--step", " ".join(step)]
    session.run("python", ".ci/loaded.py", *arguments)


@nox.session
def conformance(session: nox.Session) -> None:
    """schemathesis against a running sandbox: it answers as spec/openapi.yaml says."""
    session.install("-e", ".[conformance]")
    session.run("python", "tests/testing/conformance.py", *session.posargs)


@nox.session
def soak(session: nox.Session) -> None:
    """Export 20,000 catalog items under 10% faults and expiring tokens, in JSON and XML; prints a summary."""
    session.install("-e", DEV)
    session.env["ENTERPRISE_SOAK_ITEMS"] = session.env.get("ENTERPRISE_SOAK_ITEMS", "20000")
    session.run("pytest", "tests/exports/test_soak.py", "-q", "-p", "no:cacheprovider", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """The benchmarks (tests/bench): prints the results table and writes bench-results.md.

    About ten minutes; `nox -s bench -- --rounds 3 --only B2,B3` for a part of it.
    """
    session.install("-e", DEV)
    session.run("python", "-m", "tests.bench", *session.posargs)
