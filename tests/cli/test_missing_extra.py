"""Without the [cli] extra, the command line says in one line how to install it; without the
[sandbox] extra, so do the commands that run the sandbox. Never a traceback."""

from __future__ import annotations

import pytest

from tests.without_extras import assert_one_line, run_without

CONSOLE_SCRIPT = "from enterprise_async.__main__ import main; main()"
"""What the ``enterprise-async`` console script runs."""
PYTHON_DASH_M = "import runpy; runpy.run_module('enterprise_async', run_name='__main__')"
"""What ``python -m enterprise_async`` runs."""


@pytest.mark.parametrize("entry", [CONSOLE_SCRIPT, PYTHON_DASH_M])
@pytest.mark.parametrize("hidden", ["click", "rich"])
def test_the_command_line_without_its_extra_names_the_install_command(entry: str, hidden: str) -> None:
    ran = run_without([hidden], entry, "catalogs", "list", "--sandbox")
    assert ran.returncode == 2
    assert ran.stderr.startswith("enterprise-async: the command line needs the [cli] extra")
    assert "pip install 'enterprise-async[cli]'" in ran.stderr
    assert_one_line(ran.stderr)


def test_importing_the_command_line_package_without_its_extra_raises_one_import_error() -> None:
    code = (
        "try:\n    import enterprise_async.cli\n"
        "except ImportError as error:\n    print(type(error).__name__, error)"
    )
    ran = run_without(["click"], code)
    assert ran.stdout.strip() == (
        "MissingExtraError the command line needs the [cli] extra (click not installed): "
        "pip install 'enterprise-async[cli]'"
    )


@pytest.mark.parametrize(
    "arguments",
    [("catalogs", "list", "--sandbox"), ("demo", "--catalog-items", "1"), ("sandbox", "--port", "0")],
)
def test_a_sandbox_command_without_the_sandbox_extra_names_the_install_command(
    arguments: tuple[str, ...],
) -> None:
    ran = run_without(["jsonschema"], CONSOLE_SCRIPT, *arguments)
    assert ran.returncode == 2
    assert "pip install 'enterprise-async[sandbox]'" in ran.stderr
    assert_one_line(ran.stderr)


def test_the_command_line_runs_its_help_without_the_sandbox_extra() -> None:
    ran = run_without(["jsonschema"], CONSOLE_SCRIPT, "--help")
    assert ran.returncode == 0, ran.stderr
    assert "catalogs" in ran.stdout
