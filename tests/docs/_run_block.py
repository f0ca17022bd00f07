"""Runs one Python block of a guide (read from stdin) against a sandbox, as a reader would.

Started in a process of its own by tests/docs/test_markdown_blocks.py, in a temporary directory:
a block may set process-wide things (OpenTelemetry's provider, logging) or call ``asyncio.run``.

A sandbox serves in a thread of its own, and the ``ENTERPRISE_*`` variables point at it, so
``EnterpriseClient.from_env()`` reaches it. A whole program (no top-level ``await``) runs as
written, as a module not named ``__main__``. A fragment (top-level ``await``, ``async for`` or
``async with``) runs inside an event loop with ``client`` open and the ids the guides name
(``customer_uuid``, ``catalog_uuid``, ...) in scope: those of the sandbox's first customer, found
through the client as a user finds their own.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import os
import sys
import threading
from decimal import Decimal
from typing import Any

from enterprise_async import EnterpriseClient
from enterprise_async.models import AssignmentConfiguration, Course, CourseRun, Program
from enterprise_async.testing import Sandbox


class SandboxThread(threading.Thread):
    """A sandbox serving on its own event loop until the process ends."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.ready = threading.Event()
        self.sandbox: Sandbox | None = None

    def run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        async with Sandbox(seed=0) as sandbox:
            self.sandbox = sandbox
            self.ready.set()
            await asyncio.Event().wait()


async def ids(client: EnterpriseClient, customer_uuid: str) -> dict[str, Any]:
    """The names the guides' fragments use, bound to the customer's own resources."""
    policies = await client.policies.list(customer_uuid).to_list()
    policy, config = next(
        (policy, configuration.uuid)
        for policy in policies
        if isinstance(configuration := policy.assignment_configuration, AssignmentConfiguration)
    )
    page = await client.catalogs.contents(policy.catalog_uuid or "").first_page()
    course = next(item for item in page.results if isinstance(item, Course))
    catalogs = await client.catalogs.list().to_list()
    contents = (await client.catalogs.contents(catalogs[0].uuid or "", page_size=100).first_page()).results
    catalog_course = next(item for item in contents if isinstance(item, Course))
    program = next((item for item in contents if isinstance(item, Program)), None)
    assignments = await client.assignments.list(config or "").first_page()
    plans = await client.subscriptions.list(enterprise_customer_uuid=customer_uuid).to_list()
    plan = next((plan for plan in plans if plan.is_active), plans[0])
    runs = [run.key for run in course.course_runs if isinstance(run, CourseRun) and run.key]
    price = course.first_enrollable_paid_seat_price
    return {
        "customer_uuid": customer_uuid,
        "policy_uuid": policy.uuid,
        "config_uuid": config,
        "assignment_uuid": assignments.results[0].uuid,
        "content_key": course.key,
        "price_cents": int(price * 100) if price is not None else 4_900,
        "plan_uuid": plan.uuid,
        "catalog_uuid": catalogs[0].uuid,
        "course_key": catalog_course.key,
        "program_uuid": program.uuid if program else None,
        "run_key": runs[0],
        "course": catalog_course,
        "Decimal": Decimal,
    }


def is_fragment(code: str) -> bool:
    """Whether the block awaits at its top level (then it runs inside an event loop)."""
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    return bool(compile(code, "<block>", "exec", flags=flags).co_flags & inspect.CO_COROUTINE)


async def run_fragment(code: str, name: str, customer_uuid: str) -> None:
    """The fragment inside an event loop, with ``client`` open and the ids in scope."""
    async with EnterpriseClient.from_env() as client:
        namespace = {"__name__": "guide_block", "client": client, **await ids(client, customer_uuid)}
        compiled = compile(code, name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        await eval(compiled, namespace)


async def ids_alone(customer_uuid: str) -> dict[str, Any]:
    """The ids, for a block that is no fragment but names them (``course``)."""
    async with EnterpriseClient.from_env() as client:
        return await ids(client, customer_uuid)


SERVER = SandboxThread()


def main() -> None:
    name, code = sys.argv[1], sys.stdin.read()
    SERVER.start()
    SERVER.ready.wait(timeout=60)
    sandbox = SERVER.sandbox
    assert sandbox is not None
    os.environ.update(
        ENTERPRISE_CLIENT_ID=sandbox.client_id,
        ENTERPRISE_CLIENT_SECRET=sandbox.client_secret,
        ENTERPRISE_BASE_URL=sandbox.base_url,
    )
    os.environ.pop("ENTERPRISE_AUTH_URL", None)
    customer_uuid = sandbox.data.customers[0].uuid
    if is_fragment(code):
        asyncio.run(run_fragment(code, name, customer_uuid))
    else:
        namespace = {"__name__": "guide_block", **asyncio.run(ids_alone(customer_uuid))}
        exec(compile(code, name, "exec"), namespace)
    print("block ran")


if __name__ == "__main__":
    main()
