"""No ``Any`` in a public signature: every callable a user reaches (the names exported by
``enterprise_async`` and its public submodules, with their public methods and properties, the
resource namespaces' methods, the models' constructors) says what it takes and what it gives.
A value whose shape is open says so (``JSONValue``, ``object``), not ``Any``."""

from __future__ import annotations

import collections.abc
import importlib
import inspect
import sys
import typing
from collections.abc import Callable, Iterator
from types import ModuleType

import typing_extensions

from enterprise_async import EnterpriseClient
from enterprise_async._client.settings import ClientSettings
from enterprise_async._generated import resources
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async.errors import status_error_class

PUBLIC_MODULES = (
    "enterprise_async",
    "enterprise_async.errors",
    "enterprise_async.models",
    "enterprise_async.testing",
    "enterprise_async.fleet",
    "enterprise_async.exports",
    "enterprise_async.cli",
)
"""The package and its public submodules (../shared/CONTRACT.md; the guides of fleet/, exports/, cli/)."""


def _callables_of(
    owner: str, value: object, seen: set[object]
) -> Iterator[tuple[str, Callable[..., object]]]:
    """``value`` when callable, and, for a class of the package, its public methods and properties
    (those of its bases in the package too) and its constructor."""
    if not inspect.isclass(value):
        if inspect.isroutine(value) and getattr(value, "__module__", "").startswith("enterprise_async"):
            yield owner, value
        return
    for cls in inspect.getmro(value):
        if not cls.__module__.startswith("enterprise_async") or cls in seen:
            continue
        seen.add(cls)
        for attribute, member in vars(cls).items():
            if attribute.startswith("_") and attribute not in ("__init__", "__call__"):
                continue
            target = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
            if inspect.isfunction(target):
                yield f"{cls.__module__}.{cls.__qualname__}.{attribute}", target


def public_callables() -> list[tuple[str, Callable[..., object]]]:
    seen: set[object] = set()
    found: dict[str, Callable[..., object]] = {}
    modules: list[ModuleType] = [importlib.import_module(name) for name in PUBLIC_MODULES]
    for module in modules:
        for name in module.__all__:
            found.update(_callables_of(f"{module.__name__}.{name}", getattr(module, name), seen))
    for name, value in vars(resources).items():  # client.policies..., client.with_raw_response...
        if inspect.isclass(value) and value.__module__ == resources.__name__:
            found.update(_callables_of(name, value, seen))
    return sorted(found.items())


def _mentions_any(hint: object) -> bool:
    if hint is typing.Any:
        return True
    return any(_mentions_any(argument) for argument in typing.get_args(hint))


LIBRARIES = ("typing", "collections.abc", "typing_extensions", "click", "aiohttp", "aiohttp.web", "yarl")
"""Where the types the package's annotations name from outside it come from."""


def _every_name() -> dict[str, object]:
    """Every name of the package's modules: annotations name types imported for type checking only."""
    names: dict[str, object] = {"cabc": collections.abc, "t": typing}  # click's own names for them
    for library in LIBRARIES:
        names.update(vars(importlib.import_module(library)))
    for module_name, module in sorted(sys.modules.items()):
        if module_name.startswith("enterprise_async") and module is not None:
            names.update((name, value) for name, value in vars(module).items() if not name.startswith("__"))
    return names


def _hints(function: Callable[..., object]) -> dict[str, object]:
    target = inspect.unwrap(function)
    namespace = {**_every_name(), **vars(importlib.import_module(target.__module__))}
    return typing_extensions.get_type_hints(target, globalns=namespace, include_extras=False)


REMAINING_ANY_NOTE = """Signatures that still say ``Any`` (issue 51): each one fixed leaves this list, which
only shrinks; a new ``Any`` anywhere fails. The generated models' free-form fields (objects the
spec leaves open, ``extra``) are counted apart: their types are what the generated readers and
writers are made from."""

REMAINING_ANY = frozenset(
    {
        "enterprise_async._bulk.chunks.BulkProgress.result(return)",
        "enterprise_async._bulk.chunks.BulkResult.collect(return)",
        "enterprise_async._bulk.chunks.BulkResult.items(return)",
        "enterprise_async._bulk.chunks.ChunkOutcome.items(return)",
        "enterprise_async._client.base.BaseClient.paginate(operation)",
        "enterprise_async._client.base.BaseClient.paginate(arguments)",
        "enterprise_async._client.base.BaseClient.paginate(return)",
        "enterprise_async._client.base.BaseClient.paginate_raw(operation)",
        "enterprise_async._client.base.BaseClient.paginate_raw(arguments)",
        "enterprise_async._client.base.BaseClient.paginate_raw(return)",
        "enterprise_async._client.raw_response.RawPager.__init__(pager)",
        "enterprise_async._response.item_reading.UnreadableItem.__init__(raw)",
        "enterprise_async._transport.middleware.OutgoingRequest.replace(changes)",
        "enterprise_async.errors.IncompleteBulkError.__init__(result)",
        "enterprise_async.exports._changes.ChangeCounts.from_dict(data)",
        "enterprise_async.exports._manifest.CompletedCatalog.__init__(changes)",
        "enterprise_async.exports._manifest.Manifest.run(return)",
        "enterprise_async.exports._outcomes.CatalogOutcome.from_dict(data)",
        "enterprise_async.exports._outcomes.ExportSummary.from_dict(data)",
        "enterprise_async.fleet._queue.JobQueue.__init__(pool)",
        "enterprise_async.fleet._queue.JobQueue.run(arguments)",
        "enterprise_async.fleet._queue.JobQueue.run(return)",
        "enterprise_async.testing._canned.CannedAnswers.add(bodies)",
        "enterprise_async.testing._license_state.PlanLicenses.assign_licenses(return)",
        "enterprise_async.testing._license_state.PlanLicenses.filtered_emails(filters)",
        "enterprise_async.testing._records.AssignmentRecord.__init__(actions)",
        "enterprise_async.testing._records.AssignmentRecord.recent_action(return)",
        "enterprise_async.testing._records.AssignmentRecord.wire(return)",
        "enterprise_async.testing._records.CatalogRecord.wire(return)",
        "enterprise_async.testing._records.PlanRecord.__init__(prior_renewals)",
        "enterprise_async.testing._registry.SpecTable.__init__(operations)",
        "enterprise_async.testing._registry.SpecTable.__init__(responses)",
        "enterprise_async.testing._registry.SpecTable.__init__(components)",
        "enterprise_async.testing._registry.SpecTable.__init__(requests)",
        "enterprise_async.testing._registry.SpecTable.__init__(services)",
        "enterprise_async.testing._registry.SpecTable.__init__(service)",
        "enterprise_async.testing._state.SandboxData.first(return)",
        "enterprise_async.testing._state.SandboxData.item(return)",
        "enterprise_async.testing._state.SandboxData.plan_wire(return)",
        "enterprise_async.testing._state.SandboxData.policy_wire(return)",
        "enterprise_async.testing._state.SandboxData.summaries(return)",
        "enterprise_async.testing._tokens.TokenIssuer.grant(return)",
        "enterprise_async.testing.serve(options)",
    }
)


def test_no_public_signature_takes_or_gives_any() -> None:
    checked = public_callables()
    with_any = [
        f"{name}({parameter})"
        for name, function in checked
        for parameter, hint in _hints(function).items()
        if _mentions_any(hint)
    ]
    free_form = [entry for entry in with_any if entry.startswith("enterprise_async._generated.models.")]
    assert sorted(set(with_any) - set(free_form)) == sorted(REMAINING_ANY)
    assert len(checked) > 400  # the whole surface, not a corner of it
    print(
        f"public signatures checked for Any: {len(checked)}; parameters and returns still Any: "
        f"{len(REMAINING_ANY)} listed, {len(free_form)} free-form model fields"
    )


def test_from_env_takes_the_constructors_keywords_typed_as_there() -> None:
    constructor = _hints(EnterpriseClient.__init__)
    constructor.pop("return")
    assert typing_extensions.get_type_hints(ClientSettings) == constructor


def test_remind_and_cancel_give_none_and_say_what_their_422_means() -> None:
    for method in (resources.AssignmentsResource.remind, resources.AssignmentsResource.cancel):
        assert _hints(method)["return"] is type(None)
        doc = inspect.getdoc(method) or ""
        returns = doc.split("Returns:", 1)[1].split("Raises:", 1)[0]
        assert "``None``: Done. The services answer with an empty body" in returns
        raises = " ".join(doc.split("Raises:", 1)[1].split())
        assert "UnprocessableEntityError: 422: Not all done" in raises
        assert "the others were" in raises
        assert "does not say which one" in raises


def test_every_operations_method_says_what_it_returns_and_the_errors_of_its_documented_statuses() -> None:
    """From the spec (codegen): each method's ``Returns:``, and a ``Raises:`` entry per failure
    status its operation documents (a status asked again in JSON raises nothing of its own)."""
    missing = []
    for name, operation in OPERATIONS.items():
        resource, method = name.split(".")
        owner = getattr(resources, "".join(part.capitalize() for part in resource.split("_")) + "Resource")
        doc = " ".join((inspect.getdoc(getattr(owner, method)) or "").split())
        expected = ["Returns:"] + [
            f"{status_error_class(status).__name__}: {status}:"
            for status in operation.outcomes
            if status >= 400 and status not in operation.json_fallback_statuses
        ]
        missing += [f"{name}: {entry}" for entry in expected if entry not in doc]
    assert len(OPERATIONS) > 10
    assert missing == []
