"""``tests/`` mirrors the runtime's layers: each ``enterprise_async/_<layer>/`` has ``tests/<layer>/``,
and no folder of ``tests/`` is named for a layer the runtime does not have; the root of ``tests/``
keeps only what every folder shares. No hand-written module of the package is over 450 lines (the
generator's are held to the same by ``tests/codegen``)."""

from __future__ import annotations

from pathlib import Path

import enterprise_async

PACKAGE = Path(enterprise_async.__file__).parent
TESTS = Path(__file__).parent

MOST_FILES_AT_THE_ROOT = 12
"""Files directly in ``tests/``: the suite's shared fixtures and helpers, its README and this test."""

MOST_LINES = 450
"""Lines of a hand-written module of ``enterprise_async`` at most."""

GENERATED = "_generated"
"""Written by the generator, whose tests are ``tests/codegen``."""

BESIDE_THE_LAYERS = {
    "cli",
    "fleet",
    "exports",
    "testing",
    "codegen",
    "docs",
    "programs",
    "hostile",
    "bench",
    "fixtures",
}
"""The folders for the public subpackages, the generator, and the suites that test no single layer."""


def packages(root: Path) -> set[str]:
    return {path.name for path in root.iterdir() if (path / "__init__.py").is_file()}


def layers() -> set[str]:
    private = {name for name in packages(PACKAGE) if name.startswith("_")} - {GENERATED}
    return {name.removeprefix("_") for name in private}


def test_the_runtime_has_the_layers_the_tests_mirror() -> None:
    assert layers() == {
        "client",
        "bulk",
        "paging",
        "transport",
        "response",
        "request",
        "decoding",
        "spec",
        "utils",
    }


def test_every_layer_has_a_test_folder_named_for_it() -> None:
    missing = {layer for layer in layers() if not (TESTS / layer / "__init__.py").is_file()}
    assert not missing, f"layers with no tests/<layer>/ package: {sorted(missing)}"


def test_every_test_folder_is_a_layer_or_stands_beside_them() -> None:
    folders = {path.name for path in TESTS.iterdir() if path.is_dir() and any(path.glob("*.py"))}
    strays = folders - layers() - BESIDE_THE_LAYERS
    assert not strays, f"test folders named for no layer of enterprise_async: {sorted(strays)}"


def test_every_public_subpackage_has_a_test_folder() -> None:
    public = {name for name in packages(PACKAGE) if not name.startswith("_")}
    missing = public - packages(TESTS)
    assert not missing, f"public subpackages with no tests/<name>/: {sorted(missing)}"


def test_the_root_of_tests_keeps_only_what_the_folders_share() -> None:
    files = sorted(path.name for path in TESTS.iterdir() if path.is_file())
    assert len(files) <= MOST_FILES_AT_THE_ROOT, f"{len(files)} files at the root of tests/: {files}"


def test_no_hand_written_module_is_over_450_lines() -> None:
    modules = (path for path in PACKAGE.rglob("*.py") if GENERATED not in path.relative_to(PACKAGE).parts)
    lines = {
        path.relative_to(PACKAGE).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in modules
    }
    over = {name: count for name, count in lines.items() if count > MOST_LINES}
    assert not over, f"modules over {MOST_LINES} lines: {over}"
