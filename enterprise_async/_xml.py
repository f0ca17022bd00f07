"""Django REST framework XML, read into JSON-shaped data and written back.

The renderer of the servers writes a ``<root>`` element; a list as ``<list-item>`` children; None,
``[]`` and ``{}`` all as an empty element; booleans as ``True``/``False``; numbers as text. Reading
turns every element whose children are ``<list-item>`` into a list (so a one-element list stays a
list), and leaves the rest to the models' types, which decide how text is coerced.

Documents with a DTD are refused: the servers never send one, and refusing it rules out entity
expansion (billion laughs) and external entities.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Mapping
from typing import Any
from xml.parsers import expat

import xmltodict

__all__ = ["XMLDecodeError", "parse_drf_xml", "render_drf_xml"]

LIST_ITEM = "list-item"


class XMLDecodeError(ValueError):
    """The body is not well-formed XML, or carries a DTD."""


def _refuse_dtd(*_: Any) -> None:
    raise XMLDecodeError("XML with a document type declaration is refused")


class _GuardedExpat:
    """The expat module as xmltodict uses it, with document type declarations refused outright."""

    ExpatError = expat.ExpatError

    @staticmethod
    def ParserCreate(*args: Any, **kwargs: Any) -> Any:  # noqa: N802 - the name xmltodict calls
        parser = expat.ParserCreate(*args, **kwargs)
        parser.StartDoctypeDeclHandler = _refuse_dtd
        parser.EntityDeclHandler = _refuse_dtd
        return parser


def _lists(_path: Any, key: str, value: Any) -> tuple[str, Any]:
    """Turn ``{"list-item": [...]}`` (the element of a list) into the list itself."""
    if value.__class__ is dict and len(value) == 1 and LIST_ITEM in value:
        return key, value[LIST_ITEM]
    return key, value


def parse_drf_xml(body: bytes | str) -> Any:
    """The content of the document's root element, as JSON-shaped data with text leaves."""
    try:
        document = xmltodict.parse(
            body,
            expat=_GuardedExpat,
            xml_attribs=False,
            force_list=(LIST_ITEM,),
            postprocessor=_lists,
            disable_entities=True,
        )
    except XMLDecodeError:
        raise
    except (expat.ExpatError, ValueError, LookupError) as error:  # LookupError: an unknown encoding
        raise XMLDecodeError(f"malformed XML: {error}") from error
    if not isinstance(document, dict) or len(document) != 1:
        raise XMLDecodeError("an XML document has exactly one root element")
    (root,) = document.values()
    return root


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
