"""``AtomicFile``: a file that appears under its name only once it is complete."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Final

__all__ = ["PART_SUFFIX", "AtomicFile"]

PART_SUFFIX: Final = ".part"
"""Suffix of a file still being written; nothing reads a ``.part`` file as a result."""


class AtomicFile:
    """Bytes written to ``NAME.part`` beside ``NAME``, renamed over ``NAME`` by ``commit()``.

    The data is flushed to disk before the rename, so a crash, an error or Ctrl-C never leaves a
    file under the final name that looks complete and is not. Leaving the ``with`` block without
    ``commit()`` removes the partial file, unless ``keep_partial``: then it is closed and left for
    ``continue_from`` (an export's checkpoint says how much of it is good). The partial file is
    created by the first write (or by ``commit()``), so a run that fails before writing anything
    leaves no trace at all. It also counts the bytes and hashes them, for the record of what was
    written. ``continue_from`` takes up the partial file an earlier run left.

    An ``OSError`` (a folder that does not exist, a full disk, a name taken by a folder) names
    ``path``, the file the caller asked for, never the partial file it never named.
    """

    def __init__(self, path: Path, *, keep_partial: bool = False) -> None:
        self.path = path
        self.keep_partial = keep_partial
        self.part = path.with_name(path.name + PART_SUFFIX)
        self.size = 0
        self._digest = hashlib.sha256()
        self._file: BinaryIO | None = None
        self._committed = False

    def __repr__(self) -> str:
        return f"AtomicFile({str(self.path)!r}, {self.size} bytes{', committed' if self._committed else ''})"

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, *_: object) -> None:
        if self._committed:
            return
        if self.keep_partial:
            self.close()
        else:
            self.discard()

    def close(self) -> None:
        """Close the partial file as it is, leaving it on disk (what was written is flushed)."""
        if self._file is not None:
            with self._named():
                self._file.close()
            self._file = None

    @property
    def sha256(self) -> str:
        """Hex digest of everything written so far."""
        return self._digest.hexdigest()

    @contextlib.contextmanager
    def _named(self) -> Iterator[None]:
        """An OS error inside, raised again naming ``path`` (the partial file is ours, not the caller's)."""
        try:
            yield
        except OSError as error:
            if error.errno is None:
                raise
            raise type(error)(error.errno, error.strerror, str(self.path)) from None

    def _opened(self) -> BinaryIO:
        if self._file is None:
            with self._named():
                self._file = self.part.open("wb")
        return self._file

    def write(self, data: bytes) -> None:
        """Append bytes."""
        file = self._opened()
        with self._named():
            file.write(data)
        self._digest.update(data)
        self.size += len(data)

    def flush(self) -> None:
        """Hand what was written to the operating system, so that progress is visible on disk."""
        if self._file is not None:
            with self._named():
                self._file.flush()

    def commit(self) -> None:
        """Make the file durable and give it its final name (replacing an older one)."""
        file = self._opened()
        with self._named():
            file.flush()
            os.fsync(file.fileno())
            file.close()
            os.replace(self.part, self.path)
        self._committed = True

    def continue_from(self, size: int, sha256: str) -> bool:
        """Take up the partial file an earlier run left, cut back to its first ``size`` bytes, when
        those hash to ``sha256`` (what its checkpoint recorded); later writes append to it. False,
        and nothing changed, when there is no such file or its beginning is not what was recorded
        (a fresh write then replaces it). Blocking: it reads ``size`` bytes."""
        with self._named():
            try:
                file = self.part.open("r+b")
            except FileNotFoundError:
                return False
            digest, remaining = hashlib.sha256(), size
            while remaining and (chunk := file.read(min(remaining, 1 << 20))):
                digest.update(chunk)
                remaining -= len(chunk)
            if remaining or digest.hexdigest() != sha256:
                file.close()
                return False
            file.truncate(size)  # what was written after the checkpoint goes: it is written again
            file.seek(size)
        self._file, self._digest, self.size = file, digest, size
        return True

    def discard(self) -> None:
        """Drop the partial file, if one was begun."""
        if self._file is None:
            return
        with self._named():
            self._file.close()
            self.part.unlink(missing_ok=True)
