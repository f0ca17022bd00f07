"""The README's *Following a bulk enrollment to its results* example, run as written against the
sandbox."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from enterprise_async.testing import Sandbox

README = Path(__file__).resolve().parents[2] / "README.md"


def results_example() -> str:
    """The Python block of the README's *Following a bulk enrollment to its results* section."""
    text = README.read_text(encoding="utf-8")
    after = text.split("### Following a bulk enrollment to its results", 1)[1]
    section = re.split(r"\n##+ ", after, maxsplit=1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    return str(block)


async def test_the_readme_results_example_returns_a_row_per_learner_and_course() -> None:
    async with Sandbox(seed=0, results_delay=0) as sandbox, sandbox.client() as client:
        keys = ["course-v1:Org+C1+Run"]
        names: dict[str, Any] = {
            "client": client,
            "customer_uuid": sandbox.data.customers[0].uuid,
        }
        source = "async def example():\n" + "".join(
            f"    {line}\n" for line in results_example().splitlines()
        )
        source += "    return rows, failed\n"
        exec(compile(source, "README.md", "exec"), names)
        rows, failed = await names["example"]()
    assert [(row.email, row.course_run_key, row.status) for row in rows] == [
        ("ada@example.com", keys[0], "failed")
    ]
    assert failed == ["ada@example.com"]
