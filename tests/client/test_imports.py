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
