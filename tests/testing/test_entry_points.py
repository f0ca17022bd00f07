"""The ways in: the pytest plugin's fixture (auto and strict mode); the sandbox stands below the CLI."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap

import pytest

from enterprise_async.testing import Sandbox

PLUGIN_TEST = textwrap.dedent(
    """
    import pytest

    {marker}
    async def test_sandbox_answers(enterprise_sandbox):
        async with enterprise_sandbox.client() as client:
            catalogs = await client.catalogs.list().to_list()
        # the token's customer's catalogs, as enterprise-catalog lists them
        own = enterprise_sandbox.data.catalogs_of(enterprise_sandbox.data.customers[0].uuid)
        assert [catalog.uuid for catalog in catalogs] == [catalog.uuid for catalog in own]
        assert own
        assert enterprise_sandbox.seed == {seed}
    """
)


async def test_fixture_yields_a_running_sandbox(enterprise_sandbox: Sandbox) -> None:
    assert enterprise_sandbox.running
    async with enterprise_sandbox.client() as client:
        catalogs = await client.catalogs.list().to_list()
    own = enterprise_sandbox.data.catalogs_of(enterprise_sandbox.data.customers[0].uuid)
    assert [catalog.uuid for catalog in catalogs] == [catalog.uuid for catalog in own]
    assert own


@pytest.mark.enterprise_sandbox(seed=5, token_lifetime=2.0)
async def test_marker_configures_the_fixture(enterprise_sandbox: Sandbox) -> None:
    assert enterprise_sandbox.seed == 5
    assert enterprise_sandbox.tokens.lifetime == 2.0


def _run_pytest(
    tmp_path: pathlib.Path, mode: str, marker: str, seed: int
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_with_plugin.py").write_text(PLUGIN_TEST.format(marker=marker, seed=seed))
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\nasyncio_mode = {mode}\n"
        "asyncio_default_fixture_loop_scope = function\n"
        "filterwarnings = error\n"
    )
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_fixture_works_in_auto_mode(tmp_path: pathlib.Path) -> None:
    result = _run_pytest(tmp_path, "auto", "", 0)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_fixture_works_in_strict_mode(tmp_path: pathlib.Path) -> None:
    result = _run_pytest(
        tmp_path, "strict", "@pytest.mark.asyncio\n@pytest.mark.enterprise_sandbox(seed=2)", 2
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_the_sandbox_and_its_server_load_nothing_of_the_command_line() -> None:
    """The sandbox is below the CLI: the CLI serves it (``enterprise-async sandbox``), never the
    other way round."""
    code = (
        "import sys, enterprise_async.testing as testing; testing.Sandbox; testing.serve; "
        "print([name for name in sys.modules if name.startswith('enterprise_async.cli')])"
    )
    finished = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert finished.stdout.strip() == "[]"
