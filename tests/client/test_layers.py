"""The package's root shows its layers, and imports run one way down them (pyproject's contract)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import enterprise_async

PACKAGE = Path(enterprise_async.__file__).parent
REPOSITORY = PACKAGE.parent

PUBLIC_ROOT_FILES = {"__init__.py", "__main__.py", "errors.py", "models.py", "_version.py"}
LAYERS = {
    "_client",
    "_bulk",
    "_paging",
    "_transport",
    "_response",
    "_request",
    "_decoding",
    "_spec",
    "_utils",
}


def test_the_root_holds_the_public_modules_and_one_subpackage_per_layer() -> None:
    files = {path.name for path in PACKAGE.glob("*.py")}
    assert files == PUBLIC_ROOT_FILES
    assert len(files) <= 12
    subpackages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert subpackages == LAYERS | {"_generated", "cli", "exports", "fleet", "testing"}


def test_no_import_runs_back_up_the_layers() -> None:
    pytest.importorskip("importlinter.cli")
    if not (REPOSITORY / "pyproject.toml").is_file():
        pytest.skip("the package is installed, not run from its repository")
    # In a process of its own: import-linter sets up logging as a command does, which would
    # change what later tests of this process see of the SDK's log records.
    config = str(REPOSITORY / "pyproject.toml")
    run = (
        "import sys; from importlinter.cli import lint_imports; "
        f"sys.exit(lint_imports(config_filename={config!r}, no_cache=True, no_logo=True))"
    )
    done = subprocess.run(
        [sys.executable, "-c", run], cwd=REPOSITORY, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
