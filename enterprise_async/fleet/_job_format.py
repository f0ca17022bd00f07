"""Jobs and results on the queue are JSON, never pickle: whoever can write to Redis cannot make a
worker or the enqueuer run code.

arq stores a job as ``{"t": try, "f": function, "a": args, "k": kwargs, "et": enqueue time}`` and a
result as the same plus ``"s"`` (success), ``"r"`` (the result), ``"st"``/``"ft"`` (start and
finish times), ``"q"`` (queue) and ``"id"``. ``dump`` writes them with orjson; an exception arq
hands it as a failed job's result (a timeout, a refused payload) is written as its one-line reason.
``load`` reads them back and refuses, with ``JobPayloadError``, anything that is not JSON of that
shape naming one of our functions: arq then fails that job alone, with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from ..errors import EnterpriseError

__all__ = ["JobPayloadError", "dump", "failure_text", "load"]

FUNCTIONS: Final = frozenset({"export_catalog", "export_customer"})
"""The jobs this SDK enqueues (``_queue.EXPORT_FUNCTION``, ``_customer_queue.CUSTOMER_FUNCTION``)."""
UNKNOWN_FUNCTION: Final = "<unknown>"
"""The function arq names in the failure of a job it could not read."""
JOB_FIELDS: Final[dict[str, tuple[type, ...]]] = {
    "t": (int, type(None)),  # the try a job was enqueued with: none for a new one
    "f": (str,),
    "a": (list,),
    "k": (dict,),
    "et": (int,),
}
RESULT_FIELDS: Final[dict[str, tuple[type, ...]]] = {"s": (bool,), "st": (int,), "ft": (int,)}


class JobPayloadError(EnterpriseError):
    """A job or result in Redis that this SDK did not write: not JSON, or not of the expected shape."""


def failure_text(error: BaseException) -> str:
    """``Type: message`` on one line, with the cause when arq wrapped one (``unable to deserialize``)."""
    text = " ".join(str(error).split())
    cause = error.__cause__
    if cause is not None and str(cause):
        text = f"{text} ({' '.join(str(cause).split())})" if text else " ".join(str(cause).split())
    name = type(error).__name__
    return f"{name}: {text}" if text else name


def _default(value: Any) -> Any:
    if isinstance(value, BaseException):
        return failure_text(value)
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def dump(data: Any) -> bytes:
    """A job or result as JSON (an exception as its reason; anything else not JSON is refused)."""
    return orjson.dumps(data, default=_default)


def load(payload: bytes) -> dict[str, Any]:
    """A job or result written by ``dump``; ``JobPayloadError`` for anything else."""
    try:
        data = orjson.loads(payload)
    except orjson.JSONDecodeError:
        raise JobPayloadError(
            f"refused a payload in Redis that is not JSON ({_preview(payload)}): jobs of this SDK are JSON"
        ) from None
    if not isinstance(data, dict):
        raise JobPayloadError("refused a payload in Redis that is not a JSON object")
    _check_fields(data, JOB_FIELDS)
    is_result = "s" in data
    if is_result:
        _check_fields(data, RESULT_FIELDS)
    known = data["f"] in FUNCTIONS or (is_result and data["f"] == UNKNOWN_FUNCTION and not data["s"])
    if not known:
        raise JobPayloadError(f"refused a job of an unknown function {data['f']!r}")
    return data


def _check_fields(data: Mapping[str, Any], fields: Mapping[str, tuple[type, ...]]) -> None:
    for name, kinds in fields.items():
        value = data.get(name)
        if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
            expected = " or ".join("null" if kind is type(None) else kind.__name__ for kind in kinds)
            raise JobPayloadError(f"refused a payload in Redis whose {name!r} is not {expected}")


def _preview(payload: bytes) -> str:
    """The first bytes of a refused payload, as text safe to print."""
    head = payload[:16]
    return repr(head) + ("..." if len(payload) > len(head) else "")
