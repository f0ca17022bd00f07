"""The customers file: one set of credentials per enterprise customer, for exports spread by customer.

An integrator syncing many customers gives ``catalogs export --queue ... --customers FILE`` and
``worker --customers FILE`` the same JSON file, an object of customers by name::

    {
      "acme": {
        "client_id": "acme-sync",
        "client_secret_env": "ACME_CLIENT_SECRET",
        "base_url": "https://api.example.com",
        "auth_url": "https://auth.example.com",
        "rate_limit": "18/second; 360/minute"
      }
    }

``client_id`` and ``base_url`` are required; ``auth_url`` defaults to ``base_url``; ``rate_limit``
(optional) replaces the worker's ``--rate-limit`` for that customer. The secret is either named by
``client_secret_env`` (an environment variable of the worker) or given as ``client_secret`` in a file
only the workers can read. The enqueuing command reads the names alone, and the queue carries only
names: a secret never goes to Redis. A name becomes the customer's directory of the export, so it
is kept to letters, digits, ``.``, ``_`` and ``-``.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from attrs import field, frozen
from typing_extensions import Required, TypedDict

from .._client.settings import check_base_url as absolute_url
from .._transport.rate_limit import parse_rate_limit
from ..errors import ClientValidationError, EnterpriseError

__all__ = ["Customer", "CustomersFileError", "read_customers"]

NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
REQUIRED: Final = ("client_id", "base_url")
OPTIONAL: Final = ("auth_url", "client_secret", "client_secret_env", "rate_limit")


class CustomerCredentials(TypedDict, total=False):
    """What ``Customer.client_options()`` gives: ``EnterpriseClient``'s keywords for a customer."""

    client_id: Required[str]
    client_secret: Required[str]
    base_url: Required[str]
    auth_url: str


class CustomersFileError(EnterpriseError, ValueError):
    """A customers file that cannot be used: every problem found, in one message (``message``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@frozen
class Customer:
    """One customer's credentials and budget, as the customers file gives them."""

    name: str
    client_id: str
    base_url: str
    auth_url: str | None = None
    secret_variable: str | None = None
    """The environment variable that holds the secret (``client_secret_env``)."""
    secret: str | None = field(default=None, repr=False)
    """The secret itself (``client_secret``); never shown."""
    rate_limit: str | None = None

    def missing_secret(self) -> str | None:
        """Why this process cannot get the customer's secret, if it cannot."""
        if self.secret is None and not os.environ.get(self.secret_variable or ""):
            return f"{self.name}: {self.secret_variable} is not set"
        return None

    def client_options(self) -> CustomerCredentials:
        """Keyword arguments for ``EnterpriseClient``: credentials, URLs and the customer's budget."""
        problem = self.missing_secret()
        if problem is not None:
            raise CustomersFileError(problem)
        options: CustomerCredentials = {
            "client_id": self.client_id,
            "client_secret": self.secret
            if self.secret is not None
            else os.environ[self.secret_variable or ""],
            "base_url": self.base_url,
        }
        if self.auth_url is not None:
            options["auth_url"] = self.auth_url
        return options


def read_customers(path: Path) -> dict[str, Customer]:
    """The customers of ``path`` by name, in the file's order; every problem of every customer at
    once (a name given twice included), as a ``CustomersFileError``."""
    document = _document(path)
    problems = [f"{name!r} is defined {count} times" for name, count in _repeated(document).items()]
    customers = {}
    for name, settings in document:
        found = _problems(name, settings)
        if found:
            problems.extend(found)
        else:
            customers[name] = _customer(name, settings)
    if problems:
        raise CustomersFileError(f"{path}: " + "; ".join(problems))
    return customers


def _document(path: Path) -> list[tuple[str, Any]]:
    """The file's customers as (name, settings) pairs, in order, repeated names kept (to refuse them)."""
    try:
        text = path.read_bytes()
    except OSError as error:
        raise CustomersFileError(
            f"cannot read the customers file {path}: {error.strerror or error}"
        ) from None
    try:
        document = json.loads(text, object_pairs_hook=_Pairs)
    except (ValueError, RecursionError) as error:
        raise CustomersFileError(f"{path}: not JSON ({error})") from None
    if not isinstance(document, _Pairs) or not document:
        raise CustomersFileError(
            f"{path}: must be a JSON object of customers by name, with at least one customer"
        )
    return [(name, _plain(settings)) for name, settings in document]


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its pairs, so that a name given twice is seen rather than silently replaced."""


def _plain(value: Any) -> Any:
    """A customer's settings as a dict (nested objects are not expected; they stay pairs and are refused)."""
    if isinstance(value, _Pairs):
        return dict(value)
    return value


def _repeated(document: list[tuple[str, Any]]) -> dict[str, int]:
    counts = Counter(name for name, _ in document)
    return {name: count for name, count in counts.items() if count > 1}


def _problems(name: str, settings: Any) -> list[str]:
    """Everything wrong with one customer, each prefixed by its name."""
    label = name if NAME.fullmatch(name) else repr(name)
    problems = []
    if not NAME.fullmatch(name):
        problems.append(
            f"{label}: a name is letters, digits, '.', '_' and '-', starting with a letter or digit"
        )
    if not isinstance(settings, Mapping):
        problems.append(f"{label}: must be an object with client_id, base_url and the secret")
        return problems
    unknown = sorted(set(settings) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        problems.append(f"{label}: unknown {', '.join(unknown)} (known: {', '.join(REQUIRED + OPTIONAL)})")
    problems.extend(f"{label}: {key} is required" for key in REQUIRED if key not in settings)
    bad_values = [key for key, value in settings.items() if not isinstance(value, str) or not value.strip()]
    problems.extend(f"{label}: {key} must be a non-empty string" for key in bad_values)
    if ("client_secret" in settings) == ("client_secret_env" in settings):
        problems.append(
            f"{label}: give exactly one of client_secret_env (a variable's name) and client_secret"
        )
    problems.extend(f"{label}: {reason}" for reason in _value_problems(settings, bad_values))
    return problems


def _value_problems(settings: Mapping[str, Any], bad_values: list[str]) -> list[str]:
    """The URLs and the rate budget, checked as the client checks them."""
    problems = []
    for key in ("base_url", "auth_url"):
        if key in settings and key not in bad_values:
            try:
                absolute_url(key, settings[key])
            except ClientValidationError as error:
                problems.append(str(error))
    if "rate_limit" in settings and "rate_limit" not in bad_values:
        try:
            parse_rate_limit(settings["rate_limit"])
        except ClientValidationError as error:
            problems.append(str(error))
    return problems


def _customer(name: str, settings: Mapping[str, Any]) -> Customer:
    return Customer(
        name=name,
        client_id=settings["client_id"],
        base_url=settings["base_url"],
        auth_url=settings.get("auth_url"),
        secret_variable=settings.get("client_secret_env"),
        secret=settings.get("client_secret"),
        rate_limit=settings.get("rate_limit"),
    )
