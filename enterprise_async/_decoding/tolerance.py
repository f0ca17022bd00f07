"""Tolerant re-decoding: a value its declared type does not allow is kept as sent, and reported.

The generated readers take the values a field mostly holds; a value that does not fit its type
comes here. Each value kept as sent gets a DEBUG record naming
the model, the path from the top and the declared type; only a top level of the wrong shape is an
error.

The same findings, with the enum values outside the spec, the unknown fields a model keeps in
``extra`` and the discriminator values that name no type of the spec, go to a drift listener
when the caller of ``structure()`` gives one (a list the client hands over per response; see
``_decoding.drift``). Models report to the ``structure()`` call under way only
when something drifted, and the paths are found only then: a clean decode does no extra work.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, get_args

import attrs

from .failure import DecodeError, MissingFieldError, type_name
from .fields import model_fields, wire_name
from .hooks import is_list, is_open_enum, is_union

if TYPE_CHECKING:
    from .tables import ConversionTables

__all__ = [
    "Finding",
    "Note",
    "OutsideEnumError",
    "UnknownTypeError",
    "PathsWanted",
    "Problem",
    "keep",
    "noting_outside_enum",
    "report_problems",
    "report_unknown",
    "report_unknown_type",
    "structure",
    "tolerant",
    "under_way",
]

logger = logging.getLogger("enterprise_async")


Note = tuple[str, Any, Any, "DecodeError | None"]
"""What a field's reader noticed: where the value is (relative to its model: ``seats``,
``logo_image_urls[0]``), its declared type, the value as sent, and why it was kept as sent; or
None there for a value whose written form is not what was sent (for the model's ``WireRecord``).
A plain tuple, the cheapest record: readers make one for every ``Z`` datetime."""

Problem = Note
"""A note with an error: a value kept as sent."""

Finding = tuple[str, str, str, str, Any, Any]
"""What a drift listener is told: the kind (``unknown_field``, ``enum_value``, ``kept_as_sent``,
``unknown_type``), the path from the top (``results[3].foo``), the model's class name (for an
unknown type: the class the value was decoded as), the field in the model (``foo``,
``seat_types[1]``), the declared type (None for an unknown field; for an unknown type, the name of
the union or model whose discriminator it is) and the value as sent."""


PathsWanted = Callable[[list[Finding]], bool]
"""Asked with an answer's findings (their paths left empty): whether the listener needs their paths
from the top, which cost a search through the whole answer (a first sighting does; a repeat not)."""


class OutsideEnumError(DecodeError):
    """Why a value of an open enum field was kept as a plain string: it names no member."""


class UnknownTypeError(DecodeError):
    """Why a model was chosen by fallback: its discriminator's value names no type of the spec."""


Redact = Callable[[Any], Any]
"""Hides secrets in a value or a text (``Redactor.data``): what a DEBUG record shows passes through it."""

_Pending = list[tuple[Any, "list[Problem] | None"]]
"""Models met by a ``structure()`` call with their problems, or None for unknown fields in ``extra``."""


class _UnderWay(threading.local):
    """The problems met by the ``structure()`` call under way in this thread."""

    def __init__(self) -> None:
        self.pending: _Pending | None = None
        self.redact: Redact | None = None
        """The caller's redaction of what the DEBUG records show (a value kept as sent may echo a secret)."""


under_way = _UnderWay()


def keep(
    conversion: ConversionTables, value: Any, type_: Any, where: str, error: DecodeError, notes: list[Note]
) -> Any:
    """``value`` kept as sent, noted for its model; an array is read item by item instead, so one odd
    item leaves the others decoded. A required field missing is never kept: it is raised again,
    with its place."""
    list_type = _list_member(type_)
    if list_type is None or value.__class__ is not list:
        if isinstance(error, MissingFieldError):
            raise error.within(where) from None
        notes.append((where, type_, value, _detached(error)))
        return value
    (item_type,) = get_args(list_type) or (Any,)
    problems: list[Problem] = []
    items = [
        tolerant(conversion, item, item_type, f"{where}[{index}]", problems)
        for index, item in enumerate(value)
    ]
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


def report_unknown(model: Any) -> None:
    """Note, for a drift listener, that ``model`` keeps unknown fields in ``extra`` (nothing is logged)."""
    pending = under_way.pending
    if pending is not None:
        pending.append((model, None))


def report_unknown_type(model: Any, field: str, value: Any, declared: str) -> None:
    """Note, for a drift listener, that ``model`` was decoded from an object whose discriminator
    ``field`` holds ``value``, which names no type of ``declared`` (a union, or a model whose types
    the spec lists): the model is the class it fell back to. Nothing is logged; null or ``""`` name
    no type at all, and are not noted."""
    pending = under_way.pending
    if pending is None or value is None or value == "":
        return
    error = UnknownTypeError(
        f"{field} {value!r} names no type of {declared}; decoded as {type(model).__name__}"
    )
    pending.append((model, [(field, declared, value, error)]))


def noting_outside_enum(read: Any, type_: Any) -> Any:
    """``read`` (a field reader) that also notes a value of an open enum field (or an item of an
    array of them) that names no member: kept as a plain string, it is drift."""
    enum = _open_enum(type_)
    if enum is not None:
        return _enum_reader(read, type_, enum)
    item_type = (get_args(type_) or (Any,))[0] if is_list(type_) else None
    enum = _open_enum(item_type)
    if enum is not None:
        return _enum_array_reader(read, item_type, enum)
    return read


def _enum_reader(read: Any, type_: Any, enum: Any) -> Any:
    def read_enum(value: Any, wire: str, notes: list[Note]) -> Any:
        decoded = read(value, wire, notes)
        if decoded.__class__ is str:  # a member is an instance of the enum, not of str itself
            notes.append((wire, type_, value, _outside_enum_error(enum)))
        return decoded

    return read_enum


def _enum_array_reader(read: Any, item_type: Any, enum: Any) -> Any:
    def read_enums(value: Any, wire: str, notes: list[Note]) -> Any:
        decoded = read(value, wire, notes)
        if decoded.__class__ is not list or value.__class__ is not list or len(decoded) != len(value):
            return decoded
        for index, item in enumerate(decoded):
            if item.__class__ is str:
                notes.append((f"{wire}[{index}]", item_type, value[index], _outside_enum_error(enum)))
        return decoded

    return read_enums


def _open_enum(type_: Any) -> Any:
    """The open enum that ``type_`` is, or leads (``ContentType | str``), else None."""
    if is_open_enum(type_):
        return type_
    if is_union(type_) and is_open_enum(first := get_args(type_)[0]):
        return first
    return None


def _outside_enum_error(enum: Any) -> OutsideEnumError:
    return OutsideEnumError(f"not a value of {enum.__name__} in the spec; kept as a plain string")


def tolerant(
    conversion: ConversionTables, value: Any, type_: Any, where: str, problems: list[Problem]
) -> Any:
    """``value`` decoded as ``type_``, or kept as sent (and added to ``problems``) where it does not fit.

    An array is read item by item, so one odd item leaves the others decoded.
    """
    decode = conversion.hook(type_)
    try:
        return decode(value, type_)
    except MissingFieldError as error:
        raise error.within(where) from None
    except DecodeError as error:
        problem = _detached(error)
    list_type = _list_member(type_)
    if list_type is not None and value.__class__ is list:
        (item_type,) = get_args(list_type) or (Any,)
        return [
            tolerant(conversion, item, item_type, f"{where}[{index}]", problems)
            for index, item in enumerate(value)
        ]
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


def _structure_reporting(
    conversion: ConversionTables,
    data: Any,
    model: Any,
    findings: list[Finding] | None,
    paths_wanted: PathsWanted | None,
) -> Any:
    """Structure ``data``, then log every value kept as sent with its path from the top, and tell
    ``findings`` (when given) everything that drifted."""
    pending: _Pending = []
    under_way.pending = pending
    try:
        result = _structure_top(conversion, data, model, findings)
    finally:
        under_way.pending = None
    if pending:
        _tell(result, model, pending, findings, paths_wanted)
    return result


def _structure_redacting(
    conversion: ConversionTables,
    data: Any,
    model: Any,
    findings: list[Finding] | None,
    paths_wanted: PathsWanted | None,
    redact: Redact,
) -> Any:
    """``_structure_reporting`` with what its DEBUG records show passed through ``redact``."""
    under_way.redact = redact
    try:
        return _structure_reporting(conversion, data, model, findings, paths_wanted)
    finally:
        under_way.redact = None


def _tell(
    result: Any,
    model: Any,
    pending: _Pending,
    findings: list[Finding] | None,
    paths_wanted: PathsWanted | None,
) -> None:
    """Log what drifted (at DEBUG) and hand it to ``findings``; the paths from the top are searched
    for only when the log or ``paths_wanted`` needs them, and the model's name is written only when
    something reads it (naming a union of six classes costs more than reading the odd value)."""
    debug = logger.isEnabledFor(logging.DEBUG)
    if findings is None and not debug:
        return
    if findings is not None and paths_wanted is not None and not debug:
        pathless = [found for model, problems in pending for found in _model_findings("", model, problems)]
        if not paths_wanted(pathless):
            findings.extend(pathless)
            return
    _report_found(result, type_name(model), pending, findings)


def _structure_top(
    conversion: ConversionTables, data: Any, model: Any, findings: list[Finding] | None = None
) -> Any:
    decode = conversion.hook(model)
    try:
        return decode(data, model)
    except DecodeError:
        list_type = _list_member(model)
        if data.__class__ is not list or list_type is None:
            raise
    problems: list[Problem] = []
    result = tolerant(conversion, data, list_type, "", problems)
    _report(type_name(model), "", type_name(model), problems)
    if findings is not None:
        findings.extend(_findings("", type_name(model), problems))
    return result


def _report_found(result: Any, top: str, pending: _Pending, findings: list[Finding] | None) -> None:
    """Log the problems of each model with the model's path inside ``result`` (found by identity),
    and tell ``findings`` about them and about unknown fields."""
    debug = logger.isEnabledFor(logging.DEBUG)
    by_model: dict[int, list[Any]] = {}
    for model, problems in pending:
        by_model.setdefault(id(model), [model]).append(problems)
    stack: list[tuple[Any, str]] = [(result, "")] if _holds_models(result) else []
    while stack and by_model:  # children are pushed last to first, so that they are met in order
        value, path = stack.pop()
        if value.__class__ is list:
            items = [(item, f"{path}[{index}]") for index, item in enumerate(value) if _holds_models(item)]
            stack.extend(reversed(items))
            continue
        found = by_model.pop(id(value), None)
        if found is not None:
            _found_in(top, path, found, findings, debug)
        for field in reversed(model_fields(value.__class__)):
            child = getattr(value, field.name)
            if _holds_models(child):
                stack.append((child, f"{path}.{wire_name(field)}" if path else wire_name(field)))
    # Models left in by_model were built and dropped by a slow path that decoded their parent again.


_MODEL_CLASSES: dict[type[Any], bool] = {}
"""Whether a class is a model: a cache keyed by the class alone, which decides it."""


def _holds_models(value: Any) -> bool:
    """Whether ``value`` is a model or an array (which may hold models): what the path search visits."""
    cls = value.__class__
    if cls is list:
        return True
    known = _MODEL_CLASSES.get(cls)
    if known is None:
        known = _MODEL_CLASSES[cls] = attrs.has(cls)
    return known


def _found_in(top: str, path: str, found: list[Any], findings: list[Finding] | None, debug: bool) -> None:
    """Report what one model (at ``path``) noted: its problems, and its unknown fields (None)."""
    model, *reported = found
    for problems in reported:
        if debug and problems is not None:
            _report(top, path, model.__class__.__name__, problems)
        if findings is not None:
            findings.extend(_model_findings(path, model, problems))


def _model_findings(path: str, model: Any, problems: list[Problem] | None) -> list[Finding]:
    """What one model (at ``path``) noted: its problems, or (None) its unknown fields."""
    name = model.__class__.__name__
    if problems is None:
        return [
            ("unknown_field", _joined(path, key), name, key, None, value)
            for key, value in model.extra.items()
        ]
    return _findings(path, name, problems)


def _findings(path: str, model: str, problems: list[Problem]) -> list[Finding]:
    return [
        (_kind(error), _joined(path, where), model, where, type_, value)
        for where, type_, value, error in problems
    ]


def _kind(error: DecodeError | None) -> str:
    if isinstance(error, OutsideEnumError):
        return "enum_value"
    return "unknown_type" if isinstance(error, UnknownTypeError) else "kept_as_sent"


def _joined(path: str, where: str) -> str:
    """A field's path from the top: its model's path, then its place in the model."""
    return f"{path}.{where}" if path and where and not where.startswith("[") else f"{path}{where}"


def _report(top: str, path: str, model: str, problems: list[Problem]) -> None:
    if not problems or not logger.isEnabledFor(logging.DEBUG):
        return
    redact = under_way.redact or _as_it_is
    for where, type_, value, problem in problems:
        if isinstance(problem, UnknownTypeError):
            continue  # nothing was kept as sent: the drift report names it
        full = _joined(path, where)
        declared = type_name(type_)
        logger.debug(
            "%s%s kept as sent (%s%s is declared %s): %s",
            top,
            f".{full}" if full and not full.startswith("[") else full,
            model,
            f".{where}" if where and not where.startswith("[") else where,
            declared,
            redact(problem.message) if problem is not None else "",
            extra={
                "sdk_model": model,
                "sdk_path": full,
                "sdk_declared": declared,
                "sdk_value": redact(value),
            },
        )


def _as_it_is(value: Any) -> Any:
    return value


def structure(
    conversion: ConversionTables,
    data: Any,
    model: Any,
    findings: list[Finding] | None = None,
    paths_wanted: PathsWanted | None = None,
    redact: Redact | None = None,
) -> Any:
    """Decode JSON-shaped ``data`` (from JSON or XML) into ``model``, with ``conversion``'s hooks.

    Values that do not fit their declared type are kept as sent (see ``tolerant``); only a top
    level that is not the promised shape (a string where an object or an array is due) raises
    ``DecodeError``. ``findings``, when given, receives what drifted from the spec (``Finding``),
    with the paths from the top unless ``paths_wanted`` says they are not needed. ``redact`` hides
    the caller's secrets in what DEBUG records show of the values kept as sent.
    """
    if under_way.pending is not None:  # called while decoding: report with the caller
        return _structure_top(conversion, data, model)
    if redact is not None:
        return _structure_redacting(conversion, data, model, findings, paths_wanted, redact)
    return _structure_reporting(conversion, data, model, findings, paths_wanted)
