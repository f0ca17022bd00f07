"""Without the [sandbox] extra, importing the sandbox raises one ImportError naming the install
command; the package itself and its pytest plugin still import."""

from __future__ import annotations

from tests.without_extras import run_without

IMPORT_SANDBOX = (
    "try:\n    from enterprise_async.testing import Sandbox\n"
    "except ImportError as error:\n    print(type(error).__name__, error)"
)


def test_importing_the_sandbox_without_its_extra_names_the_install_command() -> None:
    ran = run_without(["jsonschema"], IMPORT_SANDBOX)
    assert ran.stdout.strip() == (
        "MissingExtraError the sandbox needs the [sandbox] extra (jsonschema not installed): "
        "pip install 'enterprise-async[sandbox]'"
    )


def test_the_pytest_plugin_imports_without_the_sandbox_extra() -> None:
    ran = run_without(["jsonschema"], "import enterprise_async.testing.pytest_plugin; print('loaded')")
    assert ran.stdout.strip() == "loaded", ran.stderr
