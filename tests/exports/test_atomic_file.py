"""An ``AtomicFile`` that cannot be written names the file its caller asked for, never the partial
file (``NAME.part``) it writes first and the caller never named: at its creation, at its rename
and on a write the disk refuses."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from enterprise_async.exports import PART_SUFFIX, AtomicFile


def test_a_file_in_a_folder_that_does_not_exist_is_named_as_asked(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "learners.csv"
    with pytest.raises(FileNotFoundError) as caught, AtomicFile(target) as out:
        out.write(b"email\n")
    assert caught.value.filename == str(target)
    assert PART_SUFFIX not in str(caught.value)


def test_a_name_taken_by_a_folder_is_named_when_the_file_is_committed(tmp_path: Path) -> None:
    target = tmp_path / "catalog.jsonl"
    target.mkdir()
    with AtomicFile(target) as out:
        out.write(b"{}\n")
        with pytest.raises(IsADirectoryError) as caught:
            out.commit()
    assert caught.value.filename == str(target)
    assert PART_SUFFIX not in str(caught.value)
    assert not (tmp_path / f"catalog.jsonl{PART_SUFFIX}").exists()  # the partial file went


def test_a_partial_file_that_cannot_be_taken_up_is_named_as_asked(tmp_path: Path) -> None:
    target = tmp_path / "catalog.jsonl"
    (tmp_path / f"catalog.jsonl{PART_SUFFIX}").mkdir()
    with pytest.raises(IsADirectoryError) as caught, AtomicFile(target, keep_partial=True) as out:
        out.continue_from(0, "")
    assert caught.value.filename == str(target)


def test_a_write_the_disk_refuses_is_named_as_asked(tmp_path: Path) -> None:
    # A file size limit makes the system refuse the write (EFBIG), as a full disk would (ENOSPC).
    target = tmp_path / "big.jsonl"
    program = textwrap.dedent(
        f"""
        import resource, signal
        from pathlib import Path
        from enterprise_async.exports import AtomicFile
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
        try:
            with AtomicFile(Path({str(target)!r})) as out:
                out.write(b"x" * 65536)
                out.commit()
        except OSError as error:
            print(error.filename)
        """
    )
    shown = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == str(target)
    assert not target.exists()
