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

The model is filled slot by slot when its ``__init__`` would do nothing more (``fills_slots``):
matching seventy keyword arguments costs ten times setting seventy attributes.

Objects of one class mostly share a layout (their size, the fields they leave out): once one
recurs, the function is compiled again with a branch for it (``_Layouts``).

The source of each compiled function is registered with ``linecache``: tracebacks, coverage and
profilers show it. (``cattrs.gen.make_dict_structure_fn`` was measured for this: one hook call per
field, then ``cls(**res)``, made the decode of 200 courses 1.5x slower; see the README.)
"""

from __future__ import annotations

import datetime
import decimal
import linecache
import operator
import typing
from collections.abc import Callable
from typing import Any, get_args

import attrs

from .._xml import TextObject
from .empty import EMPTY_ARRAY, EMPTY_EXTRA
from .exact import READ_DATETIMES, exact_decimal, of_class, read_utc_datetime
from .failure import DecodeError, describe
from .fields import WIRE, FieldPlan, field_plans, known_fields
from .keys import parser_key
from .readers import COMPILING, Reader, field_hook, field_reader, inline_class, null_array
from .record import EVERY_FIELD_SENT, WireRecord, wire_record
from .registry import PASS_THROUGH_CLASSES, hook, is_list, is_mapping, is_open_enum, is_union
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
            _field_expression(index, plan, readers[index], namespace, _fetch(index, plan))
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
        *_construction([plan.name for plan in plans], expressions, fills_slots(cls), _EXTRA_SENT),
        *_AFTER_DECODE_ERROR,
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


def _compiled(source: str, function: str, name: str, namespace: dict[str, Any]) -> Any:
    """The function ``function`` that ``source`` defines, compiled in ``namespace``; the source is
    registered with ``linecache`` under ``name``, so that tracebacks, coverage and profilers show it."""
    filename = f"<enterprise_async {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[function]


_AFTER_DECODE_ERROR = [
    "    except DecodeError:  # an item of an array of models that is no object",
    "        notes = []",
    "        extra = empty_extra if known.issuperset(data) else fields_of(data, data.keys() - known)",
    "        model = rebuild(cls, data, plans, readers, notes, extra)",
    "        missing = count - len(data) + len(extra)",
]
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


def _construction(names: list[str], expressions: list[str], fill: bool, extra: str) -> list[str]:
    """The source that builds the model from its fields' expressions: slot by slot when ``fill``.

    The expressions count the documented fields left out (``missing``), so that the fields sent are
    known without a look at every key, and whether anything else was sent, from the object's size.
    """
    pairs = zip(names, expressions, strict=True)
    if fill:
        assigned = [f"        model.{name} = {expression}" for name, expression in pairs]
        return ["        model = new(cls)", *assigned, f"        model.extra = extra = {extra}"]
    arguments = [f"            {name}=({expression})," for name, expression in pairs]
    return ["        model = cls(", *arguments, f"            extra=(extra := {extra}),", "        )"]


def fills_slots(cls: type[Any]) -> bool:
    """Whether a model can be built by setting its fields one by one, as its ``__init__`` would.

    Calling ``__init__`` with some seventy keyword arguments costs ten times setting the same
    seventy attributes: matching each keyword to its parameter is most of it. Setting them is what
    the ``__init__`` attrs writes does when it has nothing else to do: no validator, converter,
    hook or ``__setattr__`` of its own, and no field outside ``__init__`` but the wire record.
    """
    init_code = getattr(cls.__init__, "__code__", None)
    if init_code is None or not init_code.co_filename.startswith("<attrs generated"):
        return False
    if any(hasattr(cls, name) for name in ("__attrs_pre_init__", "__attrs_post_init__")):
        return False
    if typing.cast(Any, cls).__setattr__ is not object.__setattr__:
        return False
    for field in attrs.fields(cls):
        if field.validator is not None or field.converter is not None:
            return False
        if not field.init and field.name != WIRE:
            return False
    return True


def _field_expression(
    index: int, plan: FieldPlan, reader: Reader, namespace: dict[str, Any], fetch: str, v: str = "v"
) -> str:
    """The source that reads one field's value, which ``fetch`` gives and binds to ``v``: the
    values a field mostly holds are checked inline (see ``exact``), anything else goes to the
    field's reader. ``absent`` is the value of a field left out, counted in ``missing``."""
    namespace[f"r{index}"] = reader
    namespace[f"w{index}"] = parser_key(plan.wire)
    namespace[f"d{index}"] = plan.left_out
    if plan.listish:
        return _array_expression(index, plan, fetch, namespace, v)
    otherwise = f"None if {v} is None else ({_LEFT_OUT} and None if {v} is absent else r{index}({v}, notes))"
    type_ = plan.type
    inline = inline_class(type_)
    if inline is not None:
        namespace[f"c{index}"] = inline
        as_is = f" or {v}.__class__ is text_object" if inline is dict else ""
        return f"{v} if {fetch}.__class__ is c{index}{as_is} else ({otherwise})"
    if is_union(type_) and is_open_enum(enum := get_args(type_)[0]):
        # A documented value spelled as documented: its member, with nothing to note; spelled
        # another common way (``advanced``, ``self-paced``): its member, noted for ``to_dict``.
        namespace[f"x{index}"] = {member.value: member for member in enum}.get
        namespace[f"y{index}"] = _other_spellings(enum, type_).get
        namespace[f"t{index}"] = type_
        noted = f"notes.append((w{index}, t{index}, {v}, None)) is None"
        found = f"(m := x{index}({v})) is not None or ((m := y{index}({v})) is not None and {noted})"
        return f"m if {fetch}.__class__ is str and ({found}) else ({otherwise})"
    exact = _EXACT.get(type_)
    if exact is not None:
        namespace[f"x{index}"] = exact
        taken = f"(m := x{index}({v})) is not None"
        if type_ is datetime.datetime:  # one read lately: looked up, not parsed again
            taken = f"((m := read_datetime({v})) is not None or {taken})"
        return f"m if {fetch}.__class__ is str and {taken} else ({otherwise})"
    if attrs.has(type_) and type_ not in COMPILING:
        # An object: the nested model's own compiled function, which reads any object.
        namespace[f"i{index}"] = hook(type_)
        namespace[f"m{index}"] = type_
        is_object = f"{fetch}.__class__ is dict or {v}.__class__ is text_object"
        return f"i{index}({v}, m{index}) if {is_object} else ({otherwise})"
    return f"None if {fetch} is None else ({_LEFT_OUT} and None if {v} is absent else r{index}({v}, notes))"


def _other_spellings(enum: Any, type_: Any) -> dict[str, Any]:
    """Spellings of documented values other than the members' own that services commonly send,
    each with the member the field's hook reads it as (it notes the spelling, for ``to_dict``)."""
    decode = field_hook(type_)
    spellings: dict[str, Any] = {}
    for member in enum:
        value = member.value
        for other in (value.lower(), value.upper(), value.capitalize(), value.title()):
            for text in (other, other.replace("_", "-"), other.replace("-", "_")):
                read = decode(text, type_)
                if text != value and isinstance(read, enum) and read.value != text:
                    spellings.setdefault(text, read)
    return spellings


_LEFT_OUT = "(missing := missing + 1)"
"""Counts a field left out; its value, at least 1, is true."""

_EXACT: dict[Any, Callable[[str], Any]] = {
    datetime.datetime: read_utc_datetime,
    decimal.Decimal: exact_decimal,
}
"""Text that decodes, with nothing to note, to a value of these types (see ``exact``)."""


def _array_expression(index: int, plan: FieldPlan, fetch: str, namespace: dict[str, Any], v: str) -> str:
    """The source that reads an array field: ``[]`` when left out or sent empty (the shared one),
    a list of models built right here, a list whose items all have the declared class as sent."""
    type_ = plan.type
    namespace[f"null{index}"] = null_array(plan.wire, type_)
    otherwise = (
        f"(null{index}(notes) if {v} is None else "
        f"({_LEFT_OUT} and empty_array if {v} is absent else r{index}({v}, notes)))"
    )
    item = (get_args(type_) or (Any,))[0] if is_list(type_) else None
    if item is not None and attrs.has(item) and item not in COMPILING:
        # A list of models, built right here; an item that is no object raises DecodeError.
        namespace[f"i{index}"] = hook(item)
        namespace[f"m{index}"] = item
        as_sent = f"[i{index}(x, m{index}) for x in {v}]"
    elif item in (Any, object):
        as_sent = v
    elif (kind := dict if item is not None and is_mapping(item) else item) in PASS_THROUGH_CLASSES:
        namespace[f"k{index}"] = kind
        xml_objects = f" or of_class({v}, text_object)" if kind is dict else ""  # objects read from XML
        as_sent = f"({v} if of_class({v}, k{index}){xml_objects} else r{index}({v}, notes))"
    else:
        as_sent = f"r{index}({v}, notes)"
    return f"({as_sent} if {v} else empty_array) if {fetch}.__class__ is list else {otherwise}"


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
        function = _compiled("\n".join(head + self.generic), f"structure_{cls.__name__}", name, namespace)
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
        expressions.append(_field_expression(index, plan, readers[index], namespace, fetch, f"v{index}"))
    construction = _construction(
        [plan.name for plan in plans], expressions, fills_slots(namespace["cls"]), extra
    )
    body = [
        "    notes = []",
        "    try:",
        *construction,
        *_AFTER_DECODE_ERROR,
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
