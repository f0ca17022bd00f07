"""codegen/README.md's "Adding a field", as written: its two edits of the spec, taken from the
guide's blocks, in a copy of the repository; `python -m codegen && python -m codegen --check`
there; then the copy's sandbox
served as `enterprise-async sandbox` serves it, and the guide's command,
`enterprise-async catalogs list --json`, run by the copy's package: every catalog it prints has
the new field. Regenerating makes this a slow suite (noxfile's SLOW_SUITES)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs._markdown import ROOT, section

CACHES = {".git", ".venv", ".nox", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", "dist"}
STEP = section("codegen/README.md", "## Regenerating after a spec change").split("**Adding a field.**", 1)[1]
STEP = STEP.split("**Adding an endpoint.**", 1)[0]
SCHEMA_EDIT, FIELDS_EDIT = re.findall(r"```yaml\n(.*?)```", STEP, re.DOTALL)[:2]
REGENERATE = "python -m codegen && python -m codegen --check"
"""The guide's regeneration and its check (codegen/README.md's review steps give this line)."""
assert f"\n{REGENERATE}\n" in (ROOT / "codegen" / "README.md").read_text(encoding="utf-8")
COMMAND = re.search(r"`(enterprise-async catalogs list --json)` prints it", " ".join(STEP.split()))


def schema_edited(spec: str) -> str:
    """The spec with the guide's new property added last to the schema the guide names."""
    schema, properties, new = (line for line in SCHEMA_EDIT.splitlines() if line.strip())
    assert properties.strip() == "properties:"
    lines = spec.split("\n")
    start = lines.index(schema)
    opening = next(number for number in range(start, len(lines)) if lines[number] == properties)
    end = opening + 1
    while lines[end].startswith(" " * (len(properties) - len(properties.lstrip()) + 2)):
        end += 1
    return "\n".join([*lines[:end], new, *lines[end:]])


def fields_edited(spec: str) -> str:
    """The spec with the operation's ``fields`` replaced by the guide's: the same list, and the
    new field at its end (the guide's list must be the spec's and the new field, or it lies)."""
    path, method, extension, *fields = FIELDS_EDIT.rstrip("\n").split("\n")
    lines = spec.split("\n")
    start = lines.index(path)
    assert lines[start + 1] == method
    at = next(number for number in range(start, len(lines)) if lines[number] == extension)
    first = next(number for number in range(at, len(lines)) if lines[number].lstrip().startswith("fields:"))
    last = first
    while not lines[last].rstrip().endswith("]"):
        last += 1
    old = " ".join(line.strip() for line in lines[first : last + 1])
    new = " ".join(line.strip() for line in fields)
    assert new == old.removesuffix("]") + ", region]", (old, new)
    return "\n".join([*lines[:first], *fields, *lines[last + 1 :]])


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository's tree with the guide's edits, regenerated as the guide says."""
    target = tmp_path_factory.mktemp("adding-a-field") / "repo"
    shutil.copytree(ROOT, target, ignore=lambda _, names: [name for name in names if name in CACHES])
    spec = target / "spec" / "openapi.yaml"
    spec.write_text(fields_edited(schema_edited(spec.read_text(encoding="utf-8"))), encoding="utf-8")
    python = Path(sys.executable).parent
    ran = subprocess.run(
        ["bash", "-o", "pipefail", "-c", REGENERATE],  # `python` is the one running the tests
        cwd=target, capture_output=True, text=True, timeout=900, check=False,
        env={**os.environ, "PATH": os.pathsep.join([str(python), os.environ.get("PATH", "")])},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "generated code is fresh" in ran.stdout
    return target


@pytest.fixture(scope="module")
def sandbox(repo: Path) -> Iterator[dict[str, str]]:
    """The copy's sandbox, served as `enterprise-async sandbox --port 0` serves it; its banner's
    variables, which the other commands read."""
    process = subprocess.Popen(
        [sys.executable, "-m", "enterprise_async", "sandbox", "--port", "0"],
        cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        variables: dict[str, str] = {}
        for line in process.stdout:
            name, _, value = line.strip().removeprefix("export ").partition("=")
            if name.startswith("ENTERPRISE_"):
                variables[name] = value
            if name == "ENTERPRISE_CLIENT_SECRET":
                break
        assert "ENTERPRISE_CLIENT_SECRET" in variables
        yield variables
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_the_guide_gives_both_edits_and_the_command() -> None:
    assert "region:" in SCHEMA_EDIT
    assert FIELDS_EDIT.startswith("  /enterprise/v2/enterprise-catalogs:\n")
    assert COMMAND is not None


def test_the_command_prints_the_new_field_of_every_catalog(repo: Path, sandbox: dict[str, str]) -> None:
    assert COMMAND is not None
    program, *arguments = COMMAND[1].split()
    assert program == "enterprise-async"
    ran = subprocess.run(
        [sys.executable, "-m", "enterprise_async", *arguments],  # the copy's package, not this checkout's
        cwd=repo, env={**os.environ, **sandbox}, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    catalogs = [json.loads(line) for line in ran.stdout.splitlines()]
    assert catalogs
    assert all(isinstance(catalog.get("region"), str) for catalog in catalogs), catalogs[0]


def test_the_copys_client_reads_the_new_field(repo: Path, sandbox: dict[str, str]) -> None:
    program = (
        "import asyncio\n"
        "from enterprise_async import EnterpriseClient\n"
        "async def main():\n"
        "    async with EnterpriseClient.from_env() as client:\n"
        "        print(sorted({type(c.region).__name__ async for c in client.catalogs.list()}))\n"
        "asyncio.run(main())\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", program],
        cwd=repo, env={**os.environ, **sandbox}, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "['str']"
