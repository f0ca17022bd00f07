"""The README's pytest example, run as written by pytest-asyncio in its default (strict) mode."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
STRICT_PYTEST = (sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=strict")


def pytest_example() -> str:
    """The Python block that follows the README's words on the ``enterprise_sandbox`` fixture."""
    section = README.read_text().split("the `enterprise_sandbox` pytest fixture", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None
    return code.group(1)


def test_the_pytest_example_passes_in_strict_mode(tmp_path: Path) -> None:
    (tmp_path / "test_example.py").write_text(pytest_example())
    finished = subprocess.run(
        [*STRICT_PYTEST, "test_example.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "1 passed" in finished.stdout  # run, not skipped as an unmarked coroutine would be
