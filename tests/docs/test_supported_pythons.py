"""Python 3.10 to 3.13: the package imports and decodes on each, and `nox` tests every one found.

`nox` runs this whole suite once per supported Python the machine has (`tests-3.10` ...
`tests-3.13`), so these tests run on each of them too.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from enterprise_async.models import from_dict

ROOT = Path(__file__).resolve().parents[2]
SUPPORTED = ("3.10", "3.11", "3.12", "3.13")
RUNNING = f"{sys.version_info.major}.{sys.version_info.minor}"


def test_the_package_imports_in_a_fresh_interpreter() -> None:
    # Python 3.10 once failed here: typing.Any is not a class there, and cattrs' single dispatch refused it.
    imported = subprocess.run(
        [sys.executable, "-c", "import enterprise_async, enterprise_async.testing"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert imported.returncode == 0, imported.stderr


def test_a_value_declared_any_decodes_as_sent() -> None:
    value = {"group": ["a", 1, None], "nested": {"x": 1.5}}
    assert from_dict(Any, value) == value
    assert from_dict(list[Any], [value, "text"]) == [value, "text"]


def _test_sessions(env: dict[str, str]) -> list[str]:
    listing = subprocess.run(
        [sys.executable, "-m", "nox", "--list", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [entry["session"] for entry in json.loads(listing.stdout) if entry["name"] == "tests"]


def test_nox_tests_the_python_running_the_suite() -> None:
    assert f"tests-{RUNNING}" in _test_sessions(dict(os.environ))


def test_nox_skips_a_python_whose_command_fails(tmp_path: Path) -> None:
    # A pyenv shim of an installed but unselected version is on PATH and fails when run; with CI=true
    # nox would fail on it instead of skipping it, so the noxfile probes every candidate.
    shims = tmp_path / "shims"
    shims.mkdir()
    for version in SUPPORTED:
        shim = shims / f"python{version}"
        shim.write_text("#!/bin/sh\necho 'pyenv: command not found' >&2\nexit 127\n")
        shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "PATH": f"{shims}{os.pathsep}/usr/bin{os.pathsep}/bin", "CI": "true"}
    env["PYENV_ROOT"] = str(tmp_path / "no-pyenv")
    # Nothing runs: the tests still run, on the Python running nox, rather than not at all.
    assert _test_sessions(env) == [f"tests-{RUNNING}"]
