"""The repository's own CI scripts (``.ci/``) set up what the suite needs."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def _loaded_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ci_loaded", ROOT / ".ci" / "loaded.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"no {SHARED} beside the repository")
def test_the_loaded_runs_clone_sits_beside_the_shared_payloads(tmp_path: Path) -> None:
    """Without ../shared the tests reading the services' real payloads would be skipped, and
    the loaded runs would not be the whole suite."""
    clone = _loaded_script()._clone(tmp_path)

    assert (clone / "pyproject.toml").is_file()
    assert (clone.parent / "shared").resolve() == SHARED.resolve()
    assert (clone.parent / "shared" / "realdata").is_dir()
