"""The project's Markdown guides and their Python blocks, as tests read them.

A block is a ```` ```python ```` fence. One whose line before is an HTML comment
``<!-- tested by tests/.../test_x.py -->`` is run by that test (it needs what the all-blocks test
does not start, such as a Redis server); every other block runs in tests/docs/test_markdown_blocks.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[2]
GUIDES = (
    "README.md",
    "enterprise_async/README.md",
    "enterprise_async/cli/README.md",
    "enterprise_async/testing/README.md",
    "enterprise_async/fleet/README.md",
    "enterprise_async/exports/README.md",
    "spec/README.md",
    "codegen/README.md",
    "tests/README.md",
    "tests/bench/README.md",
)
"""Every guide of the project, the newcomer's README first."""
TESTED_BY = re.compile(r"<!-- tested by (\S+) -->")


@attrs.frozen
class Block:
    """A Python block of a guide: where it is, its code, and the test that runs it when another does."""

    guide: str
    line: int
    code: str
    tested_by: str | None

    @property
    def name(self) -> str:
        return f"{self.guide}:{self.line}"


def blocks(guide: str) -> list[Block]:
    """The Python blocks of one guide, in order (``line`` is the fence's, counted from 1)."""
    lines = (ROOT / guide).read_text(encoding="utf-8").split("\n")
    found: list[Block] = []
    start: int | None = None
    for number, line in enumerate(lines):
        if start is None and line.strip() == "```python":
            start = number
        elif start is not None and line.strip() == "```":
            marker = TESTED_BY.search(lines[start - 1]) if start else None
            code = "\n".join(lines[start + 1 : number]) + "\n"
            found.append(Block(guide, start + 1, code, marker.group(1) if marker else None))
            start = None
    return found


def every_block() -> list[Block]:
    """The Python blocks of every guide."""
    return [block for guide in GUIDES for block in blocks(guide)]


def section(guide: str, heading: str) -> str:
    """The text under a heading (``## Tracing``), up to the next heading of its level or above."""
    text = (ROOT / guide).read_text(encoding="utf-8")
    level = heading.split(" ", 1)[0]
    body = text.split(f"\n{heading}\n", 1)[1]
    following = re.search(rf"^#{{1,{len(level)}}} ", body, flags=re.MULTILINE)
    return body[: following.start()] if following else body


def python_blocks(text: str) -> list[str]:
    """The Python blocks of a piece of a guide."""
    return [str(code) for code in re.findall(r"```python\n(.*?)```", text, re.DOTALL)]
