"""The sandbox's own data passes the drift report: every catalog item, program and course it
serves, in JSON and in XML, is described by the spec (an example whose values are outside it is
either a value the services send, and the spec learns it, or a mistake of the sandbox)."""

from __future__ import annotations

import pytest

from enterprise_async.models import Course, Program
from enterprise_async.testing import Sandbox


@pytest.mark.parametrize("response_format", ["json", "xml"])
async def test_the_sandbox_catalogs_raise_no_drift(response_format: str) -> None:
    # The reference profile lists every catalog to any token: all of the sandbox's data is read.
    async with (
        Sandbox(seed=0, profile="reference") as sandbox,
        sandbox.client(response_format=response_format) as client,
    ):
        for catalog in sandbox.data.catalogs:
            for item in await client.catalogs.contents(catalog.uuid).to_list():
                if isinstance(item, Program):
                    await client.catalogs.program(catalog.uuid, item.uuid or "")
                elif isinstance(item, Course):
                    await client.catalogs.course(catalog.uuid, item.key or "")
        report = client.drift()
    assert not report, str(report)
