"""A lookup by key checks that the answer is the item asked for: an answer without the key field,
or an empty object, breaks the spec's promise (the key is required) and raises
``ResponseDecodeError`` naming the field, instead of returning an item with no key."""

from __future__ import annotations

from typing import Any

import pytest

from enterprise_async import ResponseDecodeError
from tests.conftest import ScriptedAPI

CATALOG = "7e2d1d9e-3b8a-4a52-a1a6-1f8f5d9c0b11"
RUN = "course-v1:edX+DemoX+Demo_Course"
PATH = f"/enterprise/v2/enterprise-catalogs/{CATALOG}/course-runs/{RUN}"


@pytest.mark.parametrize("body", [{}, {"content_type": "courserun", "title": "Demo"}])
async def test_a_lookup_answered_without_its_key_raises_naming_the_key(
    api: ScriptedAPI, body: dict[str, Any]
) -> None:
    api.json("GET", PATH, body)
    async with api.client() as client:
        with pytest.raises(ResponseDecodeError, match=r"CourseRun\.key is required and was left out"):
            await client.catalogs.course_run(CATALOG, RUN)
