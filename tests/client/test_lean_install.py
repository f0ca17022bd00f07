"""``pip install enterprise-async`` brings what the client needs and nothing more: the command
line, the sandbox, the fleet's Redis and tracing are extras, and the client imports none of them."""

from __future__ import annotations

import re
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli before 3.11
    import tomli as tomllib

from tests.without_extras import EXTRA_MODULES, ROOT, run_without

CORE = {"aiohttp", "attrs", "cattrs", "xmltodict", "orjson", "limits", "typing-extensions"}
EXTRAS = {
    "cli": {"click", "rich"},
    "sandbox": {"jsonschema"},
    "redis": {"redis", "arq"},
    "otel": {"opentelemetry-api"},
}


def _project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        project: dict[str, object] = tomllib.load(file)["project"]
    return project


def _names(requirements: object) -> set[str]:
    assert isinstance(requirements, list)
    return {re.split(r"[\[<>=!~;\s]", requirement, maxsplit=1)[0].lower() for requirement in requirements}


def test_the_core_dependencies_are_only_what_the_client_needs() -> None:
    assert _names(_project()["dependencies"]) == CORE


def test_each_extra_brings_its_own_packages() -> None:
    optional = _project()["optional-dependencies"]
    assert isinstance(optional, dict)
    for extra, packages in EXTRAS.items():
        assert _names(optional[extra]) == packages, extra


def test_the_tests_extra_pulls_every_extra() -> None:
    optional = _project()["optional-dependencies"]
    assert isinstance(optional, dict)
    pulled = [requirement for requirement in optional["tests"] if requirement.startswith("enterprise-async[")]
    assert pulled == [f"enterprise-async[{','.join(EXTRAS)}]"]


def test_importing_the_client_loads_no_extra() -> None:
    code = (
        "import enterprise_async, enterprise_async.testing, enterprise_async.fleet\n"
        "extras = ('click', 'rich', 'pygments', 'jsonschema', 'redis', 'arq', 'opentelemetry')\n"
        "print(sorted({name.split('.')[0] for name in sys.modules} & set(extras)))"
    )
    ran = run_without((), code)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[]"


def test_the_client_works_with_every_extra_missing() -> None:
    hidden = [module for modules in EXTRA_MODULES.values() for module in modules]
    code = (
        "import asyncio\n"
        "from enterprise_async import EnterpriseClient\n"
        "async def main():\n"
        "    async with EnterpriseClient(client_id='id', client_secret='secret',"
        " base_url='http://127.0.0.1:9', rate_limit='5/second') as client:\n"
        "        print(type(client).__name__)\n"
        "asyncio.run(main())"
    )
    ran = run_without(hidden, code)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "EnterpriseClient"
