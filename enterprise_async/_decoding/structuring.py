"""Structuring: one function compiled per model class, with the common cases checked inline.

Each field is read with one ``get``; a value of the exact expected class (a ``str`` for a string
field) is taken as it is, and so are the other values that decode with nothing to note: a UTC
datetime or a decimal written as ``to_dict`` writes it back, a documented enum spelling, an array
whose items all have the declared class, a nested object (see ``exact``). Anything else goes to
the field's reader, which decodes it, keeps it as sent when its type does not allow it
(``tolerance.keep``), and notes a value whose written form is not what was sent. A reader never
raises, so a model with an odd value costs hardly more than a clean one: nothing is decoded twice.
The model keeps only what was noted, in its ``WireRecord``. The fields left out are counted as
they are read, so the object's size tells whether it holds anything undocumented.

The model is filled slot by slot when its ``__init__`` would do nothing more (``emitter.fills_slots``):
matching seventy keyword arguments costs ten times setting seventy attributes.

Objects of one class mostly share a layout (their size, the fields they leave out): once one
recurs, the function is compiled again with a branch for it (``layouts.Layouts``).

The source of each compiled function is registered with ``linecache`` (``emitter.compiled``):
tracebacks, coverage and profilers show it. (``cattrs.gen.make_dict_structure_fn`` was measured
for this: one hook call per field, then ``cls(**res)``, made the decode of 200 courses 1.5x
slower; see tests/bench/README.md.)
"""

from __future__ import annotations

import typing
from typing import Any

from .._xml import TextObject
from .emitter import AFTER_DECODE_ERROR, construction, field_expression, fills_slots
from .empty import EMPTY_ARRAY, EMPTY_EXTRA
from .exact import READ_DATETIMES, of_class
from .failure import DecodeError, describe
from .fields import WIRE, FieldPlan, field_plans, known_fields
from .layouts import Layouts, LeftOut
from .readers import COMPILING, Reader, field_reader, null_array
from .record import EVERY_FIELD_SENT, WireRecord, wire_record
from .scalars import Hook
from .tolerance import Note, report_problems, report_unknown
from .writers import text_natural

__all__ = ["model_hook"]

_ABSENT: Any = object()
"""What ``get`` gives for a field left out (None is a field sent as null)."""
_NO_FIELDS: frozenset[str] = frozenset()


def model_hook(cls: type[Any]) -> Hook:
    """Compile the structuring function of one model class (see the module's docstring)."""
    plans = field_plans(cls)
    namespace: dict[str, Any] = {
        "cls": cls,
        "known": known_fields(cls),
        "count": len(known_fields(cls)),
        "not_object": _not_an_object,
        "text_object": TextObject,
        "DecodeError": DecodeError,
        "rebuild": _rebuild,
        "finish": _finish,
        "every_field_sent": EVERY_FIELD_SENT,
        "no_fields": _NO_FIELDS,
        "left_out": LeftOut(known_fields(cls)),
        "empty_array": EMPTY_ARRAY,
        "empty_extra": EMPTY_EXTRA,
        "unknown": report_unknown,
        "of_class": of_class,
        "fields_of": _fields_of,
        "read_datetime": READ_DATETIMES.get,
        "absent": _ABSENT,
    }
    COMPILING.add(cls)
    try:
        readers = [field_reader(plan) for plan in plans]
        expressions = [
            field_expression(index, plan, readers[index], namespace, _fetch(index, plan))
            for index, plan in enumerate(plans)
        ]
    finally:
        COMPILING.discard(cls)
    namespace["plans"] = plans
    namespace["readers"] = readers
    namespace["new"] = object.__new__
    namespace["learning"] = bool(plans)
    generic = [
        "    get = data.get",
        "    notes = []",
        "    missing = 0",
        "    try:",
        *construction([plan.name for plan in plans], expressions, fills_slots(cls), _EXTRA_SENT),
        *AFTER_DECODE_ERROR,
        "    if extra is not empty_extra:",
        "        unknown(model)",
        "    if notes or missing:",
        "        left = left_out(data, count - missing) if missing else no_fields",
        f"        model.{WIRE} = finish(model, notes, left, data.__class__ is text_object)",
        "    else:",
        f"        model.{WIRE} = every_field_sent[data.__class__ is text_object]",
        "    if learning:",
        "        learn(data)",
        "    return model",
    ]
    layouts = namespace["learn"] = Layouts(cls, namespace, generic)
    namespace["missed"] = layouts.missed
    return typing.cast(Hook, layouts.function)


_EXTRA_SENT = "empty_extra if len(data) == count - missing else fields_of(data, data.keys() - known)"


def _fields_of(data: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    """The fields of ``data`` named ``keys`` (its unknown ones); a function of its own, so that the
    compiled functions hold ``data`` in a plain local, not in the cell a comprehension would need."""
    return {key: data[key] for key in keys}


def _fetch(index: int, plan: FieldPlan) -> str:
    """The source that looks a field up in ``data`` (bound to ``get``) and binds its value to
    ``v``: ``absent`` for a field left out, counted in ``missing``, or its default."""
    fetch = f"(v := get(w{index}, absent))"
    if plan.left_out is not None:
        fetch = f"(v := d{index} if {fetch} is absent and (missing := missing + 1) else v)"
    return fetch


def _rebuild(
    cls: type[Any],
    data: Any,
    plans: tuple[FieldPlan, ...],
    readers: list[Reader],
    notes: list[Note],
    extra: Any,
) -> Any:
    """Build ``cls`` field by field with its readers: the path of a model whose array of models holds
    something other than objects, which the compiled function builds inline."""
    values: dict[str, Any] = {}
    for plan, reader in zip(plans, readers, strict=True):
        value = data.get(plan.wire, plan.left_out)
        if value is not None:
            values[plan.name] = reader(value, notes)
        elif plan.listish:
            sent_null = plan.wire in data
            values[plan.name] = null_array(plan.wire, plan.type)(notes) if sent_null else EMPTY_ARRAY
        else:
            values[plan.name] = None
    return cls(**values, extra=extra)


def _finish(model: Any, notes: list[Note], left_out: frozenset[str], text: bool) -> Any:
    """The record of a model from what its readers noted; its problems are reported."""
    if not notes:
        return wire_record(left_out, text)
    if len(notes) == 1 and not text and (note := notes[0])[3] is None and "[" not in note[0]:
        return WireRecord(left_out, {note[0]: note[2]}, False)  # one spelling, one Z-less datetime...
    problems = [note for note in notes if note[3] is not None]
    if problems:
        report_problems(model, problems)
    differs: dict[str, Any] = {}
    for where, type_, value, error in notes:
        if "[" in where:
            continue  # an item of an array: the array's own note keeps it
        if text and (value is None or (error is None and value.__class__ is str and not text_natural(type_))):
            continue  # XML text of a number, or an empty element: the model's value is the JSON one
        differs[where] = value
    return wire_record(left_out, text, differs)


def _not_an_object(value: Any, cls: type[Any]) -> Any:
    if value is None:
        return None
    raise DecodeError(f"expected an object ({cls.__name__}), got {describe(value)}")
