"""The "Using it in a service" example of enterprise_async/README.md, run as written against the
sandbox."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from aiohttp.test_utils import TestClient, TestServer

from enterprise_async.testing import Fault, Sandbox

GUIDE = Path(__file__).resolve().parents[2] / "enterprise_async" / "README.md"


def service_example() -> dict[str, Any]:
    """The first Python block of the guide's service section, executed as a module."""
    section = GUIDE.read_text(encoding="utf-8").split("## Using it in a service", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None
    namespace: dict[str, Any] = {"__name__": "service_example"}
    exec(compile(code.group(1), "enterprise_async/README.md:service", "exec"), namespace)
    return namespace


@pytest.fixture
async def service() -> AsyncIterator[tuple[Sandbox, TestClient[Any, Any]]]:
    async with Sandbox(page_sizes={"contents": 7}) as sandbox, sandbox.client() as client:
        app = service_example()["make_app"](client)
        async with TestClient(TestServer(app)) as http:
            yield sandbox, http


def contents_path(sandbox: Sandbox) -> tuple[str, str]:
    catalog = max(sandbox.data.catalogs, key=lambda catalog: catalog.item_count)
    return catalog.uuid or "", f"/enterprise/v2/enterprise-catalogs/{catalog.uuid}"


async def test_the_route_answers_with_the_page_and_the_upstream_request_id(
    service: tuple[Sandbox, TestClient[Any, Any]],
) -> None:
    sandbox, http = service
    uuid, _ = contents_path(sandbox)
    response = await http.get(f"/catalogs/{uuid}")
    body = await response.json()
    assert response.status == 200
    assert len(body["items"]) == 7
    assert UUID(response.headers["X-Upstream-Request-Id"])


async def test_the_fail_fast_route_does_not_retry_and_names_the_request_id(
    service: tuple[Sandbox, TestClient[Any, Any]],
) -> None:
    sandbox, http = service
    uuid, path = contents_path(sandbox)
    sandbox.faults.inject(path, Fault.server_error(503), times=1)
    response = await http.get(f"/catalogs/{uuid}")
    body = await response.json()
    assert (response.status, body["upstream_status"]) == (502, 503)
    assert body["error"].endswith(f"(request id {body['request_id']})")
    assert len(sandbox.requests.find(path=path)) == 1


async def test_the_patient_route_retries_through_a_fault(
    service: tuple[Sandbox, TestClient[Any, Any]],
) -> None:
    sandbox, http = service
    uuid, path = contents_path(sandbox)
    catalog = next(catalog for catalog in sandbox.data.catalogs if catalog.uuid == uuid)
    sandbox.faults.inject(path, Fault.rate_limited(0), times=2, skip=1)  # "try again now"
    response = await http.get(f"/catalogs/{uuid}/size")
    assert (await response.json())["items"] == catalog.item_count
    assert [logged.status for logged in sandbox.requests.find(path=path)].count(429) == 2


async def test_a_page_size_the_sdk_refuses_is_a_400_and_nothing_is_sent(
    service: tuple[Sandbox, TestClient[Any, Any]],
) -> None:
    sandbox, http = service
    uuid, path = contents_path(sandbox)
    response = await http.get(f"/catalogs/{uuid}", params={"size": "500"})
    body = await response.json()
    assert response.status == 400
    assert body["field"] == "page_size"
    assert sandbox.requests.find(path=path) == []
