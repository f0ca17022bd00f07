"""The models' docstrings: what each field means, its type and when it is ``None``, from the spec.

``help(Model)`` shows a class's docstring but nothing of its attribute docstrings (attrs classes
have slots, whose descriptors carry no text), so the class docstring lists every field, Google
style (``Attributes:``), as editors and ``pydoc`` render it:

    display_name (str | None): Name of the policy (null when none was given). Always sent; None
        when sent as null.

Each field's own docstring (what editors show on hover) says the same in one line.

The text is the property's ``description``, or, for a property that is only a ``$ref``, the
referenced schema's. The last sentence says when the field is ``None`` (or empty), read from the
same rules that type it (``codegen.models.AttrsField``): required or not, nullable or not, an
array, a default. Docstrings cost nothing at import: the models module loads with the first
client made, never with ``import enterprise_async``, and attribute docstrings compile to nothing.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

__all__ = ["class_docstring", "field_docstring", "field_text", "none_rule"]

_WIDTH = 100
_NAME = re.compile(r"\b[A-Z][A-Za-z0-9]*\b")


def _safe(text: str) -> str:
    """Text that can sit in a triple-quoted docstring, whitespace collapsed."""
    return " ".join(text.replace("\\", "\\\\").replace('"""', "'''").split())


def none_rule(field: Any) -> str:
    """When the field holds ``None`` (or ``[]``), or that it always holds a value."""
    if field.holds_array:
        return "Always sent." if field.required else "Empty (`[]`) when not sent."
    if field.has_value_default:
        return f"`{field.default!r}` when not sent."
    nullable = "None" in field.data_type.type_hint.split(" | ")
    if field.required:
        return "Always sent; None when sent as null." if nullable else "Always sent, never None."
    return "None when not sent or sent as null." if nullable else "None when not sent."


def field_text(field: Any, schema_descriptions: dict[str, str]) -> str:
    """The field's meaning: its own description, else that of the schema its type names."""
    description = field.extras.get("description")
    if description:
        return str(description)
    for name in _NAME.findall(field.attrs_annotation):
        if name in schema_descriptions:
            return schema_descriptions[name]
    return ""


def field_docstring(field: Any, schema_descriptions: dict[str, str]) -> str:
    """The field's own docstring (what an editor shows on hover): its meaning and when it is None."""
    meaning = _safe(field_text(field, schema_descriptions))
    return f"{meaning} {none_rule(field)}" if meaning else none_rule(field)


def class_docstring(description: str | None, fields: list[Any], schema_descriptions: dict[str, str]) -> str:
    """The body of a model's docstring (without quotes), indented for a class body."""
    lines = [_wrap(_safe(description), "", "    ")] if description else []
    entries = []
    for field in fields:
        sentence = field_docstring(field, schema_descriptions)
        entries.append(_wrap(f"{field.name} ({field.attrs_annotation}): {sentence}", "        ", " " * 12))
    if entries:
        extra = "extra (dict[str, Any]): Fields the server sent that the spec does not describe, as received."
        entries.append(_wrap(extra, "        ", " " * 12))
        lines.extend(["", "    Attributes:"] if lines else ["    Attributes:"])
        lines.extend(entries)
        lines.append("    ")
    return "\n".join(lines)


def _wrap(text: str, first: str, then: str) -> str:
    return textwrap.fill(
        text,
        width=_WIDTH,
        initial_indent=first,
        subsequent_indent=then,
        break_on_hyphens=False,
        break_long_words=False,
    )
