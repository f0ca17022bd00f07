"""``DirectoryLock``: one run at a time per output folder (and ``FileLock``, one writer per file).

Two exports into the same folder write the same ``.part`` files: each ruins the other's. A run
therefore creates a lock file in the folder before it writes anything, holding who holds it (pid,
host, run id, since when) as JSON, with ``O_CREAT | O_EXCL`` so that exactly one creator wins, on a
local disk as on a shared one. A second run gets ``DirectoryLockedError`` naming the holder, or
waits for it (``wait``).

A holder that died does not block forever: on its own host, a lock whose pid is gone is taken
over at once; from any host, a lock whose file was not refreshed for ``stale_after`` seconds
(a live holder touches it, see ``refresh``) is taken over too.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import socket
import time
import uuid
from pathlib import Path
from typing import Any, Final

import orjson
from attrs import frozen

from ..errors import EnterpriseError

__all__ = [
    "DIRECTORY_LOCK_NAME",
    "DirectoryLock",
    "DirectoryLockedError",
    "FileLock",
    "LockHolder",
    "file_lock_path",
    "holder_data",
    "read_holder",
]

DIRECTORY_LOCK_NAME: Final = ".enterprise-async.lock"
"""The lock file of an export folder."""
LOCK_SUFFIX: Final = ".lock"
UNREADABLE_GRACE: Final = 10.0
"""Seconds after which a lock file nobody can read is taken over (its writer died writing it)."""
WAIT_POLL: Final = 0.1
"""Seconds between two looks at a lock held by another run, when waiting."""


@frozen
class LockHolder:
    """Who holds a lock: what a second run is told."""

    pid: int
    host: str
    run_id: str
    since: str

    @classmethod
    def this_process(cls, run_id: str) -> LockHolder:
        """The holder this process writes."""
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        return cls(os.getpid(), socket.gethostname(), run_id, now)

    def describe(self) -> str:
        """``run <id> (pid <pid> on <host>, since <time>)``."""
        return f"run {self.run_id} (pid {self.pid} on {self.host}, since {self.since})"

    def is_gone(self) -> bool:
        """Whether the holder is a process of this host that no longer exists."""
        if self.host != socket.gethostname():
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False  # another user's live process
        return False


class DirectoryLockedError(EnterpriseError):
    """Another run holds the lock (``holder``; None when its lock file cannot be read)."""

    def __init__(self, path: Path, holder: LockHolder | None, *, remedy: str | None = None) -> None:
        self.path = path
        self.holder = holder
        who = holder.describe() if holder is not None else "another run (its lock file is unreadable)"
        remedy = remedy or f"wait for it to end, or remove {path} if that run is known to be gone"
        super().__init__(f"{path.parent} is in use by {who}; {remedy}")


class FileLock:
    """A lock file at ``path``: held by one run at a time, released by the holder alone.

    Args:
        path: The lock file.
        run_id: This run's id, written in the lock file (a new one when not given).
        stale_after: Seconds after which a lock file not refreshed is taken over; None: never
            (a dead holder on this host is still detected by its pid).
    """

    def __init__(self, path: Path, *, run_id: str | None = None, stale_after: float | None = None) -> None:
        if stale_after is not None and not (stale_after > 0 and stale_after != float("inf")):
            raise ValueError("stale_after must be a positive number of seconds")
        self.path = path
        self.run_id = run_id or uuid.uuid4().hex
        self.stale_after = stale_after
        self._held = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r}, run {self.run_id}{', held' if self._held else ''})"

    @property
    def held(self) -> bool:
        """Whether this object holds the lock now."""
        return self._held

    def acquire(self, *, wait: float = 0.0) -> None:
        """Take the lock; if another run holds it, wait up to ``wait`` seconds, then raise
        ``DirectoryLockedError`` naming the holder."""
        deadline = time.monotonic() + wait
        while True:
            holder = self._try_acquire()
            if holder is None:
                return
            if time.monotonic() >= deadline:
                raise DirectoryLockedError(self.path, holder if holder is not _UNREADABLE else None)
            time.sleep(min(WAIT_POLL, max(0.0, deadline - time.monotonic())))

    def _try_acquire(self) -> LockHolder | None:
        """None once held; else the holder that keeps it."""
        for _ in range(2):  # a second try after removing a dead holder's lock
            if self._create():
                return None
            holder = self.holder()
            if not self._abandoned(holder):
                return holder or _UNREADABLE
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        return self.holder() or _UNREADABLE

    def _create(self) -> bool:
        try:
            descriptor = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(descriptor, "wb") as out:
            out.write(orjson.dumps(holder_data(LockHolder.this_process(self.run_id))) + b"\n")
            out.flush()
            os.fsync(out.fileno())
        self._held = True
        return True

    def _abandoned(self, holder: LockHolder | None) -> bool:
        if holder is not None and holder.is_gone():
            return True
        try:
            age = time.time() - self.path.stat().st_mtime
        except FileNotFoundError:
            return True
        if holder is None:  # a holder that died while writing it, or a file that is not ours
            return age > UNREADABLE_GRACE
        return self.stale_after is not None and age > self.stale_after

    def holder(self) -> LockHolder | None:
        """Who holds the lock now; None when nobody does, or its file cannot be read."""
        try:
            return read_holder(self.path.read_bytes())
        except OSError:
            return None

    def refresh(self) -> None:
        """Tell other hosts this holder is alive (the file's modification time), for ``stale_after``."""
        if self._held:
            with contextlib.suppress(FileNotFoundError):
                os.utime(self.path)

    def release(self) -> None:
        """Remove the lock file, if it is still this run's (a stale lock may have been taken over)."""
        if not self._held:
            return
        self._held = False
        holder = self.holder()
        if holder is not None and holder.run_id == self.run_id and holder.pid == os.getpid():
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


class DirectoryLock(FileLock):
    """The lock of an export folder: ``<directory>/.enterprise-async.lock`` (the folder is created)."""

    def __init__(
        self, directory: Path, *, run_id: str | None = None, stale_after: float | None = None
    ) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        super().__init__(directory / DIRECTORY_LOCK_NAME, run_id=run_id, stale_after=stale_after)
        self.directory = directory

    def __enter__(self) -> DirectoryLock:
        self.acquire()
        return self


def file_lock_path(path: Path) -> Path:
    """The lock file of one output file: ``<name>.lock`` beside it."""
    return path.with_name(path.name + LOCK_SUFFIX)


def holder_data(holder: LockHolder) -> dict[str, Any]:
    """A holder as the JSON a lock holds (on disk, or in Redis for a fleet)."""
    return {"pid": holder.pid, "host": holder.host, "run_id": holder.run_id, "since": holder.since}


def read_holder(stored: bytes) -> LockHolder | None:
    """The holder a lock holds; None when it is not one."""
    try:
        data = orjson.loads(stored)
        return LockHolder(int(data["pid"]), str(data["host"]), str(data["run_id"]), str(data["since"]))
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None


_UNREADABLE: Final = LockHolder(0, "", "", "")
"""Stands for a lock file that exists but cannot be read (being written, or damaged)."""
