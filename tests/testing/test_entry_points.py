"""The ways in: the pytest plugin's fixture (auto and strict mode) and the command line server."""

from __future__ import annotations

import asyncio
import pathlib
import subprocess
import sys
import textwrap

import aiohttp
import pytest

from enterprise_async.testing import Sandbox

PLUGIN_TEST = textwrap.dedent(
    """
    import pytest

    {marker}
    async def test_sandbox_answers(enterprise_sandbox):
        async with enterprise_sandbox.client() as client:
            catalogs = await client.catalogs.list().to_list()
        assert len(catalogs) == 6
        assert enterprise_sandbox.seed == {seed}
    """
)


async def test_fixture_yields_a_running_sandbox(enterprise_sandbox: Sandbox) -> None:
    assert enterprise_sandbox.running
    async with enterprise_sandbox.client() as client:
        assert len(await client.catalogs.list().to_list()) == 6


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


async def test_module_entry_serves_until_interrupted() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "enterprise_async.testing",
        "--port",
        "0",
        "--seed",
        "3",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        first = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        base_url = first.rsplit(" ", 1)[-1].strip()
        assert base_url.startswith("http://127.0.0.1:")
        banner = [(await process.stdout.readline()).decode() for _ in range(4)]
        assert any("ENTERPRISE_CLIENT_ID=sandbox-client-3" in line for line in banner)
        async with (
            aiohttp.ClientSession() as session,
            session.get(base_url + "/enterprise/v2/enterprise-catalogs") as response,
        ):
            assert response.status == 401
    finally:
        process.send_signal(2)  # SIGINT, as Ctrl-C
        await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0
