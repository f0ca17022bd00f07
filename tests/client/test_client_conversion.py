"""The generated client carries its own conversion: imported alone, without ``enterprise_async.models``,
it decodes its answers with the generated readers and the spec's union rules."""

from __future__ import annotations

import asyncio
import json
import sys

from enterprise_async.testing import Sandbox

_CLIENT_ALONE = r"""
import asyncio, json, sys
from enterprise_async._generated.client import EnterpriseClient

base_url, client_id, client_secret = sys.argv[1:4]

async def main():
    async with EnterpriseClient(
        client_id=client_id, client_secret=client_secret, base_url=base_url, trust_env=False
    ) as client:
        catalog = await client.catalogs.list().first_page()
        page = await client.catalogs.contents(catalog.results[0].uuid, page_size=50).first_page()
    print(json.dumps({
        "items": [[type(item).__name__, str(getattr(item, "content_type", ""))] for item in page.results],
        "models_imported": "enterprise_async.models" in sys.modules,
        "generated_readers_used": "enterprise_async._generated.readers" in sys.modules,
    }))

asyncio.run(main())
"""

_CLASS_OF = {
    "course": "Course",
    "courserun": "CourseRun",
    "program": "Program",
    "learnerpathway": "LearnerPathway",
    "video": "Video",
}


async def test_the_generated_client_imported_alone_decodes_with_its_own_conversion() -> None:
    async with Sandbox() as sandbox:
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _CLIENT_ALONE,
            sandbox.base_url,
            sandbox.client_id,
            sandbox.client_secret,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(child.communicate(), timeout=120)
    assert child.returncode == 0, err.decode()
    found = json.loads(out)

    assert found["models_imported"] is False
    assert found["generated_readers_used"] is True
    assert found["items"]
    assert all(name == _CLASS_OF[kind] for name, kind in found["items"] if kind in _CLASS_OF)
