"""The types of JSON a user hands the client or gets back as it is, with no model between.

``JSONValue`` is JSON as decoded (what ``client.request`` gives without ``cast_to``): objects are
``dict``, arrays ``list``. ``JSONInput`` is what may be sent as JSON (a
request's ``json``, ``extra_body``): any mapping or sequence of such values, checked before sending.
``QueryValue`` is a query parameter's value: a scalar, or a list of them sent as one comma-separated
value; None leaves the parameter out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

__all__ = ["JSONInput", "JSONValue", "QueryValue"]

JSONValue: TypeAlias = dict[str, "JSONValue"] | list["JSONValue"] | str | int | float | bool | None
"""JSON as decoded: ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` or ``None``."""

JSONInput: TypeAlias = Mapping[str, "JSONInput"] | Sequence["JSONInput"] | str | int | float | bool | None
"""What may be written as JSON: mappings with string keys, sequences and scalars, nested."""

QueryValue: TypeAlias = str | int | float | bool | Sequence[str | int | float | bool] | None
"""A query parameter's value: a scalar or a list of scalars (one comma-separated value)."""
