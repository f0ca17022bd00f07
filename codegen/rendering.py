"""The generator's own templates (`codegen/templates/`): their Jinja environment and filters, and the
rendering of the operation table, the client and the resources from the operations ``operations``
read from the spec.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import jinja2

from .client_doc import constructor_args
from .operations import OperationSpec, RequestIds, ResourceSpec

__all__ = ["docline", "render_client", "render_operations", "render_resources", "template_environment"]

TEMPLATES = Path(__file__).parent / "templates"


def template_environment() -> jinja2.Environment:
    """The Jinja environment of the generator's own templates (strict: an unknown name fails)."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    environment.filters["docline"] = docline
    environment.filters["docwrap"] = _docwrap
    environment.filters["builtin"] = _builtin
    environment.filters["iterable"] = _iterable
    return environment


def _iterable(hint: str) -> str:
    """An array's hint that takes any iterable (the lines of a file): ``Iterable[...]``."""
    return "Iterable[" + hint.removeprefix("Sequence[") if hint.startswith("Sequence[") else hint


def _builtin(hint: str) -> str:
    """A type hint safe inside a class whose methods may be named ``list``: ``builtins.list[...]``."""
    return re.sub(r"(?<![\w.])list\[", "builtins.list[", hint)


def docline(text: str) -> str:
    """Text made safe for a one-line docstring entry."""
    return " ".join(text.replace('"""', "'''").split())


def _docwrap(text: str, indent: int) -> str:
    """A docstring paragraph wrapped to the line length, continuation lines indented."""
    lines = textwrap.wrap(docline(text), width=100 - indent, break_on_hyphens=False)
    return ("\n" + " " * indent).join(lines)


def render_operations(resources: tuple[ResourceSpec, ...], request_ids: RequestIds) -> str:
    operations = [operation for resource in resources for operation in resource.operations]
    models = sorted(_referenced_models(operations))
    everywhere = set.intersection(*(set(operation.retry_statuses) for operation in operations))
    return (
        template_environment()
        .get_template("operations.py.jinja2")
        .render(
            operations=operations,
            models=models,
            retry_statuses=sorted(everywhere),
            request_id_headers=request_ids.headers,
            request_id_placeholders=request_ids.placeholders,
            request_id_header=request_ids.sent,
        )
    )


def render_client(resources: tuple[ResourceSpec, ...]) -> str:
    arguments = textwrap.indent(constructor_args(), "    ")
    template = template_environment().get_template("client.py.jinja2")
    return template.render(resources=resources, constructor_args=arguments)


def render_resources(resources: tuple[ResourceSpec, ...]) -> str:
    operations = [operation for resource in resources for operation in resource.operations]
    aliases = dict(
        sorted({argument.alias for op in operations for argument in op.arguments if argument.alias})
    )
    models = sorted(_hinted_models(operations) - set(aliases))
    return (
        template_environment()
        .get_template("resources.py.jinja2")
        .render(
            resources=resources,
            aliases=aliases,
            models=models,
            chunked=any(operation.chunking for operation in operations),
            jobs=any(operation.job_results for operation in operations),
        )
    )


_NAME = re.compile(r"\b[A-Z][A-Za-z0-9]+\b")
_NOT_MODELS = {
    "Any",
    "Literal",
    "JSONInput",
    "QueryValue",
    "Mapping",
    "Sequence",
    "Rule",
    "Pagination",
    "Outcome",
    "Operation",
    "None",
    "True",
    "False",
}
_CHECKS = {
    "NeverTogether",
    "AtLeastOneOf",
    "MaxCombinedItems",
    "MaxProductItems",
    "NamedValue",
    "Identity",
    "Chunking",
    "JobResults",
    "LimitRefusal",
}


def _referenced_models(operations: list[OperationSpec]) -> set[str]:
    sources: list[str] = []
    for operation in operations:
        sources.extend(argument.rule for argument in operation.arguments)
        sources.append(operation.body_rule or "")
        sources.extend(model for _, model, _ in operation.outcomes)
        sources.extend([operation.pagination or "", operation.result_hint, operation.identity or ""])
        sources.append(operation.chunking or "")
        sources.append(operation.job_results or "")
    return _names(sources) - _CHECKS


def _hinted_models(operations: list[OperationSpec]) -> set[str]:
    sources: list[str] = []
    for operation in operations:
        sources.extend(argument.hint for argument in operation.arguments)
        sources.extend([operation.result_hint, operation.item_hint or "", operation.page_hint or ""])
        sources.append(operation.results_hint or "")
    return _names(sources)


def _names(sources: list[str]) -> set[str]:
    found: set[str] = set()
    for source in sources:
        source = re.sub(r"'[^']*'|\"[^\"]*\"", "", source)  # names inside string literals are not references
        found.update(_NAME.findall(source))
    return found - _NOT_MODELS
