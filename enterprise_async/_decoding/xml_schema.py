"""Empty XML elements read by the spec's type of their field.

The renderer writes None, ``""``, ``[]`` and ``{}`` alike: as an empty element. The spec tells
them apart for every field it documents: an empty element is ``""`` where a string is due, ``[]``
where an array is, ``{}`` where an object is, and None where the field is nullable (or of another
type: an empty element is no number, boolean or date). The one ambiguity left is the renderer's:
a nullable string, array or object sent as ``""``, ``[]`` or ``{}`` reads back as None, since
null is what the services send far more often there. Fields the spec does not document (``extra``,
free-form objects) keep None.

The models' types cannot say which fields are nullable (every field is ``X | None``: the server
may leave it out), so the spec's component schemas are read here: a ``Conversion`` is made with a
loader of them and owns their ``XmlSchemas``, loaded on the first XML body read.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, get_args

import attrs

from .._utils.xml import TextObject
from .fields import field_plans
from .hooks import is_list, is_mapping, is_union
from .unions import variant_of

if TYPE_CHECKING:
    from .tables import ConversionTables

__all__ = ["XmlSchemas", "fill_empty_elements"]

Number = Callable[[str], Any] | None
"""How the text of a number field is read back (``_json_number``, ``_decimal_number``), or None
for a field whose text stays text."""

Empty = Callable[[], Any] | None
"""What an empty element becomes: the factory of its value (``str``, ``list``, ``TextObject``), or
None to leave it None."""


class _Field(NamedTuple):
    type: Any
    empty: Empty
    item_empty: Empty
    """For an array: what an empty ``<list-item>`` becomes."""
    number: Number
    """How its text is read, where the spec gives the field a number or a boolean, never text: its
    text is a JSON number written out, read back as that number (``"149"`` is 149 where a float is
    due, ``"1"`` is 1 where a boolean is), so that ``to_dict`` writes what the JSON had."""
    item: Any
    """For an array: the type of its items."""
    items_read: bool
    """For an array: whether its items need reading at all (an empty item to fill, or objects of a
    model inside); an array of plain text is left as it is."""
    values: _Field | None = None
    """For an object keyed by data (``additionalProperties`` of a schema): the field each of its
    values is read as."""


class _Action(NamedTuple):
    """What reading may change in one documented field of a class, by the value found there."""

    wire: str
    empty: Empty
    """For an empty element (None): the factory of the value it stands for, if any."""
    number: Number
    """For text: how it is read back, when it is a number or boolean written out (else None)."""
    inside: _Field | None
    """For an object or an array: the field to read it as, when it may hold something to read."""


_Shape = Mapping[str, _Action]
"""The fields of a class that reading may change, by their name on the wire. A field of plain text
(most of them) is not there: reading costs nothing for it."""


class XmlSchemas:
    """The spec's component schemas of one ``Conversion`` (loaded on first use), and the shapes of
    the classes read with them."""

    def __init__(self, conversion: ConversionTables, load: Callable[[], Mapping[str, Any]] | None) -> None:
        self.conversion = conversion
        self._load = load
        self._loading = threading.Lock()
        self._components: Mapping[str, Any] | None = None
        self.shapes: dict[Any, _Shape] = {}
        """The shape of each class (or free-form schema reference) read so far."""
        self.free_form: set[Any] = set()
        """Types of no model (``dict[str, Any]``, ``Any``): their objects are read as they are."""

    def components(self) -> Mapping[str, Any]:
        """The component schemas by name (none when the conversion was made without them)."""
        if self._components is None:
            with self._loading:
                if self._components is None:
                    self._components = dict(self._load()) if self._load is not None else {}
        return self._components


def fill_empty_elements(schemas: XmlSchemas, data: Any, model: Any) -> Any:
    """Replace, in place, the None of each empty element of a documented field by the empty value
    its type says, and the text of each numeric field by its number. One pass without recursion
    (documents may nest deeper than Python's stack), which visits, in each object, only the fields
    of its class that reading may change."""
    pending: list[tuple[Any, _Field]] = [(data, _items_of(model))]
    while pending:
        value, field = pending.pop()
        if value.__class__ is list:
            if not field.items_read:
                continue
            item_empty, item_type = field.item_empty, field.item
            for index, item in enumerate(value):
                if item is None:
                    if item_empty is not None:
                        value[index] = item_empty()
                elif item.__class__ is TextObject or item.__class__ is list:
                    pending.append((item, _ITEMS.get(item_type) or _items_of(item_type)))
            continue
        if field.values is not None:
            if value.__class__ is TextObject:
                pending.extend(
                    (item, field.values) for item in value.values() if item.__class__ is TextObject
                )
            continue
        shape = _shape_of(schemas, field.type, value) if value.__class__ is TextObject else None
        if shape is None:
            continue
        for wire, make, number, inside in shape.values():
            item = value.get(wire)
            if item is None:
                if make is not None and wire in value:
                    value[wire] = make()
            elif item.__class__ is str:
                if number is not None:
                    found = _RENDERED_BOOLEANS.get(item)  # half of them: no call for those
                    value[wire] = number(item) if found is None else found
            elif inside is not None and (item.__class__ is TextObject or item.__class__ is list):
                pending.append((item, inside))
    return data


_ITEMS: dict[Any, _Field] = {}
"""The field an item of an array is read as, by the item's type (its own items unknown): a cache
keyed by the type alone, which decides it."""


def _items_of(item_type: Any) -> _Field:
    item = _item_type(item_type)
    found = _ITEMS[item_type] = _Field(item_type, None, None, None, item, _mentions_model(item))
    return found


def _mentions_model(type_: Any) -> bool:
    """Whether an object of a model may sit anywhere in a value of ``type_`` (its own fields to read)."""
    if isinstance(type_, type) and attrs.has(type_):
        return True
    return any(_mentions_model(argument) for argument in get_args(type_))


def _json_number(text: str) -> Any:
    """The JSON number whose rendering ``text`` is; other text as it is (kept as sent, the models
    say what they make of it: a number longer than Python reads, too)."""
    number = _JSON_NUMBER.fullmatch(text)
    if number is None:
        return text
    try:
        return float(text) if number.group(1) else int(text)
    except ValueError:  # more digits than ``int`` reads (``sys.get_int_max_str_digits``)
        return text


_RENDERED_BOOLEANS = {"True": True, "False": False}
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)((?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)")


def _item_type(type_: Any) -> Any:
    if is_list(type_):
        return (get_args(type_) or (Any,))[0]
    if is_union(type_):
        return next((_item_type(member) for member in get_args(type_) if is_list(member)), Any)
    return Any


def _shape_of(schemas: XmlSchemas, type_: Any, value: Mapping[str, Any]) -> _Shape | None:
    """The shape of the class ``value`` is read as; None for a free-form object."""
    shapes = schemas.shapes
    shape = shapes.get(type_)
    if shape is not None or type_ in schemas.free_form:
        return shape
    cls = type_ if isinstance(type_, type) and attrs.has(type_) else None
    if cls is None and is_union(type_):
        cls = variant_of(schemas.conversion, type_, value)
    elif cls is None:
        schemas.free_form.add(type_)
    if cls is None:
        return None
    shape = shapes.get(cls)
    if shape is None:
        shape = shapes[cls] = _shape(schemas, cls)
    return shape


def _shape(schemas: XmlSchemas, cls: type[Any]) -> _Shape:
    properties = schemas.components().get(cls.__name__, {}).get("properties", {})
    shape: dict[str, _Action] = {}
    for plan in field_plans(cls):
        schema = properties.get(plan.wire)
        items = schema.get("items") if isinstance(schema, Mapping) else None
        item = _item_type(plan.type)
        item_empty = _empty_kind(item, items)
        items_read = item_empty is not None or _mentions_model(item)
        values = _values_field(schemas, schema)
        field = _Field(
            plan.type,
            _empty_kind(plan.type, schema),
            item_empty,
            _number_of(schema),
            item,
            items_read,
            values,
        )
        inside = field if items_read or _mentions_model(plan.type) or values is not None else None
        if field.empty is not None or field.number is not None or inside is not None:
            shape[plan.wire] = _Action(plan.wire, field.empty, field.number, inside)
    return shape


def _values_field(schemas: XmlSchemas, schema: Any) -> _Field | None:
    """For a free-form object whose values the spec describes (``additionalProperties`` naming a
    schema, such as each run's normalized metadata): the field each value is read as, by that
    schema alone (its numbers and booleans); else None."""
    described = schema.get("additionalProperties") if isinstance(schema, Mapping) else None
    ref = described.get("$ref", "") if isinstance(described, Mapping) else ""
    if not ref:
        return None
    if ref not in schemas.shapes:
        properties = schemas.components().get(ref.rpartition("/")[2], {}).get("properties", {})
        schemas.shapes[ref] = {
            wire: _Action(wire, None, number, None)
            for wire, property_schema in properties.items()
            if (number := _number_of(property_schema)) is not None
        }
    return _Field(ref, None, None, None, Any, False)


_NUMERIC = frozenset({"integer", "number", "boolean"})
_NEVER_A_NUMBER = frozenset({"date", "date-time", "uuid"})
"""Formats of text that never spells a number or a boolean: beside one in a union (a date, or
whether the learner unenrolled in time), the renderer's ``True`` or ``12`` can only be the other."""


def _number_of(schema: Any) -> Number:
    """How the text of a field of ``schema`` is read back: as a JSON number where the schema admits
    only numbers and booleans (``_numeric``), as a decimal number only where no digit is lost
    (``_decimal_number``); else None."""
    if not _numeric(schema):
        return None
    return _decimal_number if schema.get("format") == "decimal" else _json_number


def _decimal_number(text: str) -> Any:
    """A decimal's text as the JSON number the renderer wrote, where that number writes the same
    text (``"149.0"``, ``"12"``); other text as it is (``"0.00"``, sent as text in JSON), which the
    decimal reader reads exactly, as it reads the JSON text: the same value from both formats."""
    number = _json_number(text)
    return number if number.__class__ is not str and str(number) == text else text


def _numeric(schema: Any) -> bool:
    """Whether every value the schema admits (null aside) is a number, a boolean, or, in a union with
    one of those, text of a format that never spells one."""
    if not isinstance(schema, Mapping):
        return False
    alternatives = _alternatives(schema)
    if not any(kind in _NUMERIC for kind, _ in alternatives):
        return False
    return all(
        kind in _NUMERIC or kind == "null" or (kind == "string" and text_format in _NEVER_A_NUMBER)
        for kind, text_format in alternatives
    )


def _alternatives(schema: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    """The (type, format) pairs a schema admits: its own types, or those of its ``oneOf``/``anyOf``
    options; an option without a type (a reference) admits anything."""
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        return [(each, schema.get("format")) for each in kinds]
    options = [*schema.get("oneOf", ()), *schema.get("anyOf", ())]
    if not options:
        return [(None, None)]
    return [
        pair
        for option in options
        for pair in (_alternatives(option) if isinstance(option, Mapping) else [(None, None)])
    ]


def _empty_kind(type_: Any, schema: Any) -> Empty:
    """What an empty element of a field of ``type_`` (its schema ``schema``) stands for."""
    if _nullable(schema):
        return None
    if is_list(type_) or (is_union(type_) and is_list(get_args(type_)[0])):
        return list
    if type_ is str or (is_union(type_) and str in get_args(type_)):
        return str
    if is_mapping(type_) or (isinstance(type_, type) and attrs.has(type_)):
        return TextObject
    if is_union(type_) and all(isinstance(member, type) and attrs.has(member) for member in get_args(type_)):
        return TextObject
    return None


def _nullable(schema: Any) -> bool:
    """Whether the schema allows null; a field with no schema, or with one that says nothing of its
    type, may be anything, null included."""
    if not isinstance(schema, Mapping) or not schema:
        return True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind) or schema.get("nullable") is True:
        return True
    options = [*schema.get("oneOf", ()), *schema.get("anyOf", ())]
    return any(isinstance(option, Mapping) and option.get("type") == "null" for option in options)
