"""The README's quick command, `nox -s quick`, does what the README says: one Python, the slow
suites left out, everything else in. Checked on the arguments the session really hands pytest
(the session function run with a recording stand-in for nox's session), collected by pytest."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from tests.docs._markdown import ROOT, section

noxfile = pytest.importorskip("noxfile", reason="nox is in the [dev] extra")


class Recording:
    """What a nox session function asks of its session: installs and commands, none run."""

    def __init__(self, posargs: list[str] | None = None) -> None:
        self.posargs = posargs or []
        self.ran: list[tuple[str, ...]] = []

    def install(self, *_: Any, **__: Any) -> None:
        pass

    def run(self, *command: str, **_: Any) -> None:
        self.ran.append(command)


def collected(*arguments: str) -> set[str]:
    """The test files pytest selects with these arguments (from the repository's root)."""
    options = [argument for argument in arguments if argument not in ("-n", "auto")]
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *options],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    return {line.split("::", 1)[0] for line in ran.stdout.splitlines() if "::" in line}


def test_the_readme_gives_the_quick_command() -> None:
    setup = section("README.md", "## Set up from a checkout")
    assert "`.venv/bin/nox -s quick` is a quicker run" in setup
    assert "one Python" in setup
    assert "without the slow" in setup


def test_the_quick_session_runs_on_one_python_only() -> None:
    assert noxfile.quick.python == noxfile.FULL_SUITE_PYTHON
    assert isinstance(noxfile.quick.python, str)
    assert "quick" not in noxfile.nox.options.sessions  # `nox` alone still runs everything


def test_the_quick_session_runs_one_pytest_without_the_slow_suites_and_with_the_rest() -> None:
    session = Recording()
    noxfile.quick(session)
    assert len(session.ran) == 1
    command = session.ran[0]
    assert command[0] == "pytest"
    quick = collected(*command[1:])
    everything = collected("tests")
    slow = {name for name in everything if name.startswith(noxfile.SLOW_SUITES)}
    assert slow, "the slow suites hold tests"
    assert quick == everything - slow


def test_the_tests_readme_says_what_its_commands_run() -> None:
    """`-- -x -q` replaces the suite's steps: the whole suite, which the guide must not call quick."""
    session = Recording(["-x", "-q"])
    noxfile.tests(session)
    assert session.ran == [("pytest", "-x", "-q")]
    guide = " ".join((ROOT / "tests" / "README.md").read_text(encoding="utf-8").split())
    assert "`-- -x -q` alone all of it, slow suites included" in guide
    assert "`nox -s quick` is the run for while you work" in guide
    for suite in noxfile.SLOW_SUITES:
        assert f"`{suite}`" in guide, f"tests/README.md does not name the slow suite {suite}"
