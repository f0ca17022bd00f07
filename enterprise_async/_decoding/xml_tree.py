"""DRF XML read by a model straight from the element tree: the data ``fill_empty_elements`` makes of
``parse_drf_xml``'s, in one pass.

The renderer's documents (see ``_utils.xml``) are parsed by the standard library's C parser; each
element is then read once, by the field it stands for: an empty one as its type says, the text of a
number or boolean as that value, a model's object by the fields of its class that reading may
change (``_Shape``), a free-form object or an array of plain text as it is. Any other document, or
a shape the renderer never writes (text beside elements, a repeated name), is parsed and then
filled in two passes, which give the same data and the same errors. Each function reads with the
``XmlSchemas`` of one ``Conversion`` (``Conversion.xml``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from xml.etree import ElementTree
from xml.etree.ElementTree import Element

from .._utils.xml import (
    FEED_BYTES,
    ITEMS_PER_TURN,
    LIST_ITEM,
    NotRenderedError,
    Steps,
    TextObject,
    XMLDecodeError,
    element_tree,
    element_value,
    is_plain_document,
    parse_drf_xml,
)
from .xml_schema import (
    _ITEMS,
    _RENDERED_BOOLEANS,
    XmlSchemas,
    _Action,
    _Field,
    _items_of,
    _Shape,
    _shape_of,
    fill_empty_elements,
)

__all__ = ["read_drf_xml", "read_drf_xml_in_steps"]


def read_drf_xml(schemas: XmlSchemas, body: bytes | str, model: Any = None) -> Any:
    """The document as JSON-shaped data (``parse_drf_xml``), its empty elements, numbers and booleans
    read as ``model``'s fields say (a model class, or a type such as ``list[Course]``; None reads every
    empty element as None and every leaf as text)."""
    if model is not None and is_plain_document(body):
        try:
            return _read_root(schemas, element_tree(body), model)
        except (XMLDecodeError, NotRenderedError, RecursionError):
            pass  # read again below, where a malformed document gets its own error
    return _parsed_then_filled(schemas, body, model)


def read_drf_xml_in_steps(schemas: XmlSchemas, body: bytes | str, model: Any = None) -> Steps:
    """``read_drf_xml(body, model)`` in steps of a few milliseconds each (see ``Steps``): the C parser
    fed a slice of the document at a time, the items of the top-level arrays (a page's results) read
    as soon as they are parsed, the rest a few at a time at the end."""
    if model is not None and is_plain_document(body):
        try:
            return (yield from _read_in_steps(schemas, body, _items_of(model)))
        except (XMLDecodeError, NotRenderedError, RecursionError):
            pass
    return _parsed_then_filled(schemas, body, model)


def _read_in_steps(schemas: XmlSchemas, body: bytes | str, field: _Field) -> Steps:
    """The document read as ``field`` while it is parsed.

    The items of a top-level array are read, and their elements dropped from the tree, after each
    slice fed to the parser: a page's elements (hundreds per catalog item) live only until their item
    is read, not until the whole page is, so that they die young instead of being promoted to the
    collector's oldest generation, where every object makes its full passes come sooner and last
    longer."""
    parser: ElementTree.XMLPullParser[Element] = ElementTree.XMLPullParser(events=("start",))
    root: Element | None = None
    early: dict[Element, list[Any]] = {}
    by_class = isinstance(field.type, type) and field.values is None  # a union's class needs all its fields
    shape = _shape_of(schemas, field.type, _NO_NAMES) if by_class else None
    try:
        for start in range(0, len(body), FEED_BYTES):
            parser.feed(body[start : start + FEED_BYTES])
            root = _root(parser, root)
            if root is not None and shape:
                yield from _read_parsed_items(schemas, root, shape, early)
            yield
        parser.close()
        root = _root(parser, root)
    except (ElementTree.ParseError, ValueError, LookupError) as error:
        raise XMLDecodeError(f"malformed XML: {error}") from error
    if root is None:
        raise XMLDecodeError("malformed XML: no element found")
    if not len(root):
        return root.text
    if root[0].tag == LIST_ITEM:
        return (yield from _items_in_steps(schemas, root, field))
    return (yield from _object_in_steps(schemas, root, field, early))


def _root(parser: ElementTree.XMLPullParser[Element], root: Element | None) -> Element | None:
    """The root element (the first started), the parser's events read (an error among them raised)."""
    events: Iterator[Any] = parser.read_events()
    for _, element in events:
        if root is None:
            root = element
    return root


def _read_parsed_items(
    schemas: XmlSchemas, root: Element, shape: _Shape, early: dict[Element, list[Any]]
) -> Steps:
    """Read the parsed items of the arrays among ``root``'s children into ``early``, but the last of
    each (its end may not be parsed yet), ``ITEMS_PER_TURN`` at a time, and drop their elements from
    the tree."""
    for child in root:
        action = shape.get(child.tag)
        if action is None or action.inside is None or not action.inside.items_read:
            continue
        field = action.inside
        while len(child) > 1 and child[0].tag == LIST_ITEM:
            chunk = min(len(child) - 1, ITEMS_PER_TURN)
            early.setdefault(child, []).extend([_item(schemas, item, field) for item in child[:chunk]])
            del child[:chunk]
            if len(child) > 1:
                yield


def _parsed_then_filled(schemas: XmlSchemas, body: bytes | str, model: Any) -> Any:
    data = parse_drf_xml(body)
    return data if model is None else fill_empty_elements(schemas, data, model)


def _read_root(schemas: XmlSchemas, root: Element, model: Any) -> Any:
    return _read(schemas, root, _items_of(model)) if len(root) else root.text


def _read(schemas: XmlSchemas, element: Element, field: _Field) -> Any:
    """An element that has children, read as ``field``: an array when they are list items, else an
    object."""
    if element.text is not None and element.text.strip():
        raise NotRenderedError
    if element[0].tag == LIST_ITEM:
        if not field.items_read:
            return element_value(element)
        return [_item(schemas, child, field) for child in element]
    return _object(schemas, element, field)


def _item(schemas: XmlSchemas, child: Element, field: _Field) -> Any:
    """A list item of an array read as ``field``."""
    if child.tag != LIST_ITEM or (child.tail is not None and child.tail.strip()):
        raise NotRenderedError
    if len(child):
        return _read(schemas, child, _ITEMS.get(field.item) or _items_of(field.item))
    text = child.text
    if text is None and field.item_empty is not None:
        return field.item_empty()
    return text


def _object(schemas: XmlSchemas, element: Element, field: _Field) -> Any:
    """An object read as ``field``: by its class's shape, each value of a described free-form object
    by the schema of its values, or as it is when the class is free-form."""
    values = field.values
    shape = None if values is not None else _shape_of(schemas, field.type, _probe(element, field.type))
    if shape is None and values is None:
        return element_value(element)
    if values is not None:
        return _described(schemas, element, values)
    assert shape is not None
    value = TextObject()
    for child in element:
        if child.tail is not None and child.tail.strip():
            raise NotRenderedError
        tag = child.tag
        action = shape.get(tag)
        if len(child):
            inside = None if action is None else action.inside
            value[tag] = element_value(child) if inside is None else _read(schemas, child, inside)
            continue
        text = child.text
        if action is None:
            value[tag] = text
        elif text is None:
            value[tag] = None if action.empty is None else action.empty()
        elif action.number is None:
            value[tag] = text
        else:
            found = _RENDERED_BOOLEANS.get(text)  # half of them: no call for those
            value[tag] = action.number(text) if found is None else found
    if len(value) != len(element) or LIST_ITEM in value:
        raise NotRenderedError
    return value


def _described(schemas: XmlSchemas, element: Element, values: _Field) -> Any:
    """A free-form object whose values the spec describes: each object among them read by ``values``."""
    value = TextObject()
    for child in element:
        if child.tail is not None and child.tail.strip():
            raise NotRenderedError
        value[child.tag] = (
            _read(schemas, child, values) if len(child) and child[0].tag != LIST_ITEM else _plain(child)
        )
    if len(value) != len(element) or LIST_ITEM in value:
        raise NotRenderedError
    return value


def _plain(child: Element) -> Any:
    return element_value(child) if len(child) else child.text


def _leaf(text: str | None, action: _Action) -> Any:
    """The text of an element without children, read by the action of its field."""
    if text is None:
        return action.empty() if action.empty is not None else None
    if action.number is None:
        return text
    found = _RENDERED_BOOLEANS.get(text)  # half of them: no call for those
    return action.number(text) if found is None else found


def _object_in_steps(
    schemas: XmlSchemas, element: Element, field: _Field, early: Mapping[Element, list[Any]]
) -> Steps:
    """``_object(element, field)``, the items of each array among its values a few at a time, after
    those already read (``early``, by the array's element)."""
    if element.text is not None and element.text.strip():
        raise NotRenderedError
    values = field.values
    shape = None if values is not None else _shape_of(schemas, field.type, _probe(element, field.type))
    if shape is None or values is not None:
        return _object(schemas, element, field)
    value = TextObject()
    for child in element:
        if child.tail is not None and child.tail.strip():
            raise NotRenderedError
        tag = child.tag
        action = shape.get(tag)
        if not len(child):
            value[tag] = child.text if action is None else _leaf(child.text, action)
        elif action is None or action.inside is None:
            value[tag] = element_value(child)
        elif child[0].tag == LIST_ITEM:
            if child.text is not None and child.text.strip():
                raise NotRenderedError
            rest = yield from _items_in_steps(schemas, child, action.inside)
            value[tag] = early[child] + rest if child in early else rest
        else:
            value[tag] = _read(schemas, child, action.inside)
    if len(value) != len(element) or LIST_ITEM in value:
        raise NotRenderedError
    return value


def _items_in_steps(schemas: XmlSchemas, element: Element, field: _Field) -> Steps:
    """The list items of ``element`` read as ``field``, ``ITEMS_PER_TURN`` at a time."""
    if not field.items_read:
        return element_value(element)  # text alone: the C parser's work is done
    items = []
    for index, child in enumerate(element, 1):
        items.append(_item(schemas, child, field))
        if index % ITEMS_PER_TURN == 0:
            yield
    return items


def _probe(element: Element, type_: Any) -> Mapping[str, Any]:
    """What ``_shape_of`` may look at to choose a union's variant: the element's names, and the text
    of those without children. A class (not a union) needs none."""
    return _NO_NAMES if isinstance(type_, type) else _Names(element)


class _Names(Mapping[str, Any]):
    """An element's children by name, as the object read from it would hold them before reading: text
    for an element without children; the element itself (neither text nor None) for any other."""

    __slots__ = ("_element",)

    def __init__(self, element: Element) -> None:
        self._element = element

    def __getitem__(self, name: str) -> Any:
        found: Any = self
        for child in self._element:
            if child.tag == name:
                found = child if len(child) else child.text
        if found is self:
            raise KeyError(name)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(child.tag for child in self._element))

    def __len__(self) -> int:
        return len(dict.fromkeys(child.tag for child in self._element))


_NO_NAMES: Mapping[str, Any] = {}
