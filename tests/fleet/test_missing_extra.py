"""Without the [redis] extra, the fleet's Redis pieces raise one ImportError naming the install
command when they are made, before any connection is tried."""

from __future__ import annotations

import pytest

from tests.without_extras import run_without

EXPECTED = (
    "MissingExtraError the fleet (Redis token cache, rate budget, export queue) needs the [redis] "
    "extra (redis, arq not installed): pip install 'enterprise-async[redis]'"
)


@pytest.mark.parametrize(
    "make",
    [
        "from enterprise_async import RateLimiter; RateLimiter('redis://127.0.0.1:9/0')",
        "from enterprise_async import RedisTokenCache; RedisTokenCache('redis://127.0.0.1:9/0')",
        "from enterprise_async.fleet import RedisPolicy; from enterprise_async.fleet._queue import "
        "queue_redis; queue_redis('redis://127.0.0.1:9/0', RedisPolicy())",
    ],
    ids=["rate limiter", "token cache", "export queue"],
)
def test_a_redis_piece_without_the_extra_names_the_install_command(make: str) -> None:
    code = f"try:\n    {make}\nexcept ImportError as error:\n    print(type(error).__name__, error)"
    ran = run_without(["redis", "arq"], code)
    assert ran.stdout.strip() == EXPECTED, ran.stderr
