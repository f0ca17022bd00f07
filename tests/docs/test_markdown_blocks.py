"""Every Python block of every guide runs, as written, against a sandbox.

Each block runs in a process of its own (tests/docs/_run_block.py): a whole program as it is, a
fragment inside an event loop with a sandbox client and the ids the guides name. A block that
needs more than a sandbox (a Redis server) names the test that runs it, and that test reads it
from the same guide.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs._markdown import GUIDES, ROOT, Block, every_block

RUNNER = Path(__file__).with_name("_run_block.py")
BLOCKS = every_block()


@pytest.mark.parametrize(
    "block", [block for block in BLOCKS if block.tested_by is None], ids=lambda block: block.name
)
def test_the_block_runs_as_written(block: Block, tmp_path: Path) -> None:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    finished = subprocess.run(
        [sys.executable, str(RUNNER), block.name],
        input=block.code,
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert finished.stdout.rstrip().endswith("block ran")


@pytest.mark.parametrize(
    "block", [block for block in BLOCKS if block.tested_by], ids=lambda block: block.name
)
def test_a_block_left_to_another_test_is_read_by_it(block: Block) -> None:
    test = ROOT / str(block.tested_by)
    assert test.is_file()
    assert block.guide in test.read_text(encoding="utf-8")


@pytest.mark.parametrize("guide", GUIDES)
def test_every_guide_exists_and_links_only_to_files_that_exist(guide: str) -> None:
    path = ROOT / guide
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8"))
    assert [link for link in links if not (path.parent / link).exists()] == []


def test_no_guide_points_outside_the_repository() -> None:
    assert [
        guide for guide in GUIDES if "shared/realdata" in (ROOT / guide).read_text(encoding="utf-8")
    ] == []


def test_the_readme_is_a_guide_of_at_most_450_lines() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 450


def _shell_blocks(text: str) -> list[str]:
    return [str(code) for code in re.findall(r"```sh\n(.*?)```", text, re.DOTALL)]


def test_ci_runs_the_readmes_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = next(
        line for block in _shell_blocks(readme) for line in block.splitlines() if line.endswith("/nox")
    )
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert command.replace("pip install ", "pip install --quiet ") in ci.splitlines()


def test_the_readmes_demo_command_installs_the_extras_the_demo_needs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = next(
        line for block in _shell_blocks(readme) for line in block.splitlines() if line.endswith(" demo")
    )
    assert "pip install -e '.[cli,sandbox]'" in command
