"""Commands built from the operation table: ``enterprise-async <resource> <method>`` for every
operation, at import time, so that an operation added to the spec has a command once regenerated.

Each command hands its arguments to ``EnterpriseClient.call`` (or ``paginate``) with the operation
itself, so it validates, sends and fails exactly as the client does. How a result looks is
chosen by its model (``_presentation``); a model without a view of its own gets a generic one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import click

from .._generated.client import EnterpriseClient
from .._paging import take
from .._spec import Operation
from ..errors import ClientValidationError
from ._context import ApiSettings, run_with_client
from ._failures import IncompleteError
from ._operation_options import SpecArgument, option_name, spec_arguments
from ._options import api_options, json_option, max_items_option
from ._output import print_document, print_json_line, show
from ._presentation import Presentation

__all__ = ["AliasGroup", "build_groups", "operation_command"]

PARTIAL_FIELD = "partial"
"""The ``x-sdk-result`` field that marks a result as done in part (bulk revoke's 207): exit code 3."""


class AliasGroup(click.Group):
    """A group that also answers to the spec's own spelling: ``learner_summary``, ``bulk_revoke``."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is None and "_" in cmd_name:
            found = super().get_command(ctx, option_name(cmd_name))
        return found


def build_groups(
    operations: Iterable[Operation[Any]],
    presentation: Presentation,
    *,
    descriptions: Mapping[str, str] | None = None,
) -> dict[str, click.Group]:
    """One group per resource of the table, one command per operation, by the resource's name."""
    groups: dict[str, click.Group] = {}
    for operation in operations:
        resource = operation.name.split(".", 1)[0]
        group = groups.get(resource)
        if group is None:
            about = (descriptions or {}).get(resource) or f"Operations of the {resource} resource."
            group = groups[resource] = AliasGroup(option_name(resource), help=about)
        group.add_command(operation_command(operation, presentation))
    return groups


def _help(operation: Operation[Any]) -> str:
    parts = [operation.summary or operation.name, operation.description]
    parts.append(f"`{operation.method} {operation.path}`")
    return "\n\n".join(part for part in parts if part)


def operation_command(operation: Operation[Any], presentation: Presentation) -> click.Command:
    """The command of one operation: typed arguments and options, ``--json``, the API options,
    and ``--max-items`` for a listing."""
    arguments = spec_arguments(operation)
    extra = presentation.option_names.get(operation.name, {})
    taken: set[str] = set()
    parameters = [argument.parameter(taken, extra.get(argument.name, ())) for argument in arguments]

    def command(as_json: bool, api: ApiSettings, max_items: int | None = None, **values: Any) -> None:
        given = {argument.name: values[argument.dest] for argument in arguments}
        call = {name: value for name, value in given.items() if value is not None}
        if operation.pagination is not None:
            _run_listing(operation, presentation, call, api=api, as_json=as_json, max_items=max_items)
            return
        _run_call(operation, presentation, call, api=api, as_json=as_json)

    decorated: Any = api_options()(json_option(command))
    if operation.pagination is not None:
        decorated = max_items_option(decorated)
    method = operation.name.split(".", 1)[1]
    built = click.command(option_name(method), help=_help(operation), short_help=operation.summary or None)(
        decorated
    )
    built.params[:0] = parameters
    return built


def _run_call(
    operation: Operation[Any],
    presentation: Presentation,
    arguments: Mapping[str, Any],
    *,
    api: ApiSettings,
    as_json: bool,
) -> None:
    async def work(client: EnterpriseClient) -> Any:
        with _naming_options(operation):
            return await client.call(operation, arguments)

    result = run_with_client(api, work)
    if as_json:
        print_document(result)
    else:
        show(presentation.result_view(operation, result))
    if PARTIAL_FIELD in _outcome_fields(operation) and getattr(result, PARTIAL_FIELD, False) is True:
        raise IncompleteError("partial result: part of the operation failed (see the output)")


def _run_listing(
    operation: Operation[Any],
    presentation: Presentation,
    arguments: Mapping[str, Any],
    *,
    api: ApiSettings,
    as_json: bool,
    max_items: int | None,
) -> None:
    async def work(client: EnterpriseClient) -> tuple[list[Any], Any]:
        with _naming_options(operation):
            pager = client.paginate(operation, arguments)
        return await _walk(pager.pages(), pager.items_of, as_json=as_json, max_items=max_items)

    rows, first_page = run_with_client(api, work)
    if not as_json:
        show(presentation.listing_view(operation, rows, first_page))


async def _walk(
    pages: Any, items_of: Callable[[Any], Sequence[Any]], *, as_json: bool, max_items: int | None
) -> tuple[list[Any], Any]:
    """Page through a listing (later pages fetched concurrently by the pager), writing JSON Lines
    as items arrive or keeping them for the table; returns the rows kept and page 1, whose
    envelope a view may show (the learner state counts of assignments)."""
    rows: list[Any] = []
    first_page: Any = None
    seen = 0
    async for page in take(pages, None):
        first_page = page if first_page is None else first_page
        items = items_of(page)
        batch = items if max_items is None else items[: max_items - seen]
        seen += len(batch)
        for item in batch:
            if as_json:
                print_json_line(item)
            else:
                rows.append(item)
        if max_items is not None and seen >= max_items:
            break
    return rows, first_page


@contextmanager
def _naming_options(operation: Operation[Any]) -> Iterator[None]:
    """A refused argument is reported as the client reports it, plus the option that gave it."""
    try:
        yield
    except ClientValidationError as error:
        root = error.field.split("[", 1)[0].split(".", 1)[0]
        hint = _spelling(operation, root)
        if hint is None:
            raise
        raise ClientValidationError(
            error.field, f"{error.reason} ({hint})", operation=error.operation
        ) from None


def _spelling(operation: Operation[Any], name: str) -> str | None:
    for argument in spec_arguments(operation):
        if argument.name == name:
            return _spelled(argument)
    return None


def _spelled(argument: SpecArgument) -> str:
    return argument.name.upper() if argument.positional else f"--{option_name(argument.name)}"


def _outcome_fields(operation: Operation[Any]) -> set[str]:
    return {name for outcome in operation.outcomes.values() for name in outcome.fields}
