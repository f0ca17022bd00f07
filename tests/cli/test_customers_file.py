"""The customers file of exports by customer: what it accepts, how it refuses, and the job it feeds."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from enterprise_async.fleet._customers import Customer, CustomersFileError, read_customers

from .conftest import CommandLine

ACME = {"client_id": "acme-sync", "client_secret_env": "ACME_SECRET", "base_url": "https://api.example.com"}


def written(tmp_path: Path, document: Any) -> Path:
    path = tmp_path / "customers.json"
    path.write_bytes(orjson.dumps(document))
    return path


def refusal(tmp_path: Path, document: Any) -> str:
    with pytest.raises(CustomersFileError) as refused:
        read_customers(written(tmp_path, document))
    return str(refused.value)


def test_customers_are_read_in_the_files_order_with_either_kind_of_secret(tmp_path: Path) -> None:
    globex = {
        "client_id": "globex",
        "client_secret": "s3cret",
        "base_url": "https://api.example.com/",
        "auth_url": "https://auth.example.com",
        "rate_limit": "18/second; 360/minute",
    }
    customers = read_customers(written(tmp_path, {"globex": globex, "acme": ACME}))
    assert list(customers) == ["globex", "acme"]
    assert customers["acme"] == Customer("acme", "acme-sync", "https://api.example.com", None, "ACME_SECRET")
    assert customers["globex"].secret == "s3cret"
    assert customers["globex"].rate_limit == "18/second; 360/minute"
    assert "s3cret" not in repr(customers["globex"])


def test_every_problem_of_the_file_is_named_at_once(tmp_path: Path) -> None:
    message = refusal(
        tmp_path,
        {
            "acme": {**ACME, "client_secret": "both"},
            "../escape": ACME,
            "initech": {**ACME, "base_url": "ftp://example.com"},
            "hooli": {**ACME, "rate_limit": "fast"},
            "umbrella": {"client_id": "u", "client_secret_env": "U", "base_uri": "https://x"},
            "wayne": {"base_url": "https://x", "client_secret": "s"},
            "stark": {**ACME, "client_id": ""},
            "tyrell": "https://x",
        },
    )
    assert "acme: give exactly one of client_secret_env" in message
    assert "'../escape': a name is letters, digits" in message
    assert "initech: base_url: must be an absolute http(s) URL" in message
    assert "hooli: rate_limit: cannot read 'fast'" in message
    assert "umbrella: unknown base_uri" in message
    assert "wayne: client_id is required" in message
    assert "stark: client_id must be a non-empty string" in message
    assert "tyrell: must be an object" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"{not json", "not JSON"),
        (b"[]", "must be a JSON object of customers by name"),
        (b"{}", "at least one customer"),
    ],
)
def test_a_file_that_is_not_an_object_of_customers_is_refused(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    path = tmp_path / "customers.json"
    path.write_bytes(content)
    with pytest.raises(CustomersFileError, match=expected):
        read_customers(path)


def test_a_missing_file_is_refused_with_its_name(tmp_path: Path) -> None:
    with pytest.raises(CustomersFileError, match=r"cannot read the customers file .*absent\.json"):
        read_customers(tmp_path / "absent.json")


def test_the_secret_comes_from_the_named_variable_and_its_absence_is_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    customer = Customer("acme", "acme-sync", "https://api.example.com", None, "ACME_SECRET")
    monkeypatch.delenv("ACME_SECRET", raising=False)
    assert customer.missing_secret() == "acme: ACME_SECRET is not set"
    with pytest.raises(CustomersFileError, match="ACME_SECRET is not set"):
        customer.client_options()
    monkeypatch.setenv("ACME_SECRET", "from-the-environment")
    assert customer.missing_secret() is None
    assert customer.client_options() == {
        "client_id": "acme-sync",
        "client_secret": "from-the-environment",
        "base_url": "https://api.example.com",
    }


def test_export_by_customer_needs_a_queue_and_no_sandbox(cli: CommandLine, tmp_path: Path) -> None:
    path = written(tmp_path, {"acme": ACME})
    without_queue = cli("catalogs", "export", "--out", str(tmp_path / "out"), "--customers", str(path))
    with_sandbox = cli(
        "catalogs",
        "export",
        "--sandbox",
        "--queue",
        "redis://127.0.0.1:1/0",
        "--out",
        str(tmp_path),
        "--customers",
        str(path),
    )
    assert (without_queue.exit_code, with_sandbox.exit_code) == (2, 2)
    assert "--customers needs --queue" in without_queue.stderr
    assert "--customers and --sandbox exclude each other" in with_sandbox.stderr


def test_a_worker_refuses_a_customer_whose_secret_it_lacks(
    cli: CommandLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ACME_SECRET", raising=False)
    path = written(tmp_path, {"acme": ACME})
    ran = cli("worker", "--queue", "redis://127.0.0.1:1/0", "--burst", "--customers", str(path))
    assert ran.exit_code == 2
    assert "acme: ACME_SECRET is not set" in ran.stderr


def test_the_readme_customers_file_is_read_as_written(tmp_path: Path) -> None:
    guide = Path(__file__).resolve().parents[2] / "enterprise_async" / "fleet" / "README.md"
    section = guide.read_text(encoding="utf-8").split("# Running a fleet", 1)[1]
    example = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert example is not None
    path = tmp_path / "customers.json"
    path.write_text(example.group(1), encoding="utf-8")
    customers = read_customers(path)
    assert list(customers) == ["acme", "globex"]
    assert customers["acme"].secret_variable == "ACME_CLIENT_SECRET"


def test_every_problem_of_each_customer_is_named_not_only_its_first(tmp_path: Path) -> None:
    message = refusal(
        tmp_path,
        {"acme": {"client_id": "", "base_url": "ftp://example.com", "rate_limit": "fast", "colour": "red"}},
    )
    assert "acme: unknown colour" in message
    assert "acme: client_id must be a non-empty string" in message
    assert "acme: base_url: must be an absolute http(s) URL" in message
    assert "acme: rate_limit: cannot read 'fast'" in message
    assert "acme: give exactly one of client_secret_env" in message


def test_a_customer_name_given_twice_is_refused_rather_than_the_last_one_kept(tmp_path: Path) -> None:
    path = tmp_path / "customers.json"
    acme = orjson.dumps(ACME).decode()
    path.write_text(f'{{"acme": {acme}, "globex": {acme}, "acme": {acme}}}', encoding="utf-8")
    with pytest.raises(CustomersFileError, match="'acme' is defined 2 times") as refused:
        read_customers(path)
    assert "globex" not in str(refused.value)
