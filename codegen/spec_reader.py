"""``SpecReader``: one spec's ``$ref``s resolved, its schemas written as the runtime's ``Rule(...)``
sources and as the type hints of resource methods, and the models its responses decode to."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ERROR_SCHEMA = "#/components/schemas/ErrorBody"


SCHEMA_PREFIX = "#/components/schemas/"


Schema = Mapping[str, Any]


class SpecError(Exception):
    """The spec breaks a convention the generator relies on; ``pointer`` says where (JSON pointer)."""

    def __init__(self, message: str, pointer: str = "") -> None:
        super().__init__(message)
        self.pointer = pointer


class SpecReader:
    """Resolves references of one OpenAPI document and turns schemas into rules and type hints."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.schemas: Mapping[str, Schema] = document["components"]["schemas"]
        self.retry_statuses: frozenset[int] = frozenset(
            int(status) for status in document.get("x-sdk-retry-statuses", ())
        )
        self.past_last_page: Mapping[str, Any] = document.get("x-sdk-past-last-page", {})
        """The answer to a page past the last one (``status``, ``detail``); none when unsaid."""

    # ------------------------------------------------------------------ references
    def resolve(self, node: Schema) -> Schema:
        while "$ref" in node:
            node = self._lookup(node["$ref"])
        return node

    def _lookup(self, ref: str) -> Schema:
        if not ref.startswith("#/"):
            raise SpecError(f"only local references are supported: {ref}")
        node: Any = self.document
        for part in ref[2:].split("/"):
            node = node[part]
        return node  # type: ignore[no-any-return]

    @staticmethod
    def ref_name(node: Schema) -> str | None:
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(SCHEMA_PREFIX):
            return ref.removeprefix(SCHEMA_PREFIX)
        return None

    def is_enum(self, name: str) -> bool:
        return "enum" in self.schemas[name]

    def open_enum(self, schema: Schema) -> str | None:
        """The enum of ``anyOf: [{$ref: Enum}, {type: string}]``, the spec's way to write an open enum."""
        variants = schema.get("anyOf", ())
        for variant in variants:
            name = self.ref_name(variant)
            if name and self.is_enum(name):
                return name
        return None

    # ------------------------------------------------------------------ type hints
    def hint(self, schema: Schema) -> str:
        """The Python type a resource method accepts for a value of this schema."""
        if enum := self.open_enum(schema):
            return f"{enum} | str"  # the spec says the service accepts any text
        if name := self.ref_name(schema):
            if self.is_enum(name):  # closed: the enum's members, or their values spelt out
                return f"{name} | {_literal(self.schemas[name]['enum'])}"
            return f"{name} | Mapping[str, JSONInput]"
        if "enum" in schema:  # closed; a long list goes by the name the spec gives it
            return str(schema.get("x-sdk-type-name") or _literal(schema["enum"]))
        kind = primary_type(schema)
        if kind == "array":
            return f"Sequence[{self.hint(schema.get('items', {}))}]"
        return {
            "string": "str",
            "integer": "int",
            "number": "float",
            "boolean": "bool",
            "object": "Mapping[str, JSONInput]",
        }.get(kind, "JSONInput")

    # ------------------------------------------------------------------ rules
    def rule(self, schema: Schema) -> str:
        """Source of a ``Rule(...)`` for the schema."""
        if enum := self.open_enum(schema):
            return call_source("Rule", ["'string'"], {"enum": enum})
        if name := self.ref_name(schema):
            target = self.schemas[name]
            if self.is_enum(name):
                return call_source(
                    "Rule", ["'string'"], {"enum": name, "choices": repr(tuple(target["enum"]))}
                )
            return self.object_rule(target, model=name)
        kind = primary_type(schema)
        if kind == "object" and "properties" in schema:
            return self.object_rule(schema)
        options: dict[str, str] = {}
        if "enum" in schema:
            options["choices"] = repr(tuple(schema["enum"]))
        if _nullable(schema):
            options["nullable"] = "True"
        for key, option in (
            ("format", "format"),
            ("const", "const"),
            ("pattern", "pattern"),
        ):
            if key in schema:
                options[option] = repr(schema[key])
        for key, option in (
            ("minimum", "minimum"),
            ("maximum", "maximum"),
            ("minLength", "min_length"),
            ("minItems", "min_items"),
            ("maxItems", "max_items"),
        ):
            if key in schema:
                options[option] = repr(schema[key])
        if kind == "array":
            options["items"] = self.rule(schema.get("items", {}))
        return call_source("Rule", [repr(kind)], options)

    def object_rule(self, schema: Schema, *, model: str | None = None) -> str:
        properties = schema.get("properties", {})
        options: dict[str, str] = {}
        if properties:
            entries = ", ".join(f"{name!r}: {self.rule(prop)}" for name, prop in properties.items())
            options["properties"] = "{" + entries + "}"
        if required := schema.get("required"):
            options["required"] = "frozenset({" + ", ".join(repr(name) for name in required) + "})"
        if schema.get("additionalProperties") is False:
            options["closed"] = "True"
        if model:
            options["model"] = model
        if checks := self.checks(schema):
            options["checks"] = "(" + "".join(f"{check}, " for check in checks) + ")"
        if wire := schema.get("x-sdk-wire"):
            options["wire"] = f"NamedValue({wire['name_field']!r}, {wire['value_field']!r})"
        return call_source("Rule", ["'object'"], options)

    def checks(self, schema: Schema) -> list[str]:
        """Cross-field rules of an object schema, as ``Check`` sources."""
        found: list[str] = []
        exclusive = schema.get("not", {}).get("required")
        if exclusive:
            found.append(f"NeverTogether({tuple(exclusive)!r})")
        alternatives = schema.get("anyOf", ())
        if alternatives and all(set(option) == {"required"} for option in alternatives):
            fields = tuple(name for option in alternatives for name in option["required"])
            found.append(f"AtLeastOneOf({fields!r})")
        if combined := schema.get("x-sdk-max-combined-items"):
            found.append(
                f"MaxCombinedItems({tuple(combined['fields'])!r}, {combined['maximum']!r}, "
                f"{combined.get('description', '')!r})"
            )
        if product := schema.get("x-sdk-max-product-items"):
            found.append(
                f"MaxProductItems({tuple(product['fields'])!r}, {product['maximum']!r}, "
                f"{product.get('description', '')!r})"
            )
        return found

    # ------------------------------------------------------------------ responses
    def response_model(self, response: Schema) -> str | None:
        """The model a response body decodes to, or None when the spec leaves the body open."""
        response = self.resolve(response)
        content = response.get("content", {})
        media = content.get("application/json") or next(iter(content.values()), None)
        if not media:
            return None
        schema = media.get("schema", {})
        if name := self.ref_name(schema):
            return name
        if primary_type(schema) == "array" and (name := self.ref_name(schema.get("items", {}))):
            return f"list[{name}]"
        variants = [
            variant
            for variant in schema.get("oneOf", schema.get("anyOf", ()))
            if variant.get("$ref") != ERROR_SCHEMA
        ]
        if len(variants) == 1 and (name := self.ref_name(variants[0])):
            return name
        if not schema:
            return None
        raise SpecError(f"cannot name the model of response schema {schema!r}")

    def page_model(self, name: str) -> str:
        """The envelope class of a list response (the object variant of ``oneOf`` envelope-or-array)."""
        schema = self.schemas[name]
        if "properties" in schema:
            return name
        for variant in schema.get("oneOf", ()):
            if (ref := self.ref_name(variant)) and "properties" in self.schemas[ref]:
                return ref
        raise SpecError(f"{name} has no envelope variant")

    def item_model(self, page: str, items_field: str) -> str:
        items = self.schemas[page]["properties"][items_field]["items"]
        name = self.ref_name(items)
        if not name:
            raise SpecError(f"{page}.{items_field} items must be a $ref")
        return name


def primary_type(schema: Schema) -> str:
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kinds = [item for item in kind if item != "null"]
        return kinds[0] if kinds else "any"
    return str(kind)


def _nullable(schema: Schema) -> bool:
    kind = schema.get("type")
    return isinstance(kind, list) and "null" in kind


def call_source(name: str, args: list[str], options: Mapping[str, str]) -> str:
    parts = [*args, *(f"{key}={value}" for key, value in options.items())]
    return f"{name}({', '.join(parts)})"


def literal_alias(schema: Schema) -> tuple[str, str] | None:
    """The ``(name, Literal[...])`` of a closed enum the spec names (``x-sdk-type-name``)."""
    if "enum" not in schema or "x-sdk-type-name" not in schema:
        return None
    return str(schema["x-sdk-type-name"]), _literal(schema["enum"])


def _literal(values: list[Any]) -> str:
    """``Literal[...]`` of an enum's values: what a closed request enum takes as text."""
    return "Literal[" + ", ".join(repr(str(value)) for value in values) + "]"
