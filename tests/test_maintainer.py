"""A maintainer's edits to `spec/openapi.yaml` reach the client with no hand-written change.

Each test copies the repository (the tree, not git), applies one edit to the copy's spec, runs
`python -m codegen` there, checks that nothing outside `spec/` and `enterprise_async/_generated/`
changed, then imports the copied package in a subprocess and drives its client against a local
aiohttp server this test starts. Regeneration runs once per edit: the module takes about a minute
(select it with ``-m maintainer``, skip it with ``-m "not maintainer"``).

The sandbox-driven and CLI-driven checks of the same edits are added once those follow the spec
(issue 11, parts 3 and 4): ``regenerated`` is the shared step to build them on.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from tests.conftest import CLIENT_ID, CLIENT_SECRET, ScriptedAPI

pytestmark = pytest.mark.maintainer

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ("spec/", "enterprise_async/_generated/")
"""The only places a spec edit may change."""
CACHES = {".git", ".venv", ".nox", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
POLICY = "4f2ad1b8-9c6e-4c1a-8f0e-3b7d2e5a9c11"

# ---------------------------------------------------------------------- the edits a maintainer writes

NEW_FIELD = (
    "        title: {type: string, description: Catalog name.}\n",
    "        region: {type: string, description: Where the catalog is offered.}\n",
)

NEW_ENUM_VALUE = (
    "enum: [allocated, accepted, cancelled, errored, expired, reversed]",
    "enum: [allocated, accepted, cancelled, errored, expired, reversed, paused]",
)

NEW_ENDPOINT = """
  /enterprise/v1/subsidy-access-policies/{policy_uuid}/:
    get:
      tags: [policies]
      x-sdk-method: retrieve
      operationId: policies_retrieve
      summary: One subsidy access policy.
      parameters:
        - $ref: "#/components/parameters/PolicyUuid"
      responses:
        "200":
          description: The policy.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/SubsidyAccessPolicy"}
        default: {$ref: "#/components/responses/Error"}
"""

NEW_TAG = "  - name: members\n    description: Members of an enterprise customer.\n"
NEW_TAG_PATH = """
  /enterprise/v1/members/:
    get:
      tags: [members]
      x-sdk-method: list
      operationId: members_list
      summary: List the members of the customer.
      x-sdk-pagination: {items: results, page_param: page}
      parameters:
        - {name: page, in: query, description: Page number., schema: {type: integer, minimum: 1}}
      responses:
        "200":
          description: A page of members.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/MemberPage"}
        default: {$ref: "#/components/responses/Error"}
"""
NEW_TAG_SCHEMAS = """
    Member:
      type: object
      description: A member of the customer.
      properties:
        email: {type: string, description: E-mail.}
    MemberPage:
      type: object
      description: A page of members.
      properties:
        count: {type: integer, description: Number of members.}
        next: {type: [string, "null"], description: URL of the next page.}
        previous: {type: [string, "null"], description: URL of the previous page.}
        results:
          type: array
          description: The members of this page.
          items: {$ref: "#/components/schemas/Member"}
"""

POST_WITH_RULES = """
  /enterprise/v1/subsidy-access-policies/{policy_uuid}/deposit/:
    post:
      tags: [policies]
      x-sdk-method: deposit
      operationId: policies_deposit
      summary: Deposit funds in a policy.
      parameters:
        - $ref: "#/components/parameters/PolicyUuid"
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              additionalProperties: false
              required: [amount_cents, notify_emails]
              properties:
                amount_cents: {type: integer, minimum: 1, description: Amount in USD cents.}
                notify_emails:
                  type: array
                  maxItems: 2
                  description: Who is told.
                  items: {type: string, format: email}
      responses:
        "201":
          description: Deposited.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Deposit"}
        default: {$ref: "#/components/responses/Error"}
"""
POST_SCHEMAS = """
    Deposit:
      type: object
      description: A deposit.
      properties:
        deposit_id: {type: string, description: Deposit identifier.}
"""

PARTIAL_MAPPING = """
  /enterprise/v1/subsidy-access-policies/{policy_uuid}/retire/:
    post:
      tags: [policies]
      x-sdk-method: retire
      operationId: policies_retire
      summary: Retire assignments of a policy.
      parameters:
        - $ref: "#/components/parameters/PolicyUuid"
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [assignment_uuids]
              properties:
                assignment_uuids: {type: array, minItems: 1, items: {type: string}, description: Assignments.}
      responses:
        "200":
          description: All retired.
          x-sdk-result: {partial: false}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/RetireResult"}
        "207":
          description: Some retired, some not.
          x-sdk-result: {partial: true}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/RetireResult"}
        default: {$ref: "#/components/responses/Error"}
"""
PARTIAL_SCHEMAS = """
    RetireResult:
      type: object
      description: Outcome of a retirement.
      properties:
        retired: {type: array, items: {type: string}, description: Retired assignments.}
        failed: {type: array, items: {type: string}, description: Assignments not retired.}
        partial: {type: boolean, default: false, x-sdk-computed: true, description: Set by the SDK on 207.}
"""

OTHER_ENVELOPE_TAG = "  - name: transactions\n    description: Ledger transactions of the customer.\n"
OTHER_ENVELOPE_PATH = """
  /enterprise/v1/transactions/:
    get:
      tags: [transactions]
      x-sdk-method: list
      operationId: transactions_list
      summary: List the ledger transactions.
      x-sdk-pagination:
        items: data
        next_field: null
        count_field: total
        pages_field: total_pages
        size_field: per_page
        page_param: page
        size_param: per_page
      parameters:
        - {name: page, in: query, description: Page number., schema: {type: integer, minimum: 1}}
        - {name: per_page, in: query, description: Page size., schema: {type: integer, minimum: 1}}
      responses:
        "200":
          description: A page of transactions.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/TransactionPage"}
        default: {$ref: "#/components/responses/Error"}
"""
OTHER_ENVELOPE_SCHEMAS = """
    Transaction:
      type: object
      description: A ledger transaction.
      properties:
        id: {type: string, description: Transaction identifier.}
        amount_cents: {type: integer, description: Amount in USD cents.}
    TransactionPage:
      type: object
      description: A page of transactions.
      properties:
        page: {type: integer, description: Number of this page.}
        per_page: {type: integer, description: Page size.}
        total: {type: integer, description: Number of transactions.}
        total_pages: {type: integer, description: Number of pages.}
        data:
          type: array
          description: The transactions of this page.
          items: {$ref: "#/components/schemas/Transaction"}
"""

BARE_LIST_PATH = """
  /enterprise/v1/subsidy-access-policies/{policy_uuid}/history/:
    get:
      tags: [policies]
      x-sdk-method: history
      operationId: policies_history
      summary: The events of a policy, a bare list paged by page number.
      x-sdk-pagination: {items: null, page_param: page, size_param: page_size}
      parameters:
        - $ref: "#/components/parameters/PolicyUuid"
        - {name: page, in: query, description: Page number., schema: {type: integer, minimum: 1}}
        - {name: page_size, in: query, description: Events per page., schema: {type: integer, minimum: 1}}
      responses:
        "200":
          description: A page of events.
          content:
            application/json:
              schema:
                type: array
                items: {$ref: "#/components/schemas/PolicyEvent"}
        default: {$ref: "#/components/responses/Error"}
"""
BARE_LIST_SCHEMAS = """
    PolicyEvent:
      type: object
      description: Something that happened to a policy.
      properties:
        kind: {type: string, description: What happened.}
"""


# ---------------------------------------------------------------------- the copy and its regeneration


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the repository's tree; each test works on a copy of this copy."""
    target = tmp_path_factory.mktemp("pristine") / "repo"
    shutil.copytree(ROOT, target, ignore=lambda _, names: [name for name in names if name in CACHES])
    return target


@pytest.fixture
def repo(pristine: Path, tmp_path: Path) -> Path:
    target = tmp_path / "repo"
    shutil.copytree(pristine, target, ignore=lambda _, names: [name for name in names if name in CACHES])
    return target


def snapshot(root: Path) -> dict[str, str]:
    """A digest of every file of the tree, by path relative to ``root`` (caches left out)."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not CACHES.intersection(path.relative_to(root).parts)
    }


def edit_spec(
    repo: Path, *, replace: tuple[str, str] = ("", ""), tags: str = "", paths: str = "", schemas: str = ""
) -> None:
    """Apply a maintainer's edit: replace a text, declare tags, add paths and schemas."""
    spec = repo / "spec" / "openapi.yaml"
    text = spec.read_text(encoding="utf-8")
    old, new = replace
    if old:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    text = text.replace("  - name: auth\n", tags + "  - name: auth\n", 1)
    text = text.replace("\n  /oauth2/v1/access_token:\n", paths + "\n  /oauth2/v1/access_token:\n", 1)
    text = text.replace("\n  schemas:\n", "\n  schemas:\n" + schemas.lstrip("\n"), 1)
    spec.write_text(text, encoding="utf-8")


def regenerate(repo: Path) -> subprocess.CompletedProcess[str]:
    """`python -m codegen` in the copy."""
    return subprocess.run(
        [sys.executable, "-m", "codegen"], cwd=repo, capture_output=True, text=True, check=False
    )


def regenerated(repo: Path, **edit: Any) -> None:
    """Apply ``edit``, regenerate, and check that only `spec/` and `_generated/` changed."""
    before = snapshot(repo)
    edit_spec(repo, **edit)
    result = regenerate(repo)
    assert result.returncode == 0, result.stderr
    after = snapshot(repo)
    changed = {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
    assert changed, "the edit changed nothing"
    assert all(path.startswith(GENERATED) for path in changed), sorted(changed)


async def drive(repo: Path, api: ScriptedAPI, body: str) -> Any:
    """Run ``body`` (the inside of ``async def run(client, models)``) with the copied package's
    client against ``api``, in a subprocess; return what it returns (as JSON)."""
    program = textwrap.dedent(
        """
        import asyncio, json, sys
        import enterprise_async
        from enterprise_async import EnterpriseClient, errors, models

        async def run(client, models):
        {body}

        async def main():
            base_url, client_id, secret = sys.argv[1:4]
            async with EnterpriseClient(client_id=client_id, client_secret=secret, base_url=base_url) as c:
                result = await run(c, models)
            print(json.dumps({{"package": enterprise_async.__file__, "result": result}}, default=str))

        asyncio.run(main())
        """
    ).format(body=textwrap.indent(textwrap.dedent(body), "    "))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", program, api.base_url, CLIENT_ID, CLIENT_SECRET,
        cwd=repo, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    answer = json.loads(out.decode().strip().splitlines()[-1])
    assert Path(answer["package"]).is_relative_to(repo)  # the copy's package, not the worktree's
    return answer["result"]


def mypy_strict(repo: Path) -> subprocess.CompletedProcess[str]:
    """`mypy --strict enterprise_async` in the copy (its cache kept out of the tree)."""
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--cache-dir",
        str(repo.parent / "mypy-cache"),
        "enterprise_async",
    ]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, check=False)


# ---------------------------------------------------------------------- one test per edit


async def test_a_new_field_reaches_the_models(repo: Path, api: ScriptedAPI) -> None:
    regenerated(repo, replace=(NEW_FIELD[0], NEW_FIELD[0] + NEW_FIELD[1]))
    catalogs = [
        {"uuid": "c1", "title": "One", "region": "emea"},
        {"uuid": "c2", "title": "Two", "region": "apac"},
    ]
    api.json(
        "GET",
        "/enterprise/v2/enterprise-catalogs",
        {"count": 2, "next": None, "previous": None, "results": catalogs},
    )
    regions = await drive(repo, api, "return [catalog.region async for catalog in client.catalogs.list()]")
    assert regions == [catalog["region"] for catalog in catalogs]


async def test_a_new_enum_value_is_a_named_member(repo: Path, api: ScriptedAPI) -> None:
    regenerated(repo, replace=NEW_ENUM_VALUE)
    path = "/enterprise/v1/assignment-configurations/9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b/admin/assignments/"
    page = {
        "count": 1,
        "next": None,
        "previous": None,
        "results": [{"uuid": "a1", "state": "paused"}],
        "learner_state_counts": [],
    }
    api.json("GET", path, page)
    body = """
    [assignment] = await client.assignments.list("9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b").to_list()
    return [assignment.state is models.AssignmentState.PAUSED, str(assignment.state)]
    """
    assert await drive(repo, api, body) == [True, "paused"]


async def test_a_new_endpoint_is_a_client_method(repo: Path, api: ScriptedAPI) -> None:
    regenerated(repo, paths=NEW_ENDPOINT)
    api.json(
        "GET",
        f"/enterprise/v1/subsidy-access-policies/{POLICY}/",
        {"uuid": POLICY, "display_name": "Learning"},
    )
    body = f"""
    policy = await client.policies.retrieve("{POLICY}")
    return [type(policy).__name__, policy.display_name]
    """
    assert await drive(repo, api, body) == ["SubsidyAccessPolicy", "Learning"]


async def test_a_new_tag_is_a_client_resource(repo: Path, api: ScriptedAPI) -> None:
    regenerated(repo, tags=NEW_TAG, paths=NEW_TAG_PATH, schemas=NEW_TAG_SCHEMAS)
    members = [{"email": f"m{number}@acme.example"} for number in range(5)]

    async def handler(request: web.Request) -> web.Response:
        number = int(request.query.get("page", 1))
        following = f"{api.base_url}/enterprise/v1/members/?page={number + 1}" if number < 3 else None
        rows = members[(number - 1) * 2 : number * 2]
        return web.json_response(
            {"count": len(members), "next": following, "previous": None, "results": rows}
        )

    api.routes[("GET", "/enterprise/v1/members/")] = handler
    emails = await drive(repo, api, "return [member.email async for member in client.members.list()]")
    assert emails == [member["email"] for member in members]


async def test_a_post_with_rules_is_validated_before_it_is_sent(repo: Path, api: ScriptedAPI) -> None:
    regenerated(repo, paths=POST_WITH_RULES, schemas=POST_SCHEMAS)
    path = f"/enterprise/v1/subsidy-access-policies/{POLICY}/deposit/"
    api.json("POST", path, {"deposit_id": "d-1"}, status=201)
    body = f"""
    refused = []
    for arguments in (
        {{"amount_cents": 0, "notify_emails": []}},
        {{"amount_cents": 5, "notify_emails": ["not-an-email"]}},
        {{"amount_cents": 5, "notify_emails": ["a@x.example"] * 3}},
    ):
        try:
            await client.policies.deposit("{POLICY}", **arguments)
        except errors.ClientValidationError:
            refused.append(True)
    deposit = await client.policies.deposit("{POLICY}", amount_cents=500, notify_emails=["ada@acme.example"])
    return [refused, deposit.deposit_id]
    """
    assert await drive(repo, api, body) == [[True, True, True], "d-1"]
    [sent] = api.calls("POST", path)
    assert json.loads(sent.body) == {"amount_cents": 500, "notify_emails": ["ada@acme.example"]}


async def test_a_207_mapping_marks_the_result_partial(repo: Path, api: ScriptedAPI) -> None:
    regenerated(repo, paths=PARTIAL_MAPPING, schemas=PARTIAL_SCHEMAS)
    api.json(
        "POST",
        f"/enterprise/v1/subsidy-access-policies/{POLICY}/retire/",
        {"retired": ["a1"], "failed": ["a2"]},
        status=207,
    )
    body = f"""
    result = await client.policies.retire("{POLICY}", assignment_uuids=["a1", "a2"])
    return [result.partial, result.retired, result.failed]
    """
    assert await drive(repo, api, body) == [True, ["a1"], ["a2"]]


async def test_an_envelope_of_another_shape_is_paged_and_type_checks(repo: Path, api: ScriptedAPI) -> None:
    regenerated(repo, tags=OTHER_ENVELOPE_TAG, paths=OTHER_ENVELOPE_PATH, schemas=OTHER_ENVELOPE_SCHEMAS)
    transactions = [{"id": f"t{number}", "amount_cents": number} for number in range(11)]

    async def handler(request: web.Request) -> web.Response:
        number, size = int(request.query.get("page", 1)), int(request.query.get("per_page", 4))
        rows = transactions[(number - 1) * size : number * size]
        pages = -(-len(transactions) // size)
        envelope = {"page": number, "per_page": size, "total": len(transactions), "total_pages": pages}
        return web.json_response(envelope | {"data": rows})

    api.routes[("GET", "/enterprise/v1/transactions/")] = handler
    body = """
    pager = client.transactions.list(per_page=3)
    first = await pager.first_page()
    return [[item.id async for item in pager], type(first).__name__, first.total_pages]
    """
    ids, page_class, pages = await drive(repo, api, body)
    assert ids == [transaction["id"] for transaction in transactions]
    assert (page_class, pages) == ("TransactionPage", 4)
    checked = mypy_strict(repo)
    assert checked.returncode == 0, checked.stdout


async def test_a_bare_list_is_paged_until_a_short_page_and_type_checks(repo: Path, api: ScriptedAPI) -> None:
    regenerated(repo, paths=BARE_LIST_PATH, schemas=BARE_LIST_SCHEMAS)
    events = [{"kind": f"event-{number}"} for number in range(7)]

    async def handler(request: web.Request) -> web.Response:
        number, size = int(request.query.get("page", 1)), int(request.query.get("page_size", 3))
        return web.json_response(events[(number - 1) * size : number * size])

    api.routes[("GET", f"/enterprise/v1/subsidy-access-policies/{POLICY}/history/")] = handler
    body = f"""
    return [event.kind async for event in client.policies.history("{POLICY}", page_size=3)]
    """
    assert await drive(repo, api, body) == [event["kind"] for event in events]
    checked = mypy_strict(repo)
    assert checked.returncode == 0, checked.stdout


def test_a_broken_spec_is_refused_and_changes_nothing(repo: Path) -> None:
    before = snapshot(repo)
    broken = NEW_ENDPOINT.replace("x-sdk-method: retrieve", "x-sdk-method: list").replace(
        "tags: [policies]", "tags: [policy]"
    )
    edit_spec(repo, paths=broken)
    spec_after_edit = snapshot(repo)
    result = regenerate(repo)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "tag 'policy' is not declared" in result.stderr
    assert snapshot(repo) == spec_after_edit
    assert {path for path in before if before[path] != spec_after_edit[path]} == {"spec/openapi.yaml"}
