"""``help(Model)`` explains every field: what it means (its unit where it has one), its type, and
when it is ``None``, from the spec's descriptions, for every model."""

from __future__ import annotations

import ast
import inspect
import pydoc
from collections.abc import Mapping
from itertools import pairwise
from pathlib import Path
from typing import Any

import attrs
import pytest

from enterprise_async import models
from tests.openapi_spec import document, object_schemas

SCHEMAS = dict(object_schemas())


def _words(text: str) -> str:
    return " ".join(text.split())


def _help(model: type) -> str:
    """What ``help(model)`` prints, without the margin pydoc draws (`` |  ``)."""
    text = pydoc.render_doc(model, renderer=pydoc.plaintext)
    return _words("\n".join(line.lstrip(" |") for line in text.splitlines()))


def _meaning(schema: Mapping[str, Any]) -> str | None:
    """The property's description, or, for a bare ``$ref``, the referenced schema's."""
    if schema.get("description"):
        return str(schema["description"])
    reference = schema.get("$ref")
    if reference is None:
        return None
    target = document()["components"]["schemas"][reference.rsplit("/", 1)[1]]
    return str(target["description"]) if target.get("description") else None


def _when_none(field: attrs.Attribute[Any]) -> str:
    """What the help must say of the field's ``None``, told by the class itself, not the generator."""
    hint = field.type if isinstance(field.type, str) else repr(field.type)
    if field.default is attrs.NOTHING:
        if field.type is not None and "None" in hint.split(" | "):
            return "Always sent; None when sent as null."
        return "Always sent"
    if isinstance(field.default, attrs.Factory):  # type: ignore[arg-type]
        return "Empty (`[]`) when not sent."
    if field.default is None:
        return "None when not sent"
    return f"`{field.default!r}` when not sent."


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_help_says_what_every_field_means_and_when_it_is_none(name: str) -> None:
    model = getattr(models, name)
    shown = _help(model)
    fields = [field for field in attrs.fields(model) if field.init and field.name != "extra"]
    wire = {field.metadata.get("wire", field.name): field for field in fields}
    assert set(wire) == set(SCHEMAS[name]["properties"])
    starts: list[int] = []
    for field in fields:  # in the spec's order
        starts.append(shown.index(f" {field.name} (", starts[-1] + 1 if starts else 0))
    for index, field in enumerate(fields):
        entry = shown[starts[index] : starts[index + 1] if index + 1 < len(fields) else None]
        wire_name = field.metadata.get("wire", field.name)
        meaning = _meaning(SCHEMAS[name]["properties"][wire_name])
        assert meaning is not None, f"{name}.{wire_name} has no description in the spec"
        assert _words(meaning) in entry, f"{name}.{field.name}: {entry!r}"
        assert _when_none(field) in entry, f"{name}.{field.name}: {entry!r}"


def test_money_fields_name_their_unit() -> None:
    """The policy's limits say they are cents, an assignment's cost too, a seat's price that it is not."""
    shown = _help(models.SubsidyAccessPolicy)
    for field in ("spend_limit", "per_learner_spend_limit"):
        entry = shown[shown.index(f" {field} (") :]
        assert entry.split(". ", 1)[0].count("in USD cents") == 1
    assert "Cost of the content, in USD cents" in _help(models.Assignment)
    assert "not cents" in _help(models.CourseRun)


def _attribute_docstrings() -> dict[str, dict[str, str]]:
    """By class and field: the docstring written under each field of the models' source, which
    editors show on hover (attrs classes have slots, whose descriptors carry no text at run time)."""
    source = Path(inspect.getfile(models.SubsidyAccessPolicy)).read_text(encoding="utf-8")
    found: dict[str, dict[str, str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            body = node.body
            found[node.name] = {
                statement.target.id: _words(str(after.value.value))
                for statement, after in pairwise(body)
                if isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
            }
    return found


HOVER = _attribute_docstrings()


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_field_says_the_same_on_hover(name: str) -> None:
    model = getattr(models, name)
    for field in attrs.fields(model):
        if not field.init or field.name == "extra":
            continue
        meaning = _meaning(SCHEMAS[name]["properties"][field.metadata.get("wire", field.name)])
        hover = HOVER[name][field.name]
        assert meaning is not None
        assert _words(meaning) in hover, f"{name}.{field.name}: {hover!r}"
        assert _when_none(field) in hover, f"{name}.{field.name}: {hover!r}"
