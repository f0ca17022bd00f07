"""Layouts: what the objects of one class share, learnt as they are read, so that the next ones cost less.

The objects of one listing mostly send the same fields. ``LeftOut`` finds the fields an object
leaves out (its record names them) from the last set found; ``Layouts`` compiles a class's function
again with a branch for each layout that recurs.
"""

from __future__ import annotations

import operator
from typing import Any

from .emitter import AFTER_DECODE_ERROR, compiled, construction, field_expression, fills_slots
from .fields import WIRE, FieldPlan
from .readers import Reader
from .record import wire_record

__all__ = ["Layouts", "LeftOut"]


class LeftOut:
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


class Layouts:
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


def _qualified(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
