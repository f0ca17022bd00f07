"""Every Python block of every guide passes ``mypy --strict``, as a user's own code would have to.

tests/docs/test_markdown_blocks.py runs the blocks; this checks their types. A whole program is
checked as it is written. A fragment (top-level ``await``) is checked as the body of a coroutine
whose parameters are the names the guides give it (``client``, ``customer_uuid``...), typed as a
user's own code has them. One mypy run checks every block (a process per block would take minutes).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.docs._markdown import ROOT, Block, every_block
from tests.docs._run_block import is_fragment

FRAGMENT_PRELUDE = """\
from __future__ import annotations

from decimal import Decimal

from enterprise_async import EnterpriseClient
from enterprise_async.models import Course


async def fragment(
    client: EnterpriseClient,
    customer_uuid: str,
    policy_uuid: str,
    config_uuid: str,
    assignment_uuid: str,
    content_key: str,
    price_cents: int,
    plan_uuid: str,
    catalog_uuid: str,
    course_key: str,
    program_uuid: str,
    run_key: str,
    course: Course,
) -> None:
"""
"""The scope a fragment runs in (tests/docs/_run_block.py), as a user's own code types it."""

PROGRAM_NAMES = "from decimal import Decimal\nfrom enterprise_async.models import Course\ncourse: Course\n"
"""The names a whole program may use from the same scope (``course``)."""


def module_of(block: Block) -> str:
    """The block as a module mypy can check."""
    if is_fragment(block.code):
        return FRAGMENT_PRELUDE + textwrap.indent(block.code, "    ")
    return block.code if "course" not in block.code else PROGRAM_NAMES + block.code


def mypy_strict(paths: list[Path], cwd: Path) -> str:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--follow-imports=silent",
            *map(str, paths),
        ],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return finished.stdout + finished.stderr


def test_every_python_block_of_the_guides_passes_mypy_strict(tmp_path: Path) -> None:
    blocks = every_block()
    paths: dict[Path, Block] = {}
    for number, block in enumerate(blocks):
        path = tmp_path / f"block_{number:03d}.py"
        path.write_text(module_of(block), encoding="utf-8")
        paths[path] = block
    output = mypy_strict(list(paths), tmp_path)
    errors = [
        f"{paths[tmp_path / found.group(1)].name}: {found.group(2)}"
        for found in re.finditer(r"^(block_\d+\.py):\d+: error: (.*)$", output, re.MULTILINE)
    ]
    assert "Success" in output or not errors, output
    assert errors == []
