"""What ``import enterprise_async`` loads: the runtime, not the fleet's Redis or arq."""

from __future__ import annotations

import subprocess
import sys


def loaded_after(code: str, *packages: str) -> list[str]:
    """The modules of ``packages`` a fresh interpreter holds after running ``code``."""
    program = (
        f"{code}\nimport sys\n"
        f"print(*sorted(name for name in sys.modules if name.split('.')[0] in {packages!r}), sep='\\n')"
    )
    finished = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True
    )
    return finished.stdout.split()


def test_importing_the_package_loads_no_redis_or_arq() -> None:
    assert loaded_after("import enterprise_async", "redis", "arq") == []


def test_an_in_memory_rate_limiter_loads_no_redis() -> None:
    code = "from enterprise_async import RateLimiter, RedisTokenCache\nRateLimiter()"
    assert loaded_after(code, "redis", "arq") == []


def test_importing_the_package_leaves_what_a_first_call_needs_unloaded() -> None:
    """cattrs comes with the first decode, limits with the first rate budget, xmltodict with the first
    XML document the renderer did not write, the fleet with its first name."""
    loaded = loaded_after("import enterprise_async", "cattrs", "limits", "xmltodict")
    assert loaded == []
    assert "enterprise_async.fleet" not in loaded_after("import enterprise_async", "enterprise_async")


def test_the_first_decode_makes_the_converter() -> None:
    code = "from enterprise_async.models import Course, from_dict\nfrom_dict(Course, {'key': 'x'})"
    assert "cattrs" in loaded_after(code, "cattrs")


def test_the_converter_is_one_object_however_it_is_reached() -> None:
    code = (
        "from enterprise_async import EnterpriseClient, models\n"
        "assert models.converter is EnterpriseClient.conversion.converter"
    )
    assert loaded_after(code, "cattrs")


def test_importing_the_client_loads_no_model() -> None:
    """The models, the operation table naming them and the union rules come with the first client."""
    loaded = set(loaded_after("from enterprise_async import EnterpriseClient", "enterprise_async"))
    assert not loaded & {"enterprise_async._generated.models", "enterprise_async._generated.variants"}


def test_a_client_has_its_operations_from_the_start() -> None:
    code = (
        "from enterprise_async import EnterpriseClient\n"
        "client = EnterpriseClient(client_id='id', client_secret='secret', base_url='https://api.example.com')\n"
        "assert client.spec.operations['catalogs.list'].name == 'catalogs.list'"
    )
    assert "enterprise_async._generated.models" in loaded_after(code, "enterprise_async")
