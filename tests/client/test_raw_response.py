"""``client.with_raw_response``: HTTP details next to the model, and request ids on errors and logs."""

from __future__ import annotations

import ast
import asyncio
import inspect
import logging
import subprocess
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from enterprise_async import APIStatusError, EnterpriseClient, NotFoundError
from enterprise_async.models import CatalogContentsPage
from enterprise_async.testing import Fault, Sandbox
from tests.conftest import Backoffs

CATALOGS = "/enterprise/v2/enterprise-catalogs"
CATALOG = "00000000-0000-4000-8000-000000000007"
"""A catalog id (a UUID, as every catalog's is) that the sandbox does not know."""


async def test_a_raw_answer_gives_status_headers_request_id_and_the_model() -> None:
    async with Sandbox() as sandbox, sandbox.client() as client:
        catalog = sandbox.data.catalogs[0]
        response = await client.with_raw_response.catalogs.contents(catalog.uuid).first_page()
        page = response.parse()
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("application/json")
        assert response.request_id == str(UUID(response.request_id or ""))  # the id it was sent with
        assert response.response_request_id == response.headers["x-amzn-RequestId"]
        assert response.retries == 0
        assert response.elapsed > 0
        assert isinstance(page, CatalogContentsPage)
        assert page == await client.catalogs.contents(catalog.uuid).first_page()


async def test_raw_text_is_the_body_as_sent() -> None:
    async with Sandbox() as sandbox, sandbox.client(response_format="xml") as client:
        response = await client.with_raw_response.catalogs.list().first_page()
        assert response.text().startswith("<?xml")
        assert response.parse().results


async def test_a_raw_answer_counts_the_retries_it_took(no_sleep: Backoffs) -> None:
    async with Sandbox() as sandbox, sandbox.client(retry=no_sleep.policy) as client:
        sandbox.faults.inject(CATALOGS, Fault.server_error(503), times=1)
        response = await client.with_raw_response.catalogs.list().first_page()
        assert (response.status, response.retries) == (200, 1)


async def test_raw_pages_come_one_answer_per_page_in_order() -> None:
    async with Sandbox(page_sizes={"contents": 7}) as sandbox, sandbox.client() as client:
        catalog = max(sandbox.data.catalogs, key=lambda catalog: catalog.item_count)
        answers = [answer async for answer in client.with_raw_response.catalogs.contents(catalog.uuid)]
        items = [item for answer in answers for item in answer.parse().results]
        assert len(answers) > 2
        assert len({answer.request_id for answer in answers}) == len(answers)
        assert items == await client.catalogs.contents(catalog.uuid).to_list()


async def test_a_raw_call_raises_the_same_typed_error_as_the_plain_call() -> None:
    async with Sandbox() as sandbox, sandbox.client() as client:
        catalog = sandbox.data.catalogs[0].uuid  # the token's customer's: an unknown one is 403
        with pytest.raises(NotFoundError):
            await client.with_raw_response.catalogs.course(catalog, "course-v1:x+y")


async def test_a_status_error_carries_and_ends_with_the_request_id() -> None:
    async with Sandbox() as sandbox, sandbox.client() as client:
        with pytest.raises(APIStatusError) as raised:
            await client.catalogs.course(CATALOG, "course-v1:x+y")
        error = raised.value
        assert error.request_id
        assert error.response_request_id == error.headers["x-amzn-RequestId"]
        assert str(error).endswith(f"(request id {error.request_id})")


def test_the_apigw_id_names_a_request_when_the_request_id_is_missing() -> None:
    from enterprise_async._generated.operations import SPEC
    from enterprise_async._response.responses import request_id_of

    names = SPEC.request_id_headers
    assert request_id_of({"x-amz-apigw-id": "Abc="}, names) == "Abc="
    assert request_id_of({"X-Request-Id": "r-1"}, names) == "r-1"
    assert request_id_of({}, names) is None


async def test_every_debug_record_of_an_answer_carries_its_request_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="enterprise_async")
    async with Sandbox() as sandbox, sandbox.client() as client:
        await client.catalogs.list().to_list()
    answers = [record for record in caplog.records if hasattr(record, "status")]
    assert answers
    assert all(getattr(record, "request_id", None) for record in answers)
    assert all(str(getattr(record, "request_id", "")) in record.getMessage() for record in answers)


TYPED = """
from enterprise_async import EnterpriseClient

async def check(client: EnterpriseClient) -> None:
    answer = await client.with_raw_response.policies.allocate(
        "p", learner_emails=["a@example.com"], content_key="k", content_price_cents=1
    )
    reveal_type(answer)
    reveal_type(answer.parse())
    pages = client.with_raw_response.catalogs.contents("c")
    reveal_type(pages)
    async for page in pages:
        reveal_type(page.parse().results)
"""


def test_mypy_types_raw_calls_precisely(tmp_path: Path) -> None:
    module = tmp_path / "typed_raw.py"
    module.write_text(TYPED)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path),
            str(module),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    revealed = [
        line.split("Revealed type is ", 1)[1] for line in result.stdout.splitlines() if "Revealed" in line
    ]
    assert revealed == [
        '"enterprise_async._client.raw_response.APIResponse[enterprise_async._generated.models.AllocationResult]"',
        '"enterprise_async._generated.models.AllocationResult"',
        '"enterprise_async._client.raw_response.RawPager[enterprise_async._generated.models.CatalogContentsPage]"',
        '"list[enterprise_async._generated.models.Course | enterprise_async._generated.models.CourseRun | '
        "enterprise_async._generated.models.Program | enterprise_async._generated.models.LearnerPathway | "
        'enterprise_async._generated.models.Video | enterprise_async._generated.models.ContentMetadata]"',
    ], result.stdout


async def test_a_bare_list_answer_parses_to_the_pagers_envelope() -> None:
    async with Sandbox(learner_summary="list") as sandbox, sandbox.client() as client:
        customer = sandbox.data.customers[0].uuid
        answers = [answer async for answer in client.with_raw_response.learner_summary.list(customer)]
        assert len(answers) == 1
        assert list(answers[0].parse().results) == await client.learner_summary.list(customer).to_list()


async def turns_while(read: Callable[[], Awaitable[Any]]) -> int:
    """The turns the event loop gave another task while ``read`` ran."""
    turns = 0

    async def tick() -> None:
        nonlocal turns
        while True:
            await asyncio.sleep(0)
            turns += 1

    task = asyncio.create_task(tick())
    await asyncio.sleep(0)
    before = turns
    await read()
    given = turns - before
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return given


async def test_a_raw_page_is_decoded_in_steps_as_the_plain_page_is() -> None:
    """A raw listing's page reaches its answer through the same stepped read as a plain one's:
    other tasks get the same turns while an XML page is read."""
    async with (
        Sandbox(seed=0, page_sizes={"contents": 200}) as sandbox,
        sandbox.client(response_format="xml") as client,
    ):
        catalog = max(sandbox.data.catalogs, key=lambda catalog: catalog.item_count)
        await client.catalogs.contents(catalog.uuid).first_page()  # the token is fetched
        plain = await turns_while(lambda: client.catalogs.contents(catalog.uuid).first_page())
        raw = await turns_while(lambda: client.with_raw_response.catalogs.contents(catalog.uuid).first_page())
        assert catalog.item_count > 40
        assert raw >= plain - 2


RESOURCES = Path(__file__).resolve().parents[2] / "enterprise_async" / "_generated" / "resources.py"


def test_each_method_is_written_once_and_its_raw_twin_is_the_same_method() -> None:
    """``with_raw_response`` holds each resource's own methods, so the generated code writes a
    signature and a docstring once, and the raw method takes what the plain one takes."""
    tree = ast.parse(RESOURCES.read_text())
    written = Counter(
        (owner.name.removesuffix("WithRawResponse"), node.name)
        for owner in tree.body
        if isinstance(owner, ast.ClassDef)
        for node in owner.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name != "__init__"
    )
    assert written
    assert [name for name, count in written.items() if count > 1] == []
    client = EnterpriseClient(client_id="id", client_secret="secret", base_url="http://127.0.0.1:9")
    for plain, raw in ((client.catalogs.course, client.with_raw_response.catalogs.course),
                       (client.catalogs.contents, client.with_raw_response.catalogs.contents)):  # fmt: skip
        assert inspect.signature(raw) == inspect.signature(plain)
        assert raw.__doc__ == plain.__doc__
