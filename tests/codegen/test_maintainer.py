"""A maintainer's edits to `spec/openapi.yaml` reach the client, the sandbox and the command line
with no hand-written change.

Each class is one edit: a copy of the repository (the tree, not git) gets the edit in its spec and
runs `python -m codegen`, once for the whole class, checking that nothing outside `spec/` and
`enterprise_async/_generated/` changed. Its tests then run the copied package in subprocesses:
its client against a local aiohttp server the test scripts, its own sandbox
(``python -m enterprise_async sandbox``, serving the regenerated spec), and its command line
(``python -m enterprise_async``) against either. The module takes about a minute (select it with
``-m maintainer``, skip it with ``-m "not maintainer"``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from attrs import frozen

from enterprise_async.models import Assignment, SubsidyAccessPolicy
from enterprise_async.testing import Sandbox
from enterprise_async.testing._synthesis import SYNTHETIC_LIST_LENGTH, SYNTHETIC_PAGE_SIZE
from tests.conftest import CLIENT_ID, CLIENT_SECRET, ScriptedAPI
from tests.openapi_spec import required

pytestmark = pytest.mark.maintainer

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ("spec/", "enterprise_async/_generated/", "enterprise_async/api.md")
"""The only places a spec edit may change."""
CACHES = {".git", ".venv", ".nox", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
POLICY = "4f2ad1b8-9c6e-4c1a-8f0e-3b7d2e5a9c11"
CONFIGURATION = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
SEED = 0

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


def policy_action(action: str, summary: str, body: str, responses: str) -> str:
    """A POST on one policy (``/subsidy-access-policies/{policy_uuid}/<action>/``) as a maintainer
    adds it: ``body`` is the request body's schema, ``responses`` its responses (both YAML)."""
    head = f"""
  /enterprise/v1/subsidy-access-policies/{{policy_uuid}}/{action}/:
    post:
      tags: [policies]
      x-sdk-method: {action}
      operationId: policies_{action}
      summary: {summary}
      parameters:
        - $ref: "#/components/parameters/PolicyUuid"
      requestBody:
        required: true
        content:
          application/json:
            schema:
"""
    error = '        default: {$ref: "#/components/responses/Error"}\n'
    return head + _block(body, 14) + "      responses:\n" + _block(responses, 8) + error


def _block(text: str, indent: int) -> str:
    """``text`` (YAML) dedented, without blank lines, indented by ``indent`` spaces."""
    lines = [line for line in textwrap.dedent(text).splitlines() if line.strip()]
    return textwrap.indent("\n".join(lines) + "\n", " " * indent)


def answering(status: str, schema: str, description: str, result: str = "") -> str:
    """One documented response of ``schema`` (a component's name), with its ``x-sdk-result``."""
    marked = f"\n  x-sdk-result: {result}" if result else ""
    return f"""
"{status}":
  description: {description}{marked}
  content:
    application/json:
      schema: {{$ref: "#/components/schemas/{schema}"}}
"""


POST_WITH_RULES = policy_action(
    "deposit",
    "Deposit funds in a policy.",
    """
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
    """,
    answering("201", "Deposit", "Deposited."),
)
POST_SCHEMAS = """
    Deposit:
      type: object
      description: A deposit.
      properties:
        deposit_id: {type: string, description: Deposit identifier.}
"""

PARTIAL_MAPPING = policy_action(
    "retire",
    "Retire assignments of a policy.",
    """
    type: object
    required: [assignment_uuids]
    properties:
      assignment_uuids: {type: array, minItems: 1, items: {type: string}, description: Assignments.}
    """,
    answering("200", "RetireResult", "All retired.", "{partial: false}")
    + answering("207", "RetireResult", "Some retired, some not.", "{partial: true}"),
)
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
    """One copy of the repository's tree; each edit works on a copy of this copy."""
    target = tmp_path_factory.mktemp("pristine") / "repo"
    shutil.copytree(ROOT, target, ignore=ignore_caches)
    return target


def ignore_caches(_: str, names: list[str]) -> list[str]:
    return [name for name in names if name in CACHES]


def copy_of(pristine: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("edited") / "repo"
    shutil.copytree(pristine, target, ignore=ignore_caches)
    return target


def edited(**edit: Any) -> Any:
    """A class-scoped ``repo`` fixture: a copy of the repository with ``edit`` applied and
    regenerated, once for all the tests of the class (client, sandbox and CLI)."""

    def repo(cls: type, pristine: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
        target = copy_of(pristine, tmp_path_factory)
        regenerated(target, **edit)
        return target

    return pytest.fixture(scope="class")(classmethod(repo))


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


# ---------------------------------------------------------------------- the copy's client, sandbox, CLI


@frozen
class Server:
    """Where a copy's client or CLI is pointed: a base URL (the token issuer is on it too) and
    the credentials it accepts."""

    base_url: str
    client_id: str
    client_secret: str

    def environment(self) -> dict[str, str]:
        """The environment a command line reads its credentials from."""
        return os.environ | {
            "ENTERPRISE_BASE_URL": self.base_url,
            "ENTERPRISE_AUTH_URL": self.base_url,
            "ENTERPRISE_CLIENT_ID": self.client_id,
            "ENTERPRISE_CLIENT_SECRET": self.client_secret,
        }


def scripted(api: ScriptedAPI) -> Server:
    return Server(api.base_url, CLIENT_ID, CLIENT_SECRET)


@pytest.fixture(scope="class")
def sandbox(repo: Path) -> Iterator[Server]:
    """The copy's own sandbox (``python -m enterprise_async sandbox``, seed 0), serving the
    regenerated spec from a process that imports the copy."""
    process = subprocess.Popen(
        [sys.executable, "-m", "enterprise_async", "sandbox", "--port", "0", "--seed", str(SEED)],
        cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        banner: dict[str, str] = {}
        assert process.stdout is not None
        for line in process.stdout:
            name, _, value = line.strip().removeprefix("export ").partition("=")
            banner[name] = value
            if name == "ENTERPRISE_CLIENT_SECRET":
                break
        assert "ENTERPRISE_CLIENT_SECRET" in banner, process.stderr and process.stderr.read()
        yield Server(
            banner["ENTERPRISE_BASE_URL"], banner["ENTERPRISE_CLIENT_ID"], banner["ENTERPRISE_CLIENT_SECRET"]
        )
    finally:
        process.terminate()
        process.communicate(timeout=30)


async def drive(repo: Path, server: Server, body: str) -> Any:
    """Run ``body`` (the inside of ``async def run(client, models)``) with the copied package's
    client against ``server``, in a subprocess; return what it returns (as JSON)."""
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
        sys.executable, "-c", program, server.base_url, server.client_id, server.client_secret,
        cwd=repo, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    answer = json.loads(out.decode().strip().splitlines()[-1])
    assert Path(answer["package"]).is_relative_to(repo)  # the copy's package, not the worktree's
    return answer["result"]


@frozen
class Ran:
    """What a command line run did."""

    exit_code: int
    stdout: str
    stderr: str

    def json_lines(self) -> list[Any]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


async def command_line(repo: Path, server: Server, *args: str) -> Ran:
    """``enterprise-async ARGS`` as the copy's package runs it (``python -m enterprise_async``),
    its credentials from the environment, against ``server``."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "enterprise_async", *args,
        cwd=repo, env=server.environment(), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    assert process.returncode is not None
    return Ran(process.returncode, out.decode(), err.decode())


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


# ---------------------------------------------------------------------- one class per edit


class TestANewField:
    repo = edited(replace=(NEW_FIELD[0], NEW_FIELD[0] + NEW_FIELD[1]))

    @pytest.fixture
    def catalogs(self, api: ScriptedAPI) -> list[dict[str, str]]:
        rows = [
            {"uuid": "c1", "title": "One", "enterprise_customer": "e1", "region": "emea"},
            {"uuid": "c2", "title": "Two", "enterprise_customer": "e1", "region": "apac"},
        ]
        envelope = {"count": 2, "next": None, "previous": None, "results": rows}
        api.json("GET", "/enterprise/v2/enterprise-catalogs", envelope)
        return rows

    async def test_the_client_decodes_it(
        self, repo: Path, api: ScriptedAPI, catalogs: list[dict[str, str]]
    ) -> None:
        regions = await drive(
            repo, scripted(api), "return [catalog.region async for catalog in client.catalogs.list()]"
        )
        assert regions == [catalog["region"] for catalog in catalogs]

    async def test_the_command_line_writes_it(
        self, repo: Path, api: ScriptedAPI, catalogs: list[dict[str, str]]
    ) -> None:
        ran = await command_line(repo, scripted(api), "catalogs", "list", "--json")
        assert ran.exit_code == 0, ran.stderr
        assert [row["region"] for row in ran.json_lines()] == [catalog["region"] for catalog in catalogs]

    async def test_the_sandbox_listing_decodes_into_the_new_model(self, repo: Path, sandbox: Server) -> None:
        body = "return [sorted(models.to_dict(c, every_field=True)) async for c in client.catalogs.list()]"
        fields = await drive(repo, sandbox, body)
        assert fields
        assert all("region" in names and "title" in names for names in fields)


class TestANewEnumValue:
    repo = edited(replace=NEW_ENUM_VALUE)

    async def test_the_client_names_it(self, repo: Path, api: ScriptedAPI) -> None:
        page = {
            "count": 1,
            "next": None,
            "previous": None,
            "results": [{**required(Assignment), "uuid": "a1", "state": "paused"}],
            "learner_state_counts": [],
        }
        api.json("GET", f"/enterprise/v1/assignment-configurations/{CONFIGURATION}/admin/assignments/", page)
        body = f"""
        [assignment] = await client.assignments.list("{CONFIGURATION}").to_list()
        return [assignment.state is models.AssignmentState.PAUSED, str(assignment.state)]
        """
        assert await drive(repo, scripted(api), body) == [True, "paused"]

    async def test_the_sandbox_filters_by_it(self, repo: Path, sandbox: Server) -> None:
        configuration = assignable_configuration()
        body = f"""
        paused = models.AssignmentState.PAUSED
        listing = client.assignments.list("{configuration}", state__in=[paused, "allocated"])
        return sorted({{str(assignment.state) async for assignment in listing}})
        """
        assert await drive(repo, sandbox, body) == ["allocated"]

    async def test_the_command_line_offers_it(self, repo: Path, sandbox: Server) -> None:
        ran = await command_line(repo, sandbox, "assignments", "list", "--help")
        assert ran.exit_code == 0, ran.stderr
        assert "paused" in ran.stdout


class TestANewEndpoint:
    repo = edited(paths=NEW_ENDPOINT)

    async def test_the_client_calls_it(self, repo: Path, api: ScriptedAPI) -> None:
        api.json(
            "GET",
            f"/enterprise/v1/subsidy-access-policies/{POLICY}/",
            {**required(SubsidyAccessPolicy), "uuid": POLICY, "display_name": "Learning"},
        )
        body = f"""
        policy = await client.policies.retrieve("{POLICY}")
        return [type(policy).__name__, policy.display_name]
        """
        assert await drive(repo, scripted(api), body) == ["SubsidyAccessPolicy", "Learning"]

    async def test_the_sandbox_and_the_command_line_answer_it_alike(
        self, repo: Path, sandbox: Server
    ) -> None:
        body = f"""
        policy = await client.policies.retrieve("{POLICY}")
        return [type(policy).__name__, models.to_dict(policy)]
        """
        model, answered = await drive(repo, sandbox, body)
        ran = await command_line(repo, sandbox, "policies", "retrieve", POLICY, "--json")
        assert ran.exit_code == 0, ran.stderr
        assert model == "SubsidyAccessPolicy"
        assert {"uuid", "display_name", "policy_type"} <= set(answered)
        assert json.loads(ran.stdout) == answered  # synthesized from the schema, the same per seed


class TestANewTag:
    repo = edited(tags=NEW_TAG, paths=NEW_TAG_PATH, schemas=NEW_TAG_SCHEMAS)

    async def test_the_client_pages_it(self, repo: Path, api: ScriptedAPI) -> None:
        members = [{"email": f"m{number}@acme.example"} for number in range(5)]

        async def handler(request: web.Request) -> web.Response:
            number = int(request.query.get("page", 1))
            following = f"{api.base_url}/enterprise/v1/members/?page={number + 1}" if number < 3 else None
            rows = members[(number - 1) * 2 : number * 2]
            return web.json_response(
                {"count": len(members), "next": following, "previous": None, "results": rows}
            )

        api.routes[("GET", "/enterprise/v1/members/")] = handler
        body = "return [member.email async for member in client.members.list()]"
        assert await drive(repo, scripted(api), body) == [member["email"] for member in members]

    async def test_the_sandbox_serves_every_page(self, repo: Path, sandbox: Server) -> None:
        body = """
        pager = client.members.list()
        first = await pager.first_page()
        return [first.count, len(first.results), [member.email async for member in pager]]
        """
        count, first_page, emails = await drive(repo, sandbox, body)
        assert (count, first_page) == (SYNTHETIC_LIST_LENGTH, SYNTHETIC_PAGE_SIZE)
        assert len(emails) == SYNTHETIC_LIST_LENGTH
        ran = await command_line(repo, sandbox, "members", "list", "--json")
        assert ran.exit_code == 0, ran.stderr
        assert [member["email"] for member in ran.json_lines()] == emails


class TestAPostWithRules:
    repo = edited(paths=POST_WITH_RULES, schemas=POST_SCHEMAS)
    path = f"/enterprise/v1/subsidy-access-policies/{POLICY}/deposit/"

    async def test_the_client_refuses_bad_arguments_before_sending(
        self, repo: Path, api: ScriptedAPI
    ) -> None:
        api.json("POST", self.path, {"deposit_id": "d-1"}, status=201)
        assert await drive(repo, scripted(api), DEPOSITS) == [[True, True, True], "d-1"]
        [sent] = api.calls("POST", self.path)
        assert json.loads(sent.body) == {"amount_cents": 500, "notify_emails": ["ada@acme.example"]}

    async def test_the_sandbox_takes_a_good_deposit(self, repo: Path, sandbox: Server) -> None:
        refused, deposit_id = await drive(repo, sandbox, DEPOSITS)
        assert refused == [True, True, True]
        assert isinstance(deposit_id, str)

    async def test_the_sandbox_refuses_a_bad_body_by_field(self, repo: Path, sandbox: Server) -> None:
        async with aiohttp.ClientSession() as session:
            token = await access_token(session, sandbox)
            async with session.post(
                sandbox.base_url + self.path,
                json={"amount_cents": 0, "notify_emails": []},
                headers={"Authorization": f"JWT {token}", "Accept": "application/json"},
            ) as response:
                assert response.status == 400
                assert list(await response.json()) == ["amount_cents"]

    async def test_the_command_line_refuses_as_the_client_does(self, repo: Path, sandbox: Server) -> None:
        arguments = ("policies", "deposit", POLICY, "--notify-emails", "ada@acme.example")
        refused = await command_line(repo, sandbox, *arguments, "--amount-cents", "0")
        taken = await command_line(repo, sandbox, *arguments, "--amount-cents", "500", "--json")
        assert refused.exit_code == 2
        assert "--amount-cents" in refused.stderr
        assert taken.exit_code == 0, taken.stderr
        assert set(json.loads(taken.stdout)) == {"deposit_id"}


class TestA207Mapping:
    repo = edited(paths=PARTIAL_MAPPING, schemas=PARTIAL_SCHEMAS)

    @pytest.fixture
    def partly(self, api: ScriptedAPI) -> ScriptedAPI:
        """``api`` retiring one assignment of two (207)."""
        path = f"/enterprise/v1/subsidy-access-policies/{POLICY}/retire/"
        api.json("POST", path, {"retired": ["a1"], "failed": ["a2"]}, status=207)
        return api

    async def test_the_client_marks_a_207_partial(self, repo: Path, partly: ScriptedAPI) -> None:
        body = f"""
        result = await client.policies.retire("{POLICY}", assignment_uuids=["a1", "a2"])
        return [result.partial, result.retired, result.failed]
        """
        assert await drive(repo, scripted(partly), body) == [True, ["a1"], ["a2"]]

    async def test_the_command_line_exits_3_on_a_207(self, repo: Path, partly: ScriptedAPI) -> None:
        ran = await command_line(
            repo, scripted(partly), "policies", "retire", POLICY, "--assignment-uuids", "a1,a2", "--json"
        )
        assert ran.exit_code == 3, ran.stderr
        assert json.loads(ran.stdout)["failed"] == ["a2"]

    async def test_the_sandbox_answers_its_first_success_in_full(self, repo: Path, sandbox: Server) -> None:
        body = f"""
        result = await client.policies.retire("{POLICY}", assignment_uuids=["a1"])
        return [type(result).__name__, result.partial]
        """
        assert await drive(repo, sandbox, body) == ["RetireResult", False]
        ran = await command_line(repo, sandbox, "policies", "retire", POLICY, "--assignment-uuids", "a1")
        assert ran.exit_code == 0, ran.stderr


class TestAnEnvelopeOfAnotherShape:
    repo = edited(tags=OTHER_ENVELOPE_TAG, paths=OTHER_ENVELOPE_PATH, schemas=OTHER_ENVELOPE_SCHEMAS)

    async def test_the_client_pages_it_and_type_checks(self, repo: Path, api: ScriptedAPI) -> None:
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
        ids, page_class, pages = await drive(repo, scripted(api), body)
        assert ids == [transaction["id"] for transaction in transactions]
        assert (page_class, pages) == ("TransactionPage", 4)
        checked = mypy_strict(repo)
        assert checked.returncode == 0, checked.stdout

    async def test_the_sandbox_answers_in_that_shape(self, repo: Path, sandbox: Server) -> None:
        body = """
        pager = client.transactions.list(per_page=4)
        first = await pager.first_page()
        envelope = [first.page, first.per_page, first.total, first.total_pages, len(first.data)]
        return [envelope, [item.id async for item in pager]]
        """
        envelope, ids = await drive(repo, sandbox, body)
        assert envelope == [1, 4, SYNTHETIC_LIST_LENGTH, -(-SYNTHETIC_LIST_LENGTH // 4), 4]
        assert len(ids) == SYNTHETIC_LIST_LENGTH
        ran = await command_line(repo, sandbox, "transactions", "list", "--per-page", "4", "--json")
        assert ran.exit_code == 0, ran.stderr
        assert [item["id"] for item in ran.json_lines()] == ids


class TestABareList:
    repo = edited(paths=BARE_LIST_PATH, schemas=BARE_LIST_SCHEMAS)

    async def test_the_client_pages_until_a_short_page_and_type_checks(
        self, repo: Path, api: ScriptedAPI
    ) -> None:
        events = [{"kind": f"event-{number}"} for number in range(7)]

        async def handler(request: web.Request) -> web.Response:
            number, size = int(request.query.get("page", 1)), int(request.query.get("page_size", 3))
            return web.json_response(events[(number - 1) * size : number * size])

        api.routes[("GET", f"/enterprise/v1/subsidy-access-policies/{POLICY}/history/")] = handler
        body = f"""
        return [event.kind async for event in client.policies.history("{POLICY}", page_size=3)]
        """
        assert await drive(repo, scripted(api), body) == [event["kind"] for event in events]
        checked = mypy_strict(repo)
        assert checked.returncode == 0, checked.stdout

    async def test_the_sandbox_serves_it_page_by_page(self, repo: Path, sandbox: Server) -> None:
        body = f"""
        return [event.kind async for event in client.policies.history("{POLICY}", page_size=3)]
        """
        kinds = await drive(repo, sandbox, body)
        assert len(kinds) == SYNTHETIC_LIST_LENGTH
        ran = await command_line(repo, sandbox, "policies", "history", POLICY, "--page-size", "3", "--json")
        assert ran.exit_code == 0, ran.stderr
        assert [event["kind"] for event in ran.json_lines()] == kinds


def test_a_broken_spec_is_refused_and_changes_nothing(
    pristine: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    repo = copy_of(pristine, tmp_path_factory)
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


# ---------------------------------------------------------------------- shared by the classes

DEPOSITS = f"""
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
"""A client refusing three deposits that break the body's rules, then making a good one."""


def assignable_configuration() -> str:
    """An assignment configuration of the seed's data (the copy's sandbox lays out the same)."""
    data = Sandbox(seed=SEED).data
    return next(p.assignment_configuration_uuid for p in data.policies if p.assignment_configuration_uuid)


async def access_token(session: aiohttp.ClientSession, server: Server) -> str:
    form = {"grant_type": "client_credentials", "client_id": server.client_id}
    form |= {"client_secret": server.client_secret, "token_type": "jwt"}
    async with session.post(f"{server.base_url}/oauth2/v1/access_token", data=form) as response:
        token: str = (await response.json())["access_token"]
        return token
