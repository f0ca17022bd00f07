"""Emit the attrs models of `spec/` through datamodel-code-generator's OpenAPI parser.

datamodel-code-generator has no attrs output, so this module gives its parser a model class and
templates of our own. Everything else (reading the spec, resolving references, naming classes,
collecting imports, ordering definitions) stays the parser's job.

The models follow the contract:

- field names are the wire names;
- a field the schema lists in ``required`` has no default: typed ``T``, or ``T | None`` where the
  schema allows null; any other field is optional: a scalar the server leaves out is ``None``, an
  array is ``[]``;
- open enums (``anyOf: [$ref Enum, string]`` in the spec) are typed ``Enum | str``;
- every class has an ``extra`` mapping for fields the spec does not describe;
- a schema that requires one of several fields (``anyOf``/``oneOf`` of ``required`` lists) gets a
  ``_sdk_rule`` method saying why an object breaks it, which ``__attrs_post_init__`` turns into a
  ``TypeError`` and its reader and writer (``codegen.decoders``) into their own errors.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import yaml
from datamodel_code_generator import DataModelType
from datamodel_code_generator._format_types import DateClassType, DatetimeClassType
from datamodel_code_generator.format import PythonVersion
from datamodel_code_generator.imports import Import
from datamodel_code_generator.model import dataclass as dataclass_model
from datamodel_code_generator.model import get_data_model_types
from datamodel_code_generator.model.base import UNDEFINED
from datamodel_code_generator.parser.openapi import OpenAPIParser
from datamodel_code_generator.types import DataType

from codegen.model_docs import class_docstring, field_docstring

TEMPLATES = Path(__file__).parent / "templates"

IMPORT_DEFINE = Import(from_="attrs", import_="define")
IMPORT_FIELD = Import(from_="attrs", import_="field")
IMPORT_ANY = Import(from_="typing", import_="Any")


class AttrsField(dataclass_model.DataModelField):
    """A field rendered as an attrs attribute: wire name; required without a default, else optional
    (arrays default to ``[]``)."""

    @property
    def field(self) -> str | None:
        # The attrs template writes its own default; never let the dataclass field() call leak in.
        return None

    @property
    def holds_array(self) -> bool:
        """Whether the field is an array, or a union whose first variant is an array."""
        data_type = self.data_type
        if _is_array(data_type):
            return True
        return bool(data_type.data_types) and _is_array(data_type.data_types[0])

    @property
    def has_value_default(self) -> bool:
        """Whether the spec gives a scalar default (``partial: false``); such a field is not nullable."""
        return (
            self.default is not None
            and self.default is not UNDEFINED
            and not isinstance(self.default, (list, dict))
        )

    @property
    def attrs_annotation(self) -> str:
        if self.holds_array or self.has_value_default:
            return self._strip_none(self.data_type.type_hint)
        if self.required:
            # Listed in the schema's `required`: `None` only where the schema allows null.
            return self.data_type.type_hint
        return self.type_hint

    @staticmethod
    def _strip_none(hint: str) -> str:
        parts = [part.strip() for part in hint.split(" | ")]
        return " | ".join(part for part in parts if part != "None")

    @property
    def attrs_default(self) -> str:
        """What follows the annotation: `` = default``, or nothing for a required field."""
        arguments: list[str] = []
        if self.required and not self.has_value_default:
            pass
        elif self.holds_array:
            arguments.append("factory=list")
        elif self.has_value_default:
            arguments.append(f"default={self.default!r}")
        else:
            arguments.append("default=None")
        if self.original_name is not None and self.original_name != self.name:
            arguments.append(f"metadata={{'wire': {self.original_name!r}}}")
        if not arguments:
            return ""
        if arguments == ["default=None"]:
            return " = None"
        if len(arguments) == 1 and arguments[0].startswith("default="):
            return " = " + arguments[0].removeprefix("default=")
        return f" = field({', '.join(arguments)})"


def _is_array(data_type: DataType) -> bool:
    """Whether a data type is an array, looking through the single-member wrappers the parser adds."""
    while not data_type.is_list:
        if data_type.type or data_type.reference or len(data_type.data_types) != 1:
            return False
        data_type = data_type.data_types[0]
    return True


class RequiredRule(NamedTuple):
    """A schema's ``anyOf`` (at least one) or ``oneOf`` (exactly one) of ``required`` lists."""

    kind: str
    alternatives: tuple[tuple[str, ...], ...]
    """Wire names: each alternative is the fields it requires together."""


class AttrsModel(dataclass_model.DataClass):
    """An object schema rendered as an ``@attrs.define(kw_only=True)`` class."""

    TEMPLATE_FILE_PATH: ClassVar[str] = "attrs.jinja2"
    FIELD_CONSTRUCTION_ORDER_KEY = None  # keyword-only: fields stay in the spec's order, required or not
    DEFAULT_IMPORTS: ClassVar[tuple[Import, ...]] = (IMPORT_DEFINE, IMPORT_FIELD, IMPORT_ANY)
    RULES: ClassVar[dict[str, RequiredRule]] = {}
    """By schema name: the rules ``render_models`` read from the spec."""
    DESCRIPTIONS: ClassVar[dict[str, str]] = {}
    """By schema name: the schemas' descriptions, for fields that only name a schema."""

    @property
    def class_doc(self) -> str:
        """The class docstring's body: the schema's description and every field (``codegen.model_docs``)."""
        return class_docstring(self.description, self.fields, self.DESCRIPTIONS)

    @property
    def rule_methods(self) -> list[str]:
        """The source of ``_sdk_rule`` and ``__attrs_post_init__`` for a class whose schema has a
        rule; nothing for any other (its ``__init__`` only sets fields)."""
        rule = self.RULES.get(self.class_name)
        return [] if rule is None else rule_source(self.class_name, rule, self.fields)

    def _render(self, *args: Any, **kwargs: Any) -> str:
        field_docs = [field_docstring(field, self.DESCRIPTIONS) for field in self.fields]
        return super()._render(
            *args, rule_methods=self.rule_methods, class_doc=self.class_doc, field_docs=field_docs, **kwargs
        )


def rule_source(name: str, rule: RequiredRule, fields: list[Any]) -> list[str]:
    """The methods that check ``rule``: a field is given when it is not None (an array: not empty,
    as the request validation reads a list left at its ``[]``)."""
    by_wire = {field.original_name or field.name: field for field in fields}
    unknown = sorted({wire for option in rule.alternatives for wire in option} - set(by_wire))
    if unknown:
        raise ValueError(f"{name}: its {rule.kind} of required names no field: {', '.join(unknown)}")

    def given(wire: str) -> str:
        field = by_wire[wire]
        return f"bool(self.{field.name})" if field.holds_array else f"self.{field.name} is not None"

    def held(option: tuple[str, ...]) -> str:
        return " and ".join(given(wire) for wire in option)

    named = [
        " and ".join(option) if len(option) == 1 else f"({' and '.join(option)})"
        for option in rule.alternatives
    ]
    options = " or ".join(named)
    if rule.kind == "anyOf":
        test = " or ".join(
            held(option) if len(option) == 1 else f"({held(option)})" for option in rule.alternatives
        )
        needs, check = f"{name} needs {options}", [f"        if {test}:", "            return None"]
        wrong = [f"        return {needs + '; none is given'!r}"]
    else:
        count = " + ".join(f"({held(option)})" for option in rule.alternatives)
        needs = f"{name} needs exactly one of {', '.join(named)}"
        check = [f"        held = {count}", "        if held == 1:", "            return None"]
        wrong = [
            "        if held == 0:",
            f"            return {needs + '; none is given'!r}",
            f"        return {needs + '; several are given'!r}",
        ]
    return [
        "def __attrs_post_init__(self) -> None:",
        "    problem = self._sdk_rule()",
        "    if problem is not None:",
        "        raise TypeError(problem)",
        "",
        "def _sdk_rule(self) -> str | None:",
        f'    """Why this object breaks its schema\'s ``{rule.kind}`` of ``required`` lists, or None."""',
        *(line[4:] for line in check + wrong),
    ]


def read_rule_fields(spec_path: Path) -> dict[str, tuple[str, ...]]:
    """By schema name: the fields its rule on required fields names (for ``codegen.decoders``)."""
    document = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    return {
        name: tuple(dict.fromkeys(wire for option in rule.alternatives for wire in option))
        for name, rule in required_rules(document).items()
    }


def required_rules(document: Any) -> dict[str, RequiredRule]:
    """The component schemas that require one of several fields, by name."""
    rules: dict[str, RequiredRule] = {}
    for name, schema in document.get("components", {}).get("schemas", {}).items():
        for kind in ("anyOf", "oneOf"):
            options = schema.get(kind) if isinstance(schema, dict) else None
            if options is not None and _only_required(options):
                alternatives = tuple(tuple(option["required"]) for option in options)
                rules[name] = RequiredRule(kind, alternatives)
    return rules


def render_models(spec_path: Path) -> str:
    """Return the source of the models module (unformatted, without header)."""
    stock = get_data_model_types(DataModelType.DataclassesDataclass, PythonVersion.PY_310)
    document = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    rules = required_rules(document)
    descriptions = {
        name: str(schema["description"])
        for name, schema in document.get("components", {}).get("schemas", {}).items()
        if isinstance(schema, dict) and schema.get("description")
    }
    model_type = type("AttrsModel", (AttrsModel,), {"RULES": rules, "DESCRIPTIONS": descriptions})
    parser = OpenAPIParser(
        json.dumps(shapes_only(document)),
        data_model_type=model_type,
        data_model_root_type=stock.root_model,
        data_model_field_type=AttrsField,
        data_type_manager_type=stock.data_type_manager,
        custom_template_dir=TEMPLATES,
        additional_imports=["enterprise_async._decoding.enums.OpenEnum"],
        target_python_version=PythonVersion.PY_310,
        target_datetime_class=DatetimeClassType.Datetime,
        target_date_class=DateClassType.Date,
        use_union_operator=True,
        use_standard_collections=True,
        use_schema_description=True,
        use_field_description=True,
        capitalise_enum_members=True,
        use_double_quotes=True,
        keyword_only=True,
        formatters=[],  # formatting is codegen.pipeline's job (pinned ruff)
    )
    source = parser.parse(disable_future_imports=False)
    if not isinstance(source, str):  # pragma: no cover - one input file gives one module
        raise TypeError("expected a single module from the parser")
    for name in rules:
        if f"\nclass {name}:" not in source:
            raise ValueError(f"{name}: its schema has a rule on required fields but no class of that name")
    return _with_all(source)


def shapes_only(node: Any) -> Any:
    """The spec without validation-only combinators, which describe rules rather than shapes.

    ``anyOf: [{required: [a]}, {required: [b]}]`` (or ``oneOf``) and ``not: {required: [a, b]}``
    constrain which fields an object carries; to datamodel-code-generator they would look like
    alternative classes. The operation table reads them as rules instead (see
    ``codegen.operations``), and so do the models (``required_rules``). A
    ``discriminator`` would make it add a literal field to each variant; ``codegen.variants``
    reads it instead.
    """
    if isinstance(node, list):
        return [shapes_only(item) for item in node]
    if not isinstance(node, dict):
        return node
    # A discriminator is decode data for the variant table (codegen.variants), not a field to add.
    cleaned = {key: shapes_only(value) for key, value in node.items() if key != "discriminator"}
    for kind in ("anyOf", "oneOf"):
        if _only_required(cleaned.get(kind)):
            del cleaned[kind]
    if _only_required([cleaned["not"]] if "not" in cleaned else None):
        del cleaned["not"]
    return cleaned


def _only_required(options: Any) -> bool:
    return (
        isinstance(options, list)
        and bool(options)
        and all(isinstance(option, dict) and set(option) == {"required"} for option in options)
    )


def _with_all(source: str) -> str:
    """Append ``__all__`` naming every class and type alias the module defines."""
    names = [name for name in _public_names(ast.parse(source)) if not name.startswith("_")]
    listing = "".join(f"    {name!r},\n" for name in names)
    return f"{source.rstrip()}\n\n\n__all__ = [\n{listing}]\n"


def _public_names(module: ast.Module) -> list[str]:
    names: list[str] = []
    for node in module.body:
        if isinstance(node, ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, ast.Assign):
            names.extend(target.id for target in node.targets if isinstance(target, ast.Name))
    return names
