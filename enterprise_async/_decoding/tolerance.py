"""Tolerant re-decoding: a value its declared type does not allow is kept as sent, and reported.

The compiled structuring functions take the fast path; when one meets a value that does not fit,
the model is built again here, field by field. Each value kept as sent gets a DEBUG record naming
the model, the path from the top and the declared type; only a top level of the wrong shape is an
error.
"""

from __future__ import annotations

import logging
import threading
import typing
from typing import Any, get_args

import attrs

from .failure import DecodeError, type_name
from .fields import has_scalar_default, is_listish, known_fields, model_fields, wire_name, without_none
from .registry import hook, is_list, is_union

__all__ = ["Problem", "structure", "tolerant", "tolerant_model", "under_way"]

logger = logging.getLogger("enterprise_async")


Problem = tuple[str, Any, Any, DecodeError]
"""A value kept as sent: where it is (relative to its model), its declared type, the value, why."""

under_way = threading.local()  # the problems met by the structure() call under way in this thread


def tolerant_model(cls: type[Any], data: dict[str, Any]) -> Any:
    """Build ``cls`` field by field, keeping as sent each value that does not fit its type.

    The slow path, taken only when the compiled function met such a value. Values that fit are
    decoded exactly as the compiled function decodes them.
    """
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for field in model_fields(cls):
        type_ = without_none(hints[field.name])
        value = data.get(wire_name(field), field.default if has_scalar_default(field) else None)
        if value is None and not is_listish(type_):
            values[field.name] = None
            continue
        values[field.name] = tolerant(value, type_, wire_name(field), problems)
    known = known_fields(cls)
    model = cls(**values, extra={key: data[key] for key in data.keys() - known})
    pending = getattr(under_way, "pending", None)
    if pending is None:
        _report(cls.__name__, "", cls.__name__, problems)
    else:
        pending.append((model, problems))
    return model


def tolerant(value: Any, type_: Any, where: str, problems: list[Problem]) -> Any:
    """``value`` decoded as ``type_``, or kept as sent (and added to ``problems``) where it does not fit.

    An array is read item by item, so one odd item leaves the others decoded.
    """
    decode = hook(type_)
    try:
        return decode(value, type_)
    except DecodeError as error:
        problem = error
    list_type = _list_member(type_)
    if list_type is not None and value.__class__ is list:
        (item_type,) = get_args(list_type) or (Any,)
        return [tolerant(item, item_type, f"{where}[{index}]", problems) for index, item in enumerate(value)]
    problems.append((where, type_, value, problem))
    return value


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
    if pending:
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
            problem.message,
            extra={"sdk_model": model, "sdk_path": full, "sdk_declared": declared, "sdk_value": value},
        )


def structure(data: Any, model: Any) -> Any:
    """Decode JSON-shaped ``data`` (from JSON or XML) into ``model``.

    Values that do not fit their declared type are kept as sent (see ``tolerant``); only a top
    level that is not the promised shape (a string where an object or an array is due) raises
    ``DecodeError``.
    """
    if getattr(under_way, "pending", None) is not None:  # called while decoding: report with the caller
        return _structure_top(data, model)
    return _structure_reporting(data, model)
