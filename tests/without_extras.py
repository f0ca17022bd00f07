"""Run Python in a child process where some modules cannot be imported, as on an install without
an extra: each is set to None in ``sys.modules`` (``import click`` then raises ImportError) before
the code runs."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

EXTRA_MODULES = {
    "cli": ("click", "rich"),
    "sandbox": ("jsonschema",),
    "redis": ("redis", "arq"),
}
"""The modules each extra installs (those of pyproject's optional dependencies that are imported)."""


def run_without(
    modules: Iterable[str], code: str, *arguments: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` (``python -c``, from the repository's root) with ``modules`` hidden."""
    hidden = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in modules)
    return subprocess.run(
        [sys.executable, "-c", hidden + code, *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_one_line(text: str) -> None:
    """``text`` is one line, and no traceback."""
    assert "Traceback" not in text, text
    assert len(text.strip().splitlines()) == 1, text
