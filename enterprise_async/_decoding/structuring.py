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

The source of each compiled function is registered with ``linecache``: tracebacks, coverage and
profilers show it. (``cattrs.gen.make_dict_structure_fn`` was measured for this: one hook call per
field, then ``cls(**res)``, made the decode of 200 courses 1.5x slower; see the README.)
"""

from __future__ import annotations

import operator
import typing
from typing import Any

from .._xml import TextObject
from .emitter import AFTER_DECODE_ERROR, compiled, construction, field_expression, fills_slots
from .empty import EMPTY_ARRAY, EMPTY_EXTRA
from .exact import READ_DATETIMES, of_class
from .failure import DecodeError, describe
from .fields import WIRE, FieldPlan, field_plans, known_fields
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
        "left_out": _LeftOut(known_fields(cls)),
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
    layouts = namespace["learn"] = _Layouts(cls, namespace, generic)
    namespace["missed"] = layouts.missed
    return typing.cast(Hook, layouts.function)


def _qualified(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


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


class _LeftOut:
    """The documented fields an object leaves out, found in the time it takes to check the last set found.

    Items of one listing mostly leave out the same fields. When as many fields are sent as last
    time and none of those left out then is in the object, the same fields are left out now.
    """

    __slots__ = ("known", "last", "seen")

    def __init__(self, known: frozenset[str]) -> None:
        self.known = known
        self.last: frozenset[str] = frozenset()
        self.seen: dict[frozenset[str], frozenset[str]] = {}
        """Every distinct set found (up to ``_MAX_LEFT_OUT_SETS``), shared by the records that hold it."""

    def __call__(self, data: Any, sent: int) -> frozenset[str]:
        last = self.last
        if last and len(self.known) - len(last) == sent and data.keys().isdisjoint(last):
            return last
        found = self.known.difference(data)
        if len(self.seen) < _MAX_LEFT_OUT_SETS:
            found = self.seen.setdefault(found, found)
        self.last = found
        return found


_MAX_LEFT_OUT_SETS = 1024


class _Layouts:
    """The class's function, compiled again with a branch for each layout its objects recur in.

    A serializer sends the same fields every time, so the objects of one listing mostly share
    their layout: their format (JSON or XML), their size and the documented fields they leave
    out. Once one has been seen ``_SIGHTINGS`` times, the function gets a branch for the objects
    of that format and size (see ``_layout_lines``), which looks every field sent up in one call
    in C, spends nothing on the fields left out, nor on counting them: they are known. An object
    of that size that leaves out other fields falls through to the general code. The function
    object stays the same, so every caller that holds it reads with the new branches (its
    ``__code__`` is replaced).
    """

    __slots__ = ("cls", "failures", "function", "generic", "layouts", "namespace", "seen", "sightings")

    def __init__(self, cls: type[Any], namespace: dict[str, Any], generic: list[str]) -> None:
        self.cls = cls
        self.namespace = namespace
        self.generic = generic
        self.layouts: dict[tuple[bool, int], frozenset[str]] = {}
        """The fields left out by the objects of each format (True: XML) and size with a branch."""
        self.sightings: dict[tuple[bool, int, frozenset[str]], int] = {}
        self.failures: dict[tuple[bool, int], int] = {}
        self.seen: set[tuple[bool, int]] = set()
        """The formats and sizes given a layout, even one dropped since: each is compiled for once."""
        self.function = self._compiled()

    def __call__(self, data: dict[str, Any]) -> None:
        """Count the layout of an object read by the general code; give it a branch when it recurs."""
        layout = (data.__class__ is not dict, len(data))
        if layout in self.seen:
            return
        left = self.namespace["known"].difference(data)
        key = (*layout, left)
        sightings = self.sightings[key] = self.sightings.get(key, 0) + 1
        if sightings >= _SIGHTINGS:
            self.seen.add(layout)
            if len(left) < len(self.namespace["plans"]):  # an object with no field is no faster read
                self.layouts[layout] = left
                self.function.__code__ = self._compiled().__code__
        if len(self.seen) >= _MAX_LAYOUTS or len(self.sightings) >= _MAX_SIGHTED:
            self.namespace["learning"] = False  # objects of this class vary too much to be worth it

    def missed(self, text: bool, size: int) -> None:
        """An object leaves out other fields than the layout of its size: often enough, drop it."""
        layout = (text, size)
        failures = self.failures[layout] = self.failures.get(layout, 0) + 1
        if failures == _MAX_FAILURES:
            self.layouts.pop(layout, None)  # (another thread may have dropped it)
            self.function.__code__ = self._compiled().__code__

    def _compiled(self) -> Any:
        cls, namespace = self.cls, self.namespace
        head = [f"def structure_{cls.__name__}(data, _=None):"]
        if not self.layouts:
            head += [
                "    if data.__class__ is not dict and data.__class__ is not text_object:",
                "        return not_object(data, cls)",
            ]
        else:
            head += [
                "    if data.__class__ is dict:",
                *self._branches(False),
                "    elif data.__class__ is text_object:",
                *self._branches(True),
                "    else:",
                "        return not_object(data, cls)",
            ]
        sizes = "".join(f" {'XML ' if text else ''}{size}" for text, size in self.layouts)
        name = f"structure {_qualified(cls)}" + (f" (layouts of size{sizes})" if sizes else "")
        function = compiled("\n".join(head + self.generic), f"structure_{cls.__name__}", name, namespace)
        namespace[f"structure_{cls.__name__}"] = getattr(self, "function", function)
        return function

    def _branches(self, text: bool) -> list[str]:
        """The branches of the layouts of one format, chosen by the object's size."""
        lines = ["        size = len(data)"]
        for (of_text, size), left in self.layouts.items():
            if of_text is text:
                branch = _layout_lines(self.namespace, left, size, text)
                lines += [
                    f"        {'elif' if len(lines) > 1 else 'if'} size == {size}:",
                    *_indented(branch, 12),
                ]
        return lines if len(lines) > 1 else ["        pass"]


_SIGHTINGS = 8
_MAX_LAYOUTS = 4
_MAX_SIGHTED = 64
_MAX_FAILURES = 64


def _indented(lines: list[str], spaces: int) -> list[str]:
    return [" " * spaces + line for line in lines]


def _layout_lines(namespace: dict[str, Any], left: frozenset[str], size: int, text: bool) -> list[str]:
    """The branch that reads the objects of ``size`` that leave out the fields ``left`` (from XML
    when ``text``): it looks every field sent up before it decodes anything, and falls through,
    having decoded nothing, for an object that leaves out others; its models are the general
    code's, note for note."""
    plans: tuple[FieldPlan, ...] = namespace["plans"]
    readers: list[Reader] = namespace["readers"]
    sent = [index for index, plan in enumerate(plans) if plan.wire not in left]
    others = size - len(sent)
    name = f"{'x' if text else 'j'}{size}_{len(left)}"
    namespace[f"left{name}"] = left
    namespace[f"record{name}"] = wire_record(left, text)
    namespace[f"pick{name}"] = operator.itemgetter(*[namespace[f"w{index}"] for index in sent])
    values = ", ".join(f"v{index}" for index in sent) + ("," if len(sent) > 1 else "")
    lookups = [f"    {values} = pick{name}(data)"]  # one look-up in C for each field sent
    extra, unknown = "empty_extra", []
    if others:
        extra, unknown = (
            "fields_of(data, others)",
            ["    if extra is not empty_extra:", "        unknown(model)"],
        )
        lookups += [
            "    others = data.keys() - known",
            f"    if len(others) != {others}:",
            "        raise KeyError",
        ]
    expressions = []
    for index, plan in enumerate(plans):
        if plan.wire not in left:
            fetch = f"v{index}"
        elif plan.left_out is not None:
            fetch = f"(v{index} := d{index})"
        else:
            expressions.append("empty_array" if plan.listish else "None")
            continue
        expressions.append(field_expression(index, plan, readers[index], namespace, fetch, f"v{index}"))
    body = [
        "    notes = []",
        "    try:",
        *construction([plan.name for plan in plans], expressions, fills_slots(namespace["cls"]), extra),
        *AFTER_DECODE_ERROR,
        "        if extra is not empty_extra:",
        "            unknown(model)",
        "        left = left_out(data, count - missing) if missing else no_fields",
        f"        record = every_field_sent[{text:d}]",
        f"        model.{WIRE} = finish(model, notes, left, {text}) if notes or missing else record",
        "        return model",
        *unknown,
        f"    model.{WIRE} = finish(model, notes, left{name}, {text}) if notes else record{name}",
        "    return model",
    ]
    return ["try:", *lookups, "except KeyError:", f"    missed({text}, {size})", "else:", *body]


def _not_an_object(value: Any, cls: type[Any]) -> Any:
    if value is None:
        return None
    raise DecodeError(f"expected an object ({cls.__name__}), got {describe(value)}")
