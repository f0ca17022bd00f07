"""``sandbox.canned``: bodies of the test's own served for an operation, one request each, then the
sandbox's own data again; the token, the format and faults apply as to any answer."""

from __future__ import annotations

import aiohttp
import pytest

from enterprise_async.testing import Fault, Sandbox

CATALOG = {"uuid": "7d0c5a7e-2b44-4f4b-9a3d-6e1f0c8b5a22", "title": "Canned", "enterprise_customer": "c"}


def page(*items: dict[str, str]) -> dict[str, object]:
    return {"count": len(items), "next": None, "previous": None, "results": list(items)}


async def test_canned_bodies_answer_one_request_each_then_the_sandbox_answers_again() -> None:
    async with Sandbox(seed=0, profile="reference") as sandbox, sandbox.client() as client:
        sandbox.canned.add("catalogs.list", page(CATALOG), page())
        first = await client.catalogs.list().to_list()
        second = await client.catalogs.list().to_list()
        third = await client.catalogs.list().to_list()
    assert [catalog.title for catalog in first] == ["Canned"]
    assert second == []
    assert [catalog.uuid for catalog in third] == [catalog.uuid for catalog in sandbox.data.catalogs]
    assert sandbox.canned.pending() == 0


async def test_a_canned_body_is_rendered_as_xml_when_xml_is_asked() -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client(response_format="xml") as client:
        sandbox.canned.add("catalogs.list", page(CATALOG))
        catalogs = await client.catalogs.list().to_list()
    assert [catalog.title for catalog in catalogs] == ["Canned"]


async def test_a_request_without_a_token_gets_401_and_leaves_the_canned_body_queued() -> None:
    async with Sandbox(seed=0) as sandbox, aiohttp.ClientSession() as session:
        sandbox.canned.add("catalogs.list", page(CATALOG))
        async with session.get(f"{sandbox.base_url}/enterprise/v2/enterprise-catalogs") as response:
            status = response.status
    assert status == 401
    assert sandbox.canned.pending("catalogs.list") == 1


async def test_faults_apply_to_canned_answers() -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client() as client:
        sandbox.canned.add("catalogs.list", page(CATALOG))
        sandbox.faults.inject("/enterprise/v2/*", Fault.server_error(503), times=1)
        catalogs = await client.catalogs.list().to_list()  # retried after the 503
    assert [catalog.title for catalog in catalogs] == ["Canned"]


def test_an_operation_the_sandbox_does_not_serve_is_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown operation 'catalogs\.lsit'"):
        Sandbox(seed=0).canned.add("catalogs.lsit", page())


def test_clear_drops_the_canned_bodies() -> None:
    sandbox = Sandbox(seed=0)
    sandbox.canned.add("catalogs.list", page(), page())
    sandbox.canned.clear()
    assert sandbox.canned.pending() == 0


async def test_bodies_kept_for_path_parameters_answer_only_those_requests_and_come_first() -> None:
    async with Sandbox(seed=0, profile="reference") as sandbox, sandbox.client() as client:
        first, second = sandbox.data.catalogs[0].uuid, sandbox.data.catalogs[1].uuid
        item = {"key": "CannedX+ONE.1x", "title": "Kept for one catalog"}
        sandbox.canned.add("catalogs.contents", page(item), path_params={"catalog_uuid": second})
        other = await client.catalogs.contents(first).to_list()
        assert sandbox.canned.pending("catalogs.contents") == 1
        kept = await client.catalogs.contents(second).to_list()
    assert [getattr(found, "title", None) for found in kept] == ["Kept for one catalog"]
    assert len(other) == sandbox.data.catalogs[0].item_count
    assert sandbox.canned.pending() == 0
