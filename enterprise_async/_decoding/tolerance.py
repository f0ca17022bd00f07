"""Tolerant re-decoding: a value its declared type does not allow is kept as sent, and reported.

The compiled structuring functions take the fast path; when one meets a value that does not fit,
the model is built again here, field by field. Each value kept as sent gets a DEBUG record naming
the model, the path from the top and the declared type; only a top level of the wrong shape is an
error.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, get_args

import attrs

from .failure import DecodeError, type_name
from .fields import model_fields, wire_name
from .registry import hook, is_list, is_union

__all__ = ["Note", "Problem", "keep", "report_problems", "structure", "tolerant", "under_way"]

logger = logging.getLogger("enterprise_async")


Note = tuple[str, Any, Any, "DecodeError | None"]
"""What a field's reader noticed: where the value is (relative to its model: ``seats``,
``logo_image_urls[0]``), its declared type, the value as sent, and why it was kept as sent; or
None there for a value whose written form is not what was sent (for the model's ``WireRecord``).
A plain tuple: readers make one for every ``Z`` datetime, a named tuple costs twice as much."""

Problem = Note
"""A note with an error: a value kept as sent."""


class _UnderWay(threading.local):
    """The problems met by the ``structure()`` call under way in this thread."""

    def __init__(self) -> None:
        self.pending: list[tuple[Any, list[Problem]]] | None = None


under_way = _UnderWay()


def keep(value: Any, type_: Any, where: str, error: DecodeError, notes: list[Note]) -> Any:
    """``value`` kept as sent, noted for its model; an array is read item by item instead, so one odd
    item leaves the others decoded."""
    error = _detached(error)
    list_type = _list_member(type_)
    if list_type is None or value.__class__ is not list:
        notes.append((where, type_, value, error))
        return value
    (item_type,) = get_args(list_type) or (Any,)
    problems: list[Problem] = []
    items = [tolerant(item, item_type, f"{where}[{index}]", problems) for index, item in enumerate(value)]
    notes.extend(problems)
    notes.append((where, type_, value, None))  # the array as sent, for to_dict
    return items


def report_problems(model: Any, problems: list[Problem]) -> None:
    """Log the values ``model`` keeps as sent, now or, under ``structure()``, with their path from the top."""
    pending = under_way.pending
    if pending is None:
        name = model.__class__.__name__
        _report(name, "", name, problems)
    else:
        pending.append((model, problems))


def tolerant(value: Any, type_: Any, where: str, problems: list[Problem]) -> Any:
    """``value`` decoded as ``type_``, or kept as sent (and added to ``problems``) where it does not fit.

    An array is read item by item, so one odd item leaves the others decoded.
    """
    decode = hook(type_)
    try:
        return decode(value, type_)
    except DecodeError as error:
        problem = _detached(error)
    list_type = _list_member(type_)
    if list_type is not None and value.__class__ is list:
        (item_type,) = get_args(list_type) or (Any,)
        return [tolerant(item, item_type, f"{where}[{index}]", problems) for index, item in enumerate(value)]
    problems.append((where, type_, value, problem))
    return value


def _detached(error: DecodeError) -> DecodeError:
    """``error`` without the frames it was raised through: it is kept with its value, and frames
    that refer back to it would make a reference cycle per odd value for the collector to find."""
    error.__context__ = error.__cause__ = None
    return error.with_traceback(None)


def _list_member(type_: Any) -> Any:
    """The array type that ``type_`` is or admits (``list[X]`` in ``list[X] | str``), else None."""
    if is_list(type_):
        return type_
    if is_union(type_):
        return next((member for member in get_args(type_) if is_list(member)), None)
    return None


def _structure_reporting(data: Any, model: Any) -> Any:
    """Structure ``data``, then log every value kept as sent with its path from the top."""
    pending: list[tuple[Any, list[Problem]]] = []
    under_way.pending = pending
    try:
        result = _structure_top(data, model)
    finally:
        under_way.pending = None
    if pending and logger.isEnabledFor(logging.DEBUG):
        _report_found(result, type_name(model), pending)
    return result


def _structure_top(data: Any, model: Any) -> Any:
    decode = hook(model)
    try:
        return decode(data, model)
    except DecodeError:
        list_type = _list_member(model)
        if data.__class__ is not list or list_type is None:
            raise
    problems: list[Problem] = []
    result = tolerant(data, list_type, "", problems)
    _report(type_name(model), "", type_name(model), problems)
    return result


def _report_found(result: Any, top: str, pending: list[tuple[Any, list[Problem]]]) -> None:
    """Log the problems of each model with the model's path inside ``result`` (found by identity)."""
    if not logger.isEnabledFor(logging.DEBUG):
        return
    by_model = {id(model): (model, problems) for model, problems in pending}
    stack: list[tuple[Any, str]] = [(result, "")]
    while stack and by_model:
        value, path = stack.pop()
        if value.__class__ is list:
            stack.extend((item, f"{path}[{index}]") for index, item in enumerate(value))
        elif attrs.has(value.__class__):
            found = by_model.pop(id(value), None)
            if found is not None:
                _report(top, path, value.__class__.__name__, found[1])
            stack.extend(
                (getattr(value, field.name), f"{path}.{wire_name(field)}" if path else wire_name(field))
                for field in model_fields(value.__class__)
            )
    # Models left in by_model were built and dropped by a slow path that decoded their parent again.


def _report(top: str, path: str, model: str, problems: list[Problem]) -> None:
    if not problems or not logger.isEnabledFor(logging.DEBUG):
        return
    for where, type_, value, problem in problems:
        full = f"{path}.{where}" if path and where and not where.startswith("[") else f"{path}{where}"
        declared = type_name(type_)
        logger.debug(
            "%s%s kept as sent (%s%s is declared %s): %s",
            top,
            f".{full}" if full and not full.startswith("[") else full,
            model,
            f".{where}" if where and not where.startswith("[") else where,
            declared,
            problem.message if problem is not None else "",
            extra={"sdk_model": model, "sdk_path": full, "sdk_declared": declared, "sdk_value": value},
        )


def structure(data: Any, model: Any) -> Any:
    """Decode JSON-shaped ``data`` (from JSON or XML) into ``model``.

    Values that do not fit their declared type are kept as sent (see ``tolerant``); only a top
    level that is not the promised shape (a string where an object or an array is due) raises
    ``DecodeError``.
    """
    if under_way.pending is not None:  # called while decoding: report with the caller
        return _structure_top(data, model)
    return _structure_reporting(data, model)
