"""The surface a user reads: the client's own docstring explains its arguments, no public
docstring points into private code, ``dir()`` shows only what may be imported, and the names the
contract added since its first version are exported and documented."""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Iterator
from typing import Any

import enterprise_async
from enterprise_async import EnterpriseClient, models
from enterprise_async._generated import resources
from tests.docs._markdown import ROOT

PRIVATE = re.compile(
    r"``?(enterprise_async\._\w+|_[a-z]\w*(?:\.\w+)*)(?:\(\))?``?|enterprise_async\._[a-z]\w*"
)
"""A private module or method named in a docstring (``_send``, ``enterprise_async._bulk``)."""

ADDED = [
    "ListingCursor",
    "ListingCursorError",
    "ListingMovedError",
    "ProxyAuthenticationError",
    "RequestLimitError",
    "JobResultsUnavailableError",
    "JobResultsDownloadError",
    "IncompleteListingError",
    "IncompleteBulkError",
    "bulk_progress",
    "BulkProgress",
    "RateStore",
    "InMemoryRateStore",
]
"""../shared/CONTRACT.md, *Names added since the first contract*."""

NAMED_BY_SIGNATURES = ["ClientSettings", "JSONValue"]
"""Types public signatures name (``from_env(**settings: Unpack[ClientSettings])``, ``client.request``'s
``JSONValue``): a user annotating their own code imports them from the package."""


def test_the_clients_docstring_explains_every_constructor_argument_in_signature_order() -> None:
    doc = inspect.getdoc(EnterpriseClient) or ""
    assert "BaseClient" not in doc
    explained = re.findall(r"^    ([a-z_]+): ", doc.split("Args:", 1)[1], re.MULTILINE)
    signature = inspect.signature(EnterpriseClient.__init__).parameters
    parameters = [name for name in signature if name != "self"]  # none private: views are made apart
    assert explained == parameters


def _documented() -> Iterator[tuple[str, Any]]:
    """Every public object of the package with its public methods and properties."""
    seen: set[type[Any]] = set()
    classes = [(name, getattr(enterprise_async, name)) for name in enterprise_async.__all__]
    classes += [(name, value) for name, value in vars(resources).items() if inspect.isclass(value)]
    classes += [(name, getattr(models, name)) for name in models.__all__]
    for name, value in classes:
        if not inspect.isclass(value):
            if callable(value):
                yield name, value
            continue
        for cls in inspect.getmro(value):
            if not cls.__module__.startswith("enterprise_async") or cls in seen:
                continue
            seen.add(cls)
            yield f"{name} ({cls.__name__})", cls
            for attribute, member in vars(cls).items():
                if attribute.startswith("_") and attribute != "__init__":
                    continue
                target = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
                if callable(target):
                    yield f"{cls.__name__}.{attribute}", target


def test_no_public_docstring_names_a_private_module_or_method() -> None:
    named = [
        f"{name}: {found.group(0)}"
        for name, value in _documented()
        for found in PRIVATE.finditer(inspect.getdoc(value) or "")
    ]
    assert named == []


def test_dir_of_the_package_and_of_the_models_shows_only_what_may_be_imported() -> None:
    for module in (enterprise_async, models):
        assert dir(module) == sorted(module.__all__)
        for name in dir(module):
            getattr(module, name)
    for helper in ("TYPE_CHECKING", "lazy_names", "Any", "Mapping", "CONVERSION", "ErrorBody1"):
        assert helper not in dir(enterprise_async)
        assert helper not in dir(models)
    assert "ErrorDetail" in models.__all__
    assert "converter" in models.__all__


def test_the_names_added_since_the_first_contract_are_exported_and_documented() -> None:
    guide = (ROOT / "enterprise_async" / "README.md").read_text(encoding="utf-8")
    for name in ADDED:
        assert name in enterprise_async.__all__, name
        assert inspect.getdoc(getattr(enterprise_async, name)), name
        assert f"`{name}" in guide, name
    assert "`enterprise_async.models.converter`" in guide
    assert "`unknown_type`" in guide


def test_the_types_public_signatures_name_are_exported_and_documented() -> None:
    guide = (ROOT / "enterprise_async" / "README.md").read_text(encoding="utf-8")
    for name in NAMED_BY_SIGNATURES:
        assert name in enterprise_async.__all__, name
        assert name in dir(enterprise_async), name
        assert f"| `{name}` |" in guide, name
    assert enterprise_async.ClientSettings.__doc__
    hints = typing.get_type_hints(EnterpriseClient.from_env, include_extras=True)
    assert typing.get_args(hints["overrides"]) == (enterprise_async.ClientSettings,)
