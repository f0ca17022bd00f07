"""``sandbox-edit``: change the catalogs of a running sandbox between two exports.

Each command sends one edit to the sandbox at ``ENTERPRISE_BASE_URL`` (started by
``enterprise-async sandbox``, whose printed ``export`` lines set the variables), through its own
endpoint ``/_sandbox/catalog-edits``: what ``sandbox.edits`` does in code. A real API has no such
endpoint, and the command says so.
"""

from __future__ import annotations

from typing import Any

import click
import orjson

from .._generated.client import EnterpriseClient
from ..errors import BadRequestError, NotFoundError
from ..testing._edit_requests import EDITS_PATH
from ._context import ApiSettings, run_with_client
from ._failures import CommandError, InputError
from ._output import say

__all__ = ["sandbox_edit"]

ITEM_HELP = "ITEM is the item's position in the catalog's contents as served now (from 0), or its key."


@click.group("sandbox-edit")
def sandbox_edit() -> None:
    """Change the catalogs of a running sandbox (`enterprise-async sandbox`), between two exports.

    Talks to the sandbox at ENTERPRISE_BASE_URL with the credentials the other commands use. What
    moves is what moves in enterprise-catalog: creating, updating or touching an item moves its
    content_last_modified and its catalog's; removing one moves neither; changing a customer moves
    every item's of its catalogs. A catalog's count and pages follow the items created and removed.
    """


@sandbox_edit.command()
@click.argument("catalog_uuid")
@click.argument("item_json")
@click.option("--at", type=click.IntRange(min=0), help="Position to put it at (default: the end).")
def create(catalog_uuid: str, item_json: str, at: int | None) -> None:
    """Add an item, given as the JSON object the service would send, to CATALOG_UUID."""
    try:
        item = orjson.loads(item_json)
    except orjson.JSONDecodeError as error:
        raise InputError(f"ITEM_JSON is not JSON: {error}") from None
    if not isinstance(item, dict):
        raise InputError('ITEM_JSON must be a JSON object: {"content_type": "course", "key": ...}')
    answer = _send({"edit": "create", "catalog": catalog_uuid, "item": item, "at": at})
    made = answer.get("item") or {}
    name = made.get("key") or made.get("uuid") or "the item"
    where = f"at {at}" if at is not None else "at the end"
    say(f"created {name} {where} of catalog {catalog_uuid}")


@sandbox_edit.command(epilog=ITEM_HELP)
@click.argument("catalog_uuid")
@click.argument("item")
@click.argument("fields", nargs=-1, required=True, metavar="FIELD=VALUE...")
def update(catalog_uuid: str, item: str, fields: tuple[str, ...]) -> None:
    """Replace top-level fields of an item: its content changes, and its time moves.

    VALUE is read as JSON when it is JSON (`null`, `3`, `["a"]`, `"text"`), else taken as text.
    """
    values = dict(_field(text) for text in fields)
    _send({"edit": "update", "catalog": catalog_uuid, "place": _place(item), "fields": values})
    say(f"updated {', '.join(values)} of item {item} of catalog {catalog_uuid}")


@sandbox_edit.command(epilog=ITEM_HELP)
@click.argument("catalog_uuid")
@click.argument("item")
def remove(catalog_uuid: str, item: str) -> None:
    """Take an item out of CATALOG_UUID; the items after it move one place back."""
    _send({"edit": "remove", "catalog": catalog_uuid, "place": _place(item)})
    say(f"removed item {item} of catalog {catalog_uuid}")


@sandbox_edit.command(epilog=ITEM_HELP)
@click.argument("catalog_uuid")
@click.argument("item")
def touch(catalog_uuid: str, item: str) -> None:
    """Move an item's modification time and nothing else (its content stays as it is)."""
    _send({"edit": "touch", "catalog": catalog_uuid, "place": _place(item)})
    say(f"touched item {item} of catalog {catalog_uuid}")


@sandbox_edit.command()
@click.argument("customer_uuid")
def customer(customer_uuid: str) -> None:
    """A change to the customer itself: every item of its catalogs gets a later time, nothing else."""
    _send({"edit": "customer", "customer": customer_uuid})
    say(f"changed customer {customer_uuid}")


def _send(edit: dict[str, Any]) -> dict[str, Any]:
    """Send one edit to the sandbox; its answer."""

    async def work(client: EnterpriseClient) -> Any:
        try:
            return await client.request("POST", EDITS_PATH, json=edit)
        except (BadRequestError, NotFoundError) as error:
            detail = error.body.get("detail") if isinstance(error.body, dict) else None
            if isinstance(detail, str) and detail != "Not found.":
                raise CommandError(detail) from None  # the sandbox's words: what it has not
            if isinstance(error, NotFoundError):
                raise CommandError(
                    "ENTERPRISE_BASE_URL is no sandbox (it has no catalog edits): only a sandbox "
                    "served by `enterprise-async sandbox` can be edited"
                ) from None
            raise

    answer = run_with_client(ApiSettings(), work)
    return answer if isinstance(answer, dict) else {}


def _place(item: str) -> int | str:
    """An item by position (digits) or by key."""
    return int(item) if item.isdigit() else item


def _field(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise InputError(f"{text!r}: give each field as FIELD=VALUE")
    try:
        return name, orjson.loads(value)
    except orjson.JSONDecodeError:
        return name, value
