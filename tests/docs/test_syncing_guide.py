"""The guide "Syncing catalogs to another system" (enterprise_async/exports/README.md): its nightly
job runs as written and prints what the guide says it prints, and the guide is one of the guides
(so its blocks run and type-check with the others, and its commands run)."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.docs._markdown import GUIDES, ROOT, python_blocks, section

GUIDE = "enterprise_async/exports/README.md"


def test_the_nightly_job_prints_what_the_guide_shows() -> None:
    text = section(GUIDE, "## The nightly job in Python, start to end")
    [program] = python_blocks(text)
    shown = re.search(r"It prints[^\n]*\n\n```text\n(.*?)```", text, re.DOTALL)
    assert shown is not None
    finished = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert finished.stdout == shown.group(1)


def test_the_guide_is_read_as_a_guide_and_linked_from_the_readme() -> None:
    assert GUIDE in GUIDES
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"]({GUIDE})" in readme
