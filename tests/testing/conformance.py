"""Check the sandbox against ``spec/openapi.yaml`` with schemathesis (run by ``nox -s conformance``).

Starts ``python -m enterprise_async sandbox`` on a free port, fetches a token the way any client
would, and runs ``schemathesis run`` against the spec with that token, JSON responses and a fixed
seed, then stops the sandbox. Extra arguments are passed to schemathesis. Exits with its status.
"""

from __future__ import annotations

import datetime
import json
import pathlib
import signal
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request

from enterprise_async.testing import DataSize, SandboxData

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "openapi.yaml"
MAX_EXAMPLES = "100"
SEED = "20261121"
CATALOG_ITEMS = 200

VALID_BUT_REFUSED = {
    "subscriptions_assign_licenses": ["2xx", "400", "401", "403", "404"],
    "policies_allocate": ["2xx", "400", "401", "403", "404", "422"],
    "assignments_remind": ["2xx", "400", "401", "403", "404", "422"],
    "assignments_cancel": ["2xx", "400", "401", "403", "404", "422"],
    "subscriptions_bulk_revoke": ["2xx", "400", "401", "403", "404"],
}
"""Operations that may refuse a request the spec allows, for a reason the spec cannot state:
assigning licenses once the plan's unassigned licenses run out (a long run gets there); allocating
past the policy's spend (422); reminding or cancelling assignments that do not exist (422); and
bulk revoke sent the reference's filter form raw, which the service refuses with 400 (the client
sends the service's form; spec/README.md, "Where the services differ from the reference", row 1)."""

REFUSALS_SHOWN = ["missing_auth", "missing_deserializer", "method_not_allowed"]
"""The warnings still shown for the operations of ``VALID_BUT_REFUSED``: their many 404s and 4xx
are the refusals listed there, so schemathesis's "missing test data" and "schema validation
mismatch" would report expected answers as a problem, and make a passing run read as a failure."""


ANSWERED_NOT_REFUSED = {"catalogs_contents", "learner_summary_list", "assignments_list"}
"""Operations whose service answers a request beyond the spec's bounds instead of refusing it:
enterprise-catalog brings a `page_size` above 100 down to 100 and edx-enterprise-data one above 1000
down to 1000 (Django REST framework's `max_page_size`), and the gateway drops `limit` whatever its
value (spec/README.md, "Where the services differ from the reference"); enterprise-access and
edx-enterprise-data sort by the `ordering` fields they know and ignore another (DRF's
OrderingFilter), which the spec's closed `ordering` enum does not say, and the reference documents
the assignments' filters as strings. The sandbox does the same; the client refuses each before
sending."""


SERVICES_REFUSE = {
    "subscriptions_list": ["400"],
    "assignments_list": ["400"],
    "enrollments_bulk_enroll": ["400"],
}
"""Under the services profile, refusals the reference does not make (`x-sdk-service` in the spec):
license-manager's `current=true` without a customer (ParseError) and its required `notify`;
enterprise-access's `state` choices (django-filter)."""
SERVICES_ANSWER = {
    "subscriptions_list",
    "assignments_list",
    "policies_list",
    "catalogs_list",
    "learner_summary_list",
}
"""Under the services profile, listings that answer a page size that is not a positive integer
with the default size (DRF's `get_page_size`, `page-size-fallback`), and, for subscriptions, a blank
customer with the token's own plans (license-manager's listing filter), instead of refusing them."""

SERVICES_DATES = {"subscriptions_list"}
"""Under the services profile, answers with dates in Python's `str(datetime)` form
(`2026-08-25 00:00:00+00:00`: license-manager's SubscriptionPlanRenewalSerializer writes a datetime
through a UUIDField), which the SDK reads as date-times and JSON Schema's `date-time` refuses."""


def _config(profile: str) -> str:
    """schemathesis.toml: ids that exist in the sandbox (seed 0), so operations get past 404, and
    the refusals and answers of ``profile`` beyond the reference's."""
    data = SandboxData(0, DataSize(catalog_items=CATALOG_ITEMS), datetime.datetime.now(datetime.timezone.utc))
    catalog = data.catalogs[0]
    policy = next(policy for policy in data.policies if policy.assignment_configuration_uuid)
    known = {
        "policies_allocate": {"policy_uuid": policy.uuid},
        "assignments_list": {"assignment_configuration_uuid": policy.assignment_configuration_uuid},
        "assignments_remind": {"assignment_configuration_uuid": policy.assignment_configuration_uuid},
        "assignments_cancel": {"assignment_configuration_uuid": policy.assignment_configuration_uuid},
        "subscriptions_assign_licenses": {"subscription_plan_uuid": data.plans[0].uuid},
        "subscriptions_bulk_revoke": {"subscription_plan_uuid": data.plans[1].uuid},
        "enrollments_bulk_enroll": {"enterprise_customer_uuid": data.customers[0].uuid},
        "catalogs_contents": {"catalog_uuid": catalog.uuid},
        "catalogs_course": {"catalog_uuid": catalog.uuid, "course_key": data.first(catalog, "course")["key"]},
        "catalogs_course_run": {
            "catalog_uuid": catalog.uuid,
            "course_run_id": data.first(catalog, "courserun")["key"],
        },
        "catalogs_program": {
            "catalog_uuid": catalog.uuid,
            "program_id": data.first(catalog, "program")["uuid"],
        },
        "learner_summary_list": {"enterprise_uuid": data.customers[0].uuid},
        "policies_list": {"enterprise_customer_uuid": data.customers[0].uuid},
    }
    blocks = []
    services = profile == "services"
    for operation in (*SERVICES_REFUSE, *SERVICES_ANSWER, *SERVICES_DATES) if services else ():
        known.setdefault(operation, {})
    for operation, parameters in known.items():
        values = ", ".join(f"{name} = {json.dumps(value)}" for name, value in parameters.items())
        block = ["[[operations]]", f'include-operation-id = "{operation}"']
        if values:
            block.append(f"parameters = {{ {values} }}")
        refused = VALID_BUT_REFUSED.get(operation, [])
        if services and operation in SERVICES_REFUSE:
            refused = sorted({*(refused or ["2xx", "401", "403", "404"]), *SERVICES_REFUSE[operation]})
        if refused:
            block.append(f"checks.positive_data_acceptance.expected-statuses = {json.dumps(refused)}")
            block.append(f"warnings = {{ display = {json.dumps(REFUSALS_SHOWN)} }}")
        if operation in ANSWERED_NOT_REFUSED or (services and operation in SERVICES_ANSWER):
            block.append("checks.negative_data_rejection.enabled = false")
        if services and operation in SERVICES_DATES:
            block.append("checks.response_schema_conformance.enabled = false")
        blocks.append("\n".join(block))
    # Checks that need resources the run creates itself (this API has no create-then-read pairs).
    skipped = ("use_after_free", "ensure_resource_availability", "object_level_authorization")
    disabled = "\n".join(f"checks.{name}.enabled = false" for name in skipped)
    return disabled + "\n\n" + "\n\n".join(blocks) + "\n"


def _start_sandbox(profile: str) -> tuple[subprocess.Popen[str], dict[str, str]]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "enterprise_async",
            "sandbox",
            "--port",
            "0",
            "--catalog-items",
            str(CATALOG_ITEMS),
            "--profile",
            profile,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    settings: dict[str, str] = {}
    for line in process.stdout:  # export lines for the variables, # comments for the rest
        name, _, value = line.strip().removeprefix("export ").partition("=")
        if name.startswith("ENTERPRISE_"):
            settings[name] = value
        if line.startswith("# Press Ctrl-C"):
            return process, settings
    raise RuntimeError("the sandbox did not start")


def _token(settings: dict[str, str]) -> str:
    form = urllib.parse.urlencode(
        {
            "grant_type": "client_credentials",
            "client_id": settings["ENTERPRISE_CLIENT_ID"],
            "client_secret": settings["ENTERPRISE_CLIENT_SECRET"],
            "token_type": "jwt",
        }
    ).encode()
    request = urllib.request.Request(settings["ENTERPRISE_AUTH_URL"] + "/oauth2/v1/access_token", data=form)
    with urllib.request.urlopen(request, timeout=10) as response:
        return str(json.load(response)["access_token"])


def _schemathesis() -> str:
    """The schemathesis command of this interpreter's environment (nox's session venv)."""
    beside = pathlib.Path(sys.executable).with_name("schemathesis")
    return str(beside) if beside.exists() else "schemathesis"


def main(arguments: list[str]) -> int:
    """Run schemathesis against a fresh sandbox of each profile (the reference as documented, then
    the services as they answer); the first failing exit status, else 0."""
    for profile in ("reference", "services"):
        print(f"conformance of the sandbox's {profile!r} profile", flush=True)
        status = _run(profile, arguments)
        if status:
            return status
    return 0


def _run(profile: str, arguments: list[str]) -> int:
    """Run schemathesis against a fresh sandbox of ``profile``; its exit status."""
    process, settings = _start_sandbox(profile)
    try:
        config = pathlib.Path(tempfile.mkdtemp()) / "schemathesis.toml"
        config.write_text(_config(profile))
        command = [
            _schemathesis(),
            "--config-file",
            str(config),
            "run",
            str(SPEC),
            "--url",
            settings["ENTERPRISE_BASE_URL"],
            "--header",
            f"Authorization: JWT {_token(settings)}",
            "--header",
            "Accept: application/json",
            "--max-examples",
            MAX_EXAMPLES,
            "--seed",
            SEED,
            "--phases",
            "examples,coverage,fuzzing",
            "--workers",
            "1",
            "--generation-database",
            "none",
            "--no-color",
            *arguments,
        ]
        # In a scratch directory: schemathesis leaves its example database where it runs.
        return subprocess.run(command, check=False, cwd=config.parent).returncode
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
