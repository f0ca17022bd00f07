"""Request enums are closed, everywhere the spec gives one: every query parameter and body field a
user sends whose schema is an ``enum`` (or a ``$ref`` to one) takes only those values, in its type
(no ``| str``), at run time (``ClientValidationError`` before anything is sent) and on the command
line (a usage error, exit 2). Only the open form, ``anyOf: [{$ref: Enum}, {type: string}]``, says
the service reads any text; the answers' enums stay open."""

from __future__ import annotations

import typing
from collections.abc import Iterator, Mapping
from typing import Any

import click
import pytest
import yaml
from click.testing import CliRunner

from enterprise_async import ClientValidationError, EnterpriseClient
from enterprise_async._generated import resources
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async.cli import cli as command_line
from tests.openapi_spec import HTTP_METHODS, SPEC

Node = Mapping[str, Any]
TYPO = "no-such-value"


def _resolve(document: Node, node: Node) -> Node:
    while "$ref" in node:
        target: Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def _closed_values(document: Node, schema: Node) -> tuple[str, ...] | None:
    """The values of a closed enum (inline, or a ``$ref`` to an enum schema); None for anything
    else, the open form included."""
    resolved = _resolve(document, schema)
    return tuple(map(str, resolved["enum"])) if "enum" in resolved else None


def closed_request_enums() -> Iterator[tuple[str, str, bool, tuple[str, ...]]]:
    """``(operation, argument, is_array, values)`` of every request parameter and body field whose
    schema (or its items') is a closed enum."""
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    for item in document["paths"].values():
        for method in HTTP_METHODS:
            node = item.get(method)
            if node is None or node.get("x-sdk-internal"):
                continue
            name = f"{node['tags'][0]}.{node['x-sdk-method']}"
            arguments = [
                (parameter.get("x-sdk-argument", parameter["name"]), parameter.get("schema", {}))
                for parameter in (_resolve(document, p) for p in node.get("parameters", ()))
            ]
            if "requestBody" in node:
                body = _resolve(document, node["requestBody"])["content"]["application/json"]["schema"]
                arguments += list(_resolve(document, body).get("properties", {}).items())
            for argument, schema in arguments:
                is_array = schema.get("type") == "array"
                values = _closed_values(document, schema.get("items", {}) if is_array else schema)
                if values is not None:
                    yield name, argument, is_array, values


CLOSED = [pytest.param(*found, id=f"{found[0]}({found[1]})") for found in closed_request_enums()]


def test_the_spec_has_closed_request_enums_to_check() -> None:
    print(f"request enums closed: {len(CLOSED)}: {', '.join(str(found.id) for found in CLOSED)}")
    assert len(CLOSED) >= 6


def _method(operation: str) -> Any:
    resource, method = operation.split(".")
    owner = getattr(resources, "".join(part.capitalize() for part in resource.split("_")) + "Resource")
    return getattr(owner, method)


def _accepts_any_text(hint: object) -> bool:
    if hint is str:
        return True
    return any(_accepts_any_text(argument) for argument in typing.get_args(hint))


def _literal_values(hint: object) -> set[str]:
    if typing.get_origin(hint) is typing.Literal:
        return set(map(str, typing.get_args(hint)))
    return {value for argument in typing.get_args(hint) for value in _literal_values(argument)}


@pytest.mark.parametrize(("operation", "argument", "is_array", "values"), CLOSED)
def test_the_signature_takes_only_the_enums_values(
    operation: str, argument: str, is_array: bool, values: tuple[str, ...]
) -> None:
    namespace = {**vars(resources), **vars(__import__("enterprise_async.models", fromlist=["*"]))}
    hint = typing.get_type_hints(_method(operation), globalns=namespace)[argument]
    assert not _accepts_any_text(hint)
    assert _literal_values(hint) == set(values)


@pytest.mark.parametrize(("operation", "argument", "is_array", "values"), CLOSED)
async def test_another_value_is_refused_before_sending(
    operation: str, argument: str, is_array: bool, values: tuple[str, ...]
) -> None:
    rule = next(param.rule for param in OPERATIONS[operation].params if param.name == argument)
    assert (rule.items if is_array else rule).choices == values  # type: ignore[union-attr]
    client = EnterpriseClient(client_id="id", client_secret="secret", base_url="http://127.0.0.1:9")
    resource, method = operation.split(".")
    call = getattr(getattr(client, resource), method)
    positional = [
        "3fa85f64-5717-4562-b3fc-2c963f66afa6" for param in OPERATIONS[operation].params if param.required
    ]
    for value in ([values[0], TYPO] if is_array else TYPO, [TYPO] if is_array else values[0] + " "):
        with pytest.raises(ClientValidationError, match=f"{argument}.*must be one of"):
            call(*positional, **{argument: value})  # a listing checks its arguments at once
    await client.aclose()


@pytest.mark.parametrize(("operation", "argument", "is_array", "values"), CLOSED)
def test_the_command_line_calls_another_value_a_usage_error(
    operation: str, argument: str, is_array: bool, values: tuple[str, ...]
) -> None:
    resource, method = (part.replace("_", "-") for part in operation.split("."))
    context = click.Context(command_line)
    group = command_line.get_command(context, resource)
    assert isinstance(group, click.Group)
    command = group.get_command(context, method)
    assert command is not None
    option = next(p for p in command.params if p.name == f"arg_{argument}")
    positional = [
        "3fa85f64-5717-4562-b3fc-2c963f66afa6" for p in command.params if isinstance(p, click.Argument)
    ]
    ran = CliRunner().invoke(
        command_line,
        [resource, method, *positional, option.opts[0], TYPO, "--sandbox"],
        catch_exceptions=False,
    )
    assert ran.exit_code == 2, ran.output
    assert f"{TYPO!r} is not one of" in ran.output
