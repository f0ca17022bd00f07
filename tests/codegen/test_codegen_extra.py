"""`python -m codegen` in an environment without the generator's packages (the README's, which
installs `[cli,sandbox]`) says in one line which extra to install, and that extra holds every
package the generator imports."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys

import pytest

from codegen.__main__ import GENERATOR_MODULES, INSTALL
from tests.client.test_lean_install import _project
from tests.without_extras import ROOT, assert_one_line, run_without

PYTHON_DASH_M = "import runpy; runpy.run_module('codegen', run_name='__main__')"
"""What ``python -m codegen`` runs."""


@pytest.mark.parametrize("arguments", [(), ("--check",), ("compare", "schema.yaml", "--service", "x")])
@pytest.mark.parametrize("hidden", GENERATOR_MODULES)
def test_without_a_generator_package_it_names_the_extra_in_one_line(
    hidden: str, arguments: tuple[str, ...]
) -> None:
    ran = run_without([hidden], PYTHON_DASH_M, *arguments)
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr.startswith("python -m codegen needs the [codegen] extra")
    assert f"no module named {hidden!r}" in ran.stderr
    assert "pip install -e '.[codegen]'" in ran.stderr
    assert_one_line(ran.stderr)
    assert ran.stdout == ""


def _imported_packages() -> set[str]:
    """The top-level modules the generator imports that are neither its own, the standard
    library's, nor the package's it generates for."""
    found: set[str] = set()
    for path in (ROOT / "codegen").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    own = {"codegen", "enterprise_async", "__future__"}
    return {name for name in found - own if name not in sys.stdlib_module_names}


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\[<>=!~;\s]", requirement, maxsplit=1)[0].lower() for requirement in requirements}


def test_the_codegen_extra_holds_every_package_the_generator_imports() -> None:
    project = _project()
    optional = project["optional-dependencies"]
    assert isinstance(optional, dict)
    runtime = _names(project["dependencies"])  # type: ignore[arg-type]
    extra = _names(optional["codegen"])
    distributions = importlib.metadata.packages_distributions()
    for module in sorted(_imported_packages()):
        names = {name.lower().replace("_", "-") for name in distributions.get(module, [])}
        assert names & (runtime | extra), (
            f"codegen imports {module}, which neither the package nor [codegen] brings"
        )
        if not names & runtime:
            assert module in GENERATOR_MODULES, f"{module} is not checked before the generator runs"
    assert "ruff" in extra
    assert "ruff" in GENERATOR_MODULES


def test_the_maintainers_guide_gives_the_install_command() -> None:
    guide = (ROOT / "codegen" / "README.md").read_text(encoding="utf-8")
    assert INSTALL in guide
