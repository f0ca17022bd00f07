"""Fixtures of the fleet tests: one real redis-server for the module, emptied before each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from ._redis_server import RedisProcess, redis_process, redis_server


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


@pytest.fixture
def faulty_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    """A redis-server of this test alone, that it may kill, restart and freeze."""
    with redis_process(Path(tmp_path_factory.mktemp("faulty-redis"))) as server:
        yield server


@pytest.fixture
def persistent_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    """Like ``faulty_redis``, with an append-only file: its data survives a kill and restart."""
    with redis_process(Path(tmp_path_factory.mktemp("persistent-redis")), append_only=True) as server:
        yield server
