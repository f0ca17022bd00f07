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

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import orjson
from attrs import field, frozen

from .._base_client import check_base_url as absolute_url
from .._rate_limit import parse_rate_limit
from ..errors import ClientValidationError, EnterpriseError

__all__ = ["Customer", "CustomersFileError", "read_customers"]

NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
REQUIRED: Final = ("client_id", "base_url")
OPTIONAL: Final = ("auth_url", "client_secret", "client_secret_env", "rate_limit")


class CustomersFileError(EnterpriseError, ValueError):
    """A customers file that cannot be used: every problem found, in one message."""


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

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments for ``EnterpriseClient``: credentials, URLs and the customer's budget."""
        problem = self.missing_secret()
        if problem is not None:
            raise CustomersFileError(problem)
        options: dict[str, Any] = {
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
    """The customers of ``path`` by name, in the file's order; every problem at once, as a
    ``CustomersFileError``."""
    try:
        document = orjson.loads(path.read_bytes())
    except OSError as error:
        raise CustomersFileError(
            f"cannot read the customers file {path}: {error.strerror or error}"
        ) from None
    except orjson.JSONDecodeError as error:
        raise CustomersFileError(f"{path}: not JSON ({error})") from None
    if not isinstance(document, dict) or not document:
        raise CustomersFileError(
            f"{path}: must be a JSON object of customers by name, with at least one customer"
        )
    customers, problems = {}, []
    for name, settings in document.items():
        try:
            customers[name] = _customer(name, settings)
        except ValueError as error:
            problems.append(str(error))
    if problems:
        raise CustomersFileError(f"{path}: " + "; ".join(problems))
    return customers


def _customer(name: str, settings: Any) -> Customer:
    if not NAME.fullmatch(name):
        raise ValueError(
            f"{name!r}: a name is letters, digits, '.', '_' and '-', starting with a letter or digit"
        )
    if not isinstance(settings, Mapping):
        raise ValueError(f"{name}: must be an object with client_id, base_url and the secret")
    unknown = sorted(set(settings) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise ValueError(f"{name}: unknown {', '.join(unknown)} (known: {', '.join(REQUIRED + OPTIONAL)})")
    for key in REQUIRED:
        if key not in settings:
            raise ValueError(f"{name}: {key} is required")
    for key, value in settings.items():
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{name}: {key} must be a non-empty string")
    if ("client_secret" in settings) == ("client_secret_env" in settings):
        raise ValueError(
            f"{name}: give exactly one of client_secret_env (a variable's name) and client_secret"
        )
    try:
        for key in ("base_url", "auth_url"):
            if key in settings:
                absolute_url(key, settings[key])
        if "rate_limit" in settings:
            parse_rate_limit(settings["rate_limit"])
    except ClientValidationError as error:
        raise ValueError(f"{name}: {error}") from None
    return Customer(
        name=name,
        client_id=settings["client_id"],
        base_url=settings["base_url"],
        auth_url=settings.get("auth_url"),
        secret_variable=settings.get("client_secret_env"),
        secret=settings.get("client_secret"),
        rate_limit=settings.get("rate_limit"),
    )
