"""Every command of the guides' shell blocks is run by a test as written, or says why not and
which test covers what it does.

The lines of every ```` ```sh ```` and ```` ```console ```` block of every guide
(``tests/docs/_markdown.GUIDES``) are read; each matches exactly one entry of ``COVERED``: run
here (the install lines, with ``REPO_URL`` a clone of this checkout), run by another test (named,
and that test must exist), or not run (the reason, and the test that covers what it does).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from attrs import frozen
from packaging.requirements import Requirement

from tests.client.test_lean_install import _project
from tests.docs._markdown import GUIDES, ROOT, section
from tests.docs.test_shell_commands import commands as guide_commands


@frozen
class Coverage:
    pattern: str
    """A regular expression that a command (as written, comments left out) matches from its start."""
    test: str
    """The test that runs it, or that covers what it does."""
    why_not: str | None = None
    """Why the command itself is not run (None: it is, by ``test``)."""


SHELL = "tests/docs/test_shell_commands.py"
COVERED = (
    Coverage(r"enterprise-async (?!worker|catalogs export --queue|sandbox --port)", SHELL),
    Coverage(r"ENTERPRISE_LOG=debug enterprise-async ", SHELL),
    Coverage(r"REPO_URL=", "tests/docs/test_every_command.py"),
    Coverage(r'git clone "\$REPO_URL" enterprise-async', "tests/docs/test_every_command.py"),
    Coverage(
        r'pip install "enterprise-async\[cli\] @ git\+\$REPO_URL"',
        "tests/docs/test_every_command.py",
        "installs from a package index: the requirement it names is parsed and its extra checked here",
    ),
    Coverage(
        r"pip install dist/enterprise_async-\*\.whl",
        "tests/docs/test_guides_for_users.py",
        "installs a wheel from a package index's dependencies: `nox -s dist` builds and twine-checks it",
    ),
    Coverage(
        r"python3 -m venv \.venv && \.venv/bin/pip install 'nox\[uv\]' && \.venv/bin/nox$",
        "tests/test_ci_scripts.py",
        "the whole suite from a clean clone: CI's .ci/run runs exactly this line",
    ),
    Coverage(
        r"python3 -m venv \.venv && \.venv/bin/pip install -e '\.\[cli,sandbox\]' && "
        r"\.venv/bin/enterprise-async demo",
        "tests/cli/test_demo_and_sandbox.py",
        "installs from a package index into a new environment; the demo it ends with runs there",
    ),
    Coverage(
        r"\.venv/bin/nox -s codegen$",
        "tests/docs/test_adding_a_field.py",
        "a nox session within the tests; `python -m codegen`, which it runs, runs there",
    ),
    Coverage(
        r"pip install pytest pytest-asyncio$", "tests/docs/test_readme_pytest_example.py", "a package index"
    ),
    Coverage(
        r"enterprise-async sandbox --port 8000",
        "tests/cli/test_demo_and_sandbox.py",
        "stays in the foreground: that test runs it and sources what it prints",
    ),
    Coverage(
        r"export ENTERPRISE_BASE_URL=",
        "tests/cli/test_demo_and_sandbox.py",
        "the values are the sandbox's, printed by the line above",
    ),
    Coverage(
        r"(ACME_CLIENT_SECRET=\.\.\. )?enterprise-async (worker|catalogs export) --queue redis://redis\.internal",
        "tests/fleet/test_fleet_command_line.py",
        "needs the reader's Redis (redis.internal): that test runs both commands on a local Redis",
    ),
    Coverage(
        r"\$ enterprise-async --drift catalogs contents ",
        "tests/decoding/drift/test_drift.py",
        "a service sending a field the spec lacks, shown with its report: that test holds the report",
    ),
    Coverage(r"(drift: |unknown field: )", "tests/decoding/drift/test_drift.py", "the output shown"),
    Coverage(
        r"python -m codegen compare ",
        "tests/codegen/test_compare.py",
        "a service's document from its host or the reader's disk: that test compares local documents",
    ),
    Coverage(r"curl ", "tests/codegen/test_compare.py", "fetches a service's document from its host"),
    Coverage(r"python -m codegen && python -m codegen --check$", "tests/docs/test_adding_a_field.py"),
    Coverage(
        r"python -m pytest -p no:xdist tests/codegen/test_compare\.py ",
        "tests/codegen/test_compare.py",
        "runs tests: the suite runs these files",
    ),
)


@frozen
class Command:
    guide: str
    line: str


def every_command() -> list[Command]:
    """The commands of every shell block of every guide, comments left out."""
    found = []
    for guide in GUIDES:
        text = (ROOT / guide).read_text(encoding="utf-8")
        for block in re.findall(r"```(?:sh|console)\n(.*?)```", text, re.DOTALL):
            for line in block.splitlines():
                code = line.split("  #", 1)[0].strip()
                if code and not code.startswith("#"):
                    found.append(Command(guide, code))
    return found


def covering(command: Command) -> list[Coverage]:
    return [entry for entry in COVERED if re.match(entry.pattern, command.line)]


@pytest.mark.parametrize(
    "command", every_command(), ids=lambda command: f"{command.guide}: {command.line[:50]}"
)
def test_every_command_is_run_or_says_why_not(command: Command) -> None:
    found = covering(command)
    assert len(found) == 1, f"{command.guide}: {command.line!r} matches {len(found)} entries of COVERED"
    assert (ROOT / found[0].test).is_file(), found[0].test


def test_the_commands_run_by_the_shell_test_are_the_ones_it_finds() -> None:
    runs = {(command.guide, command.line) for command in guide_commands()}
    said = {
        (command.guide, command.line) for command in every_command() if covering(command)[0].test == SHELL
    }
    assert said <= runs


def test_every_entry_covers_a_command() -> None:
    commands = every_command()
    assert [
        entry.pattern for entry in COVERED if not any(re.match(entry.pattern, c.line) for c in commands)
    ] == []


INSTALL = section("README.md", "## Install")
INSTALL_BLOCK = re.search(r"```sh\n(.*?)```", INSTALL, re.DOTALL)


@pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None, reason="not a git checkout")
def test_the_install_lines_run_as_written_with_repo_url_a_clone_of_this_checkout(tmp_path: Path) -> None:
    assert INSTALL_BLOCK is not None
    lines = [line.split("  #", 1)[0].strip() for line in INSTALL_BLOCK[1].splitlines()]
    definition, checkout, _, from_url = lines
    assert re.fullmatch(r"REPO_URL=\S+", definition)  # the line that defines it comes first
    clone = checkout.split(" && ", 1)[0]
    script = f'REPO_URL={ROOT.as_uri()}\n{clone}\ntest -f enterprise-async/pyproject.toml\necho "$REPO_URL"'
    ran = subprocess.run(
        ["bash", "-eu", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert ran.returncode == 0, ran.stderr
    extras = _project()["optional-dependencies"]
    assert isinstance(extras, dict)
    assert "cli" in extras  # `pip install -e './enterprise-async[cli]'`: an extra that exists
    requirement = Requirement(from_url.split(" ", 2)[2].strip('"').replace("$REPO_URL", ran.stdout.strip()))
    assert requirement.name == "enterprise-async"
    assert requirement.extras == {"cli"}
    assert requirement.url == f"git+{ROOT.as_uri()}"
