"""Django REST framework XML, read into JSON-shaped data and written back.

The renderer of the servers writes a ``<root>`` element; a list as ``<list-item>`` children; None,
``[]`` and ``{}`` all as an empty element; booleans as ``True``/``False``; numbers as text. Reading
turns every element whose children are ``<list-item>`` into a list (so a one-element list stays a
list), and leaves the rest to the models' types, which decide how text is coerced.

Documents with a DTD are refused: the servers never send one, and refusing it rules out entity
expansion (billion laughs) and external entities.

The renderer's documents (nothing but the XML declaration before the root element, no namespace)
are parsed by the standard library's C parser into an element tree, turned into dicts in one pass;
any other document (a DTD to refuse, a comment before the root, UTF-16, namespaces, text beside
elements) goes through xmltodict on an expat parser that refuses DTDs. Both give the same data:
None for an empty element, which ``_decoding.xml_schema`` reads by the field's type.
"""

from __future__ import annotations

import datetime
import decimal
import re
from collections.abc import Generator, Mapping
from typing import Any
from xml.etree import ElementTree
from xml.parsers import expat

__all__ = [
    "FEED_BYTES",
    "ITEMS_PER_TURN",
    "LIST_ITEM",
    "NotRenderedError",
    "Steps",
    "TextObject",
    "XMLDecodeError",
    "element_tree",
    "element_value",
    "parse_drf_xml",
    "render_drf_xml",
    "is_plain_document",
]

LIST_ITEM = "list-item"
TEXT = "#text"
"""Where xmltodict puts the text of an element that has children too."""


class TextObject(dict[str, Any]):
    """An object read from XML, whose leaves are text whatever the server's types were.

    A plain ``dict`` in every other respect; the decoder keeps it on the models it builds, so that
    ``to_dict`` knows that ``"12"`` was the XML rendering of an integer, not the server's own string.
    """

    __slots__ = ()


class XMLDecodeError(ValueError):
    """The body is not well-formed XML, or carries a DTD."""


def _refuse_dtd(*_: Any) -> None:
    raise XMLDecodeError("XML with a document type declaration is refused")


class _GuardedExpat:
    """The expat module as xmltodict uses it: document type declarations refused outright, and
    attributes left as expat reports them by default (see ``_AttributesAsDict``)."""

    ExpatError = expat.ExpatError

    @staticmethod
    def ParserCreate(*args: Any, **kwargs: Any) -> Any:  # noqa: N802 - the name xmltodict calls
        parser = expat.ParserCreate(*args, **kwargs)
        parser.StartDoctypeDeclHandler = _refuse_dtd
        parser.EntityDeclHandler = _refuse_dtd
        return _AttributesAsDict(parser)


class _AttributesAsDict:
    """An expat parser on which xmltodict's request for ordered attributes has no effect.

    xmltodict asks for every element's attributes as a flat list and builds a dict from it, even
    when it then drops them (``xml_attribs=False``, as here: the servers write no attributes).
    Left as a dict, they pass through untouched, which saves a quarter of the parse.
    """

    __slots__ = ("_parser",)

    def __init__(self, parser: Any) -> None:
        object.__setattr__(self, "_parser", parser)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._parser, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "ordered_attributes":
            setattr(self._parser, name, value)


_NESTED: frozenset[type[Any]] = frozenset({dict, TextObject, list})


def _lists(root: Any) -> Any:
    """Turn the ``<list-item>`` children of every element into a list, in place.

    xmltodict gives a lone ``<list-item>`` as its value and repeated ones as a list (it makes a
    list of nothing else but repeated elements), so a one-element list is wrapped here; an element
    whose only children are list items becomes the list itself. One pass over the finished tree,
    without recursion (documents may nest deeper than Python's stack), costs much less than a
    postprocessor call for every element.
    """
    if root.__class__ not in _NESTED:
        return root
    top = [root]
    pending: list[tuple[Any, Any]] = [(top, 0)]  # where values that hold elements still sit
    while pending:
        container, slot = pending.pop()
        value = container[slot]
        if value.__class__ is not list and TEXT in value and not value[TEXT].strip():
            del value[TEXT]  # indentation between elements, should a document be pretty-printed
        if value.__class__ is not list and LIST_ITEM in value:
            items = value[LIST_ITEM]
            if items.__class__ is not list:
                items = value[LIST_ITEM] = [items]
            if len(value) == 1:
                value = container[slot] = items
        if value.__class__ is list:
            pending.extend((value, index) for index, item in enumerate(value) if item.__class__ in _NESTED)
        else:
            pending.extend((value, key) for key, item in value.items() if item.__class__ in _NESTED)
    return top[0]


def parse_drf_xml(body: bytes | str) -> Any:
    """The content of the document's root element, as JSON-shaped data with text leaves.

    The renderer writes an object's keys as element names, whatever they are: a key that is no XML
    name (``course-v1:edX+DemoX+Demo_Course``, a run key) makes the document malformed. Such a
    document is read again with those names replaced, and each key comes back as it was sent.
    """
    try:
        return _parse(body)
    except XMLDecodeError as error:
        if not isinstance(error.__cause__, (expat.ExpatError, ElementTree.ParseError)):
            raise
        renamed = _rename_keys(body)
        if renamed is None:
            raise
    text, keys = renamed
    return _restore_keys(_parse(text), keys)


FEED_BYTES = 64 * 1024
"""Bytes the C parser is fed between two turns of the event loop (a few milliseconds' work)."""
ITEMS_PER_TURN = 20
"""List items read between two turns of the event loop (a few milliseconds' work)."""

Steps = Generator[None, None, Any]
"""Work done in steps: each ``yield`` is a point where the caller may give the event loop a turn;
the generator returns the result."""


def element_tree(body: bytes | str) -> ElementTree.Element:
    """The document's element tree in one go; ``XMLDecodeError`` when it is malformed."""
    parser = ElementTree.XMLParser()
    try:
        parser.feed(body)
        return parser.close()
    except (ElementTree.ParseError, ValueError, LookupError) as error:
        raise XMLDecodeError(f"malformed XML: {error}") from error


_TAG = re.compile(r"<(/?)([^<>!?/][^<>]*)>")
_XML_NAME = re.compile(r"[A-Za-z_][\w.\-]*\Z")
_PLACEHOLDER = "sdk-key-"


def _rename_keys(body: bytes | str) -> tuple[str, dict[str, str]] | None:
    """``body`` with every element name that is not an XML name replaced by a placeholder, and the
    placeholders' keys; None when every name already is one (the document is malformed otherwise)."""
    try:
        text = body.decode("utf-8") if isinstance(body, bytes) else body
    except UnicodeDecodeError:
        return None  # the renderer writes UTF-8: this is not its document
    keys: dict[str, str] = {}
    placeholders: dict[str, str] = {}

    def rename(match: re.Match[str]) -> str:
        slash, name = match.groups()
        if _XML_NAME.match(name):
            return match.group(0)
        placeholder = placeholders.get(name)
        if placeholder is None:
            placeholder = placeholders[name] = f"{_PLACEHOLDER}{len(placeholders)}"
            keys[placeholder] = _unescape(name)
        return f"<{slash}{placeholder}>"

    renamed = _TAG.sub(rename, text)
    return (renamed, keys) if keys else None


def _unescape(name: str) -> str:
    return name.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _restore_keys(root: Any, keys: dict[str, str]) -> Any:
    """Put each key back in place of its placeholder, keeping the order of the object's keys."""
    pending = [root]
    while pending:
        value = pending.pop()
        if value.__class__ is list:
            pending.extend(item for item in value if item.__class__ in _NESTED)
            continue
        if value.__class__ not in _NESTED:
            continue
        if any(key.startswith(_PLACEHOLDER) for key in value):
            items = [(keys.get(key, key), item) for key, item in value.items()]
            value.clear()
            value.update(items)
        pending.extend(item for item in value.values() if item.__class__ in _NESTED)
    return root


def _parse(body: bytes | str) -> Any:
    if is_plain_document(body):
        try:
            return _from_tree(body)
        except RecursionError:
            pass  # nested deeper than Python's stack: xmltodict, then one pass without recursion
    return _parse_guarded(body)


def is_plain_document(body: bytes | str) -> bool:
    """Whether the C parser and tree builder read the document as xmltodict does (see ``_plain_prolog``):
    no namespace anywhere (the tree builder would put it in the names), nothing in the prolog but
    processing instructions (the XML declaration), in an encoding where that test means something.

    Comments and CDATA sections further on need not be looked for: the tree builder drops comments
    and joins CDATA to the text around it, as xmltodict does, and an element with text beside its
    children is handed to xmltodict anyway.
    """
    if isinstance(body, str):
        return _plain_prolog(body, "<", "?", "!", "?>", "\0") and "xmlns" not in body
    return _plain_prolog(body, b"<", b"?", b"!", b"?>", b"\0") and b"xmlns" not in body


def _plain_prolog(body: Any, lt: Any, question: Any, bang: Any, end: Any, nul: Any) -> bool:
    """Whether the prolog, up to the root element, holds only processing instructions.

    A document type declaration can only appear there, so none can be missed past it. A NUL byte
    in it says UTF-16 or UTF-32, where ``<!`` is spelled otherwise: xmltodict's guarded parser reads
    those. (Every other encoding expat accepts spells markup as ASCII does.)
    """
    checked = 0
    while True:
        start = body.find(lt, checked)
        if start < 0 or nul in body[checked : start + 2]:
            return False
        after = body[start + 1 : start + 2]
        if after != question:
            return bool(after != bang)  # the root element: nothing declared before it
        close = body.find(end, start + 2)
        if close < 0:
            return False
        checked = close + 2


class NotRenderedError(Exception):
    """A shape the renderer never writes (a repeated name, text beside elements): read by xmltodict."""


def _from_tree(body: bytes | str) -> Any:
    """The document through the C parser and tree builder, then its elements as JSON-shaped data."""
    root = element_tree(body)
    try:
        return element_value(root)
    except NotRenderedError:
        return _parse_guarded(body)


def element_value(element: ElementTree.Element) -> Any:
    """An element as the renderer writes values: text (None when empty), a list when its children
    are list items, else an object of its children. Leaves, most of the elements, are read in the
    loop without a call each."""
    if not len(element):
        return element.text
    if element.text is not None and element.text.strip():
        raise NotRenderedError
    if element[0].tag == LIST_ITEM:
        items = []
        for child in element:
            if child.tag != LIST_ITEM or (child.tail is not None and child.tail.strip()):
                raise NotRenderedError
            items.append(element_value(child) if len(child) else child.text)
        return items
    value = TextObject()
    for child in element:
        if child.tail is not None and child.tail.strip():
            raise NotRenderedError
        value[child.tag] = element_value(child) if len(child) else child.text
    if len(value) != len(element) or LIST_ITEM in value:
        raise NotRenderedError
    return value


def _parse_guarded(body: bytes | str) -> Any:
    import xmltodict  # only for documents the renderer does not write: imported by the first one

    try:
        document = xmltodict.parse(
            body,
            expat=_GuardedExpat,
            xml_attribs=False,
            disable_entities=True,
            dict_constructor=TextObject,
            strip_whitespace=False,  # "edX: " and "  Intro to X\n" are texts as sent
        )
    except XMLDecodeError:
        raise
    except (expat.ExpatError, ValueError, LookupError) as error:  # LookupError: an unknown encoding
        raise XMLDecodeError(f"malformed XML: {error}") from error
    if not isinstance(document, dict) or len(document) != 1:
        raise XMLDecodeError("an XML document has exactly one root element")
    (root,) = document.values()
    return _lists(root)


def render_drf_xml(data: Any) -> bytes:
    """Render JSON-shaped data the way the servers' XML renderer does."""
    parts: list[str] = ['<?xml version="1.0" encoding="utf-8"?>\n<root>']
    _render(data, parts)
    parts.append("</root>")
    return "".join(parts).encode("utf-8")


def _render(data: Any, parts: list[str]) -> None:
    if data is None:
        return
    if isinstance(data, Mapping):
        for key, value in data.items():
            parts.append(f"<{key}>")
            _render(value, parts)
            parts.append(f"</{key}>")
    elif isinstance(data, (list, tuple)):
        for item in data:
            parts.append(f"<{LIST_ITEM}>")
            _render(item, parts)
            parts.append(f"</{LIST_ITEM}>")
    elif isinstance(data, bool):
        parts.append("True" if data else "False")
    elif isinstance(data, (datetime.datetime, datetime.date)):
        parts.append(data.isoformat())
    elif isinstance(data, (int, float, decimal.Decimal, str)):
        parts.append(_escape(str(data)))
    else:
        parts.append(_escape(str(data)))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
