"""The client guide's middleware example, run as written: one middleware adds a header to every attempt,
the other logs each attempt."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest

from enterprise_async.testing import Fault, Sandbox

GUIDE = Path(__file__).resolve().parents[2] / "enterprise_async" / "README.md"


def middleware_example() -> str:
    """The last Python block of the guide's *Retries and middleware* section."""
    section = GUIDE.read_text(encoding="utf-8").split("## Retries and middleware", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 2, "the section has a RetryPolicy example and a middleware example"
    return str(blocks[1])


async def test_the_readme_middleware_adds_its_header_and_logs_every_attempt(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async with Sandbox(seed=0) as sandbox:
        sandbox.faults.inject("/enterprise/v2/enterprise-catalogs*", Fault.rate_limited(0))  # "try again now"
        monkeypatch.setenv("ENTERPRISE_CLIENT_ID", sandbox.client_id)
        monkeypatch.setenv("ENTERPRISE_CLIENT_SECRET", sandbox.client_secret)
        monkeypatch.setenv("ENTERPRISE_BASE_URL", sandbox.base_url)
        namespace: dict[str, Any] = {"__name__": "readme_middleware"}
        exec(compile(middleware_example(), "enterprise_async/README.md:middleware", "exec"), namespace)
        caplog.set_level(logging.INFO, logger="myapp.enterprise")
        async with namespace["client"] as client:
            assert await client.catalogs.list().to_list()
        listing = [
            logged for logged in sandbox.requests if logged.path == "/enterprise/v2/enterprise-catalogs"
        ]
    assert [logged.headers.get("X-Tenant") for logged in listing] == ["acme", "acme"]
    assert [record.getMessage() for record in caplog.records if record.name == "myapp.enterprise"] == [
        "GET /enterprise/v2/enterprise-catalogs -> 429 (catalogs.list page 1, attempt 1)",
        "GET /enterprise/v2/enterprise-catalogs -> 200 (catalogs.list page 1, attempt 2)",
    ]
