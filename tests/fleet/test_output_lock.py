"""One run per output folder on disk: the lock file, the holder it names, and dead holders."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest

from enterprise_async.errors import EnterpriseError
from enterprise_async.exports._lock import DIRECTORY_LOCK_NAME, DirectoryLock, DirectoryLockedError


def dead_pid() -> int:
    """The pid of a process that has exited (and was reaped)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_the_lock_file_names_its_holder_and_goes_away_on_release(tmp_path: Path) -> None:
    with DirectoryLock(tmp_path / "out", run_id="run-1") as lock:
        data = orjson.loads((tmp_path / "out" / DIRECTORY_LOCK_NAME).read_bytes())
        assert data["run_id"] == "run-1"
        assert data["pid"] == os.getpid()
        assert data["host"] == socket.gethostname()
        assert lock.held
    assert not (tmp_path / "out" / DIRECTORY_LOCK_NAME).exists()


def test_a_second_run_gets_a_typed_error_naming_the_holder(tmp_path: Path) -> None:
    with DirectoryLock(tmp_path, run_id="first"), pytest.raises(DirectoryLockedError) as refused:
        DirectoryLock(tmp_path, run_id="second").acquire()
    assert isinstance(refused.value, EnterpriseError)
    assert refused.value.holder is not None
    assert refused.value.holder.run_id == "first"
    message = str(refused.value)
    assert "run first" in message
    assert f"pid {os.getpid()} on {socket.gethostname()}" in message


def test_a_second_run_that_waits_gets_the_lock_once_the_first_releases_it(tmp_path: Path) -> None:
    first = DirectoryLock(tmp_path, run_id="first")
    first.acquire()
    releasing = threading.Timer(0.3, first.release)
    releasing.start()
    second = DirectoryLock(tmp_path, run_id="second")
    second.acquire(wait=30.0)
    releasing.join()
    assert second.holder().run_id == "second"  # type: ignore[union-attr]
    second.release()


def test_a_lock_left_by_a_dead_process_of_this_host_is_taken_over(tmp_path: Path) -> None:
    left = {"pid": dead_pid(), "host": socket.gethostname(), "run_id": "crashed", "since": "then"}
    (tmp_path / DIRECTORY_LOCK_NAME).write_bytes(orjson.dumps(left))
    with DirectoryLock(tmp_path, run_id="next") as lock:
        assert lock.holder().run_id == "next"  # type: ignore[union-attr]


def test_a_lock_of_another_host_is_kept_until_it_is_stale(tmp_path: Path) -> None:
    elsewhere = {"pid": 1, "host": "another-host", "run_id": "remote", "since": "then"}
    path = tmp_path / DIRECTORY_LOCK_NAME
    path.write_bytes(orjson.dumps(elsewhere))
    with pytest.raises(DirectoryLockedError, match=r"run remote \(pid 1 on another-host"):
        DirectoryLock(tmp_path, stale_after=60).acquire()
    os.utime(path, (1, 1))  # not refreshed for a long time: its holder is gone
    with DirectoryLock(tmp_path, stale_after=60, run_id="mine") as lock:
        assert lock.holder().run_id == "mine"  # type: ignore[union-attr]


def test_a_release_never_removes_a_lock_another_run_took_over(tmp_path: Path) -> None:
    mine = DirectoryLock(tmp_path, run_id="mine")
    mine.acquire()
    theirs = {"pid": os.getpid(), "host": socket.gethostname(), "run_id": "theirs", "since": "now"}
    (tmp_path / DIRECTORY_LOCK_NAME).write_bytes(orjson.dumps(theirs))
    mine.release()
    assert (tmp_path / DIRECTORY_LOCK_NAME).exists()
