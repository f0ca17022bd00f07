"""Fixtures of the fleet tests: one real redis-server for the module, emptied before each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from ._redis_server import redis_server


@pytest.fixture(scope="session")
def redis_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real redis-server on loopback for the whole session."""
    with redis_server(Path(tmp_path_factory.mktemp("redis"))) as url:
        yield url


@pytest.fixture
def redis_url(redis_server_url: str) -> str:
    """The server's URL, with nothing stored from an earlier test."""
    with redis.Redis.from_url(redis_server_url) as client:
        client.flushall()
    return redis_server_url
