"""The package's root shows its layers, and imports run one way down them (pyproject's contract)."""

from __future__ import annotations

from pathlib import Path

import pytest

import enterprise_async

PACKAGE = Path(enterprise_async.__file__).parent
REPOSITORY = PACKAGE.parent

PUBLIC_ROOT_FILES = {"__init__.py", "__main__.py", "errors.py", "models.py", "_version.py"}
LAYERS = {"_client", "_bulk", "_paging", "_transport", "_response", "_request", "_decoding", "_utils"}


def test_the_root_holds_the_public_modules_and_one_subpackage_per_layer() -> None:
    files = {path.name for path in PACKAGE.glob("*.py")}
    assert files == PUBLIC_ROOT_FILES
    assert len(files) <= 12
    subpackages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert subpackages == LAYERS | {"_generated", "cli", "exports", "fleet", "testing"}


def test_no_import_runs_back_up_the_layers() -> None:
    cli = pytest.importorskip("importlinter.cli")
    if not (REPOSITORY / "pyproject.toml").is_file():
        pytest.skip("the package is installed, not run from its repository")
    kept = cli.lint_imports(config_filename=str(REPOSITORY / "pyproject.toml"), no_cache=True, no_logo=True)
    assert kept == 0
