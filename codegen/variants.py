"""Render the union variant table: how the decoder picks a class of a union (``oneOf``/``anyOf``).

A ``discriminator`` names the property and values the server sends; ``x-sdk-variants`` lists,
per variant, fields that only that variant carries, for responses without the discriminator.

A ``discriminator`` on a schema of its own (no ``oneOf``/``anyOf``) lists the types one model
stands for (a policy's ``policy_type``): every mapping value is the schema itself. The readers
report any other value to the drift report (``read_type_lists``, ``codegen.decoders``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from codegen.rendering import template_environment
from codegen.spec_reader import SCHEMA_PREFIX, SpecError


def read_variants(spec_path: Path) -> list[dict[str, Any]]:
    """The unions of classes in the spec's schemas, with their rules."""
    schemas: Mapping[str, Any] = yaml.safe_load(spec_path.read_text(encoding="utf-8"))["components"][
        "schemas"
    ]
    unions = []
    for name, schema in schemas.items():
        variants = [_ref_name(option) for option in schema.get("oneOf") or schema.get("anyOf") or ()]
        if not variants or None in variants or not all("properties" in schemas[v] for v in variants if v):
            continue
        discriminator = schema.get("discriminator", {})
        mapping = {value: _ref_name({"$ref": ref}) for value, ref in discriminator.get("mapping", {}).items()}
        markers = schema.get("x-sdk-variants", {})
        for variant in markers:
            if variant not in variants:
                raise SpecError(f"{name}: x-sdk-variants names {variant}, which is not one of its variants")
        fallback = schema.get("x-sdk-fallback-variant")
        if fallback is not None and fallback not in variants:
            raise SpecError(f"{name}: x-sdk-fallback-variant names {fallback}, not one of its variants")
        unions.append(
            {
                "name": name,
                "variants": variants,
                "discriminator": discriminator.get("propertyName"),
                "mapping": mapping,
                "markers": [(variant, sorted(fields)) for variant, fields in markers.items()],
                "fallback": fallback,
            }
        )
    return unions


def read_type_lists(spec_path: Path) -> dict[str, tuple[str, tuple[str, ...]]]:
    """The models whose schema carries a ``discriminator`` of its own: by name, the discriminator
    property and the type values the spec lists."""
    schemas: Mapping[str, Any] = yaml.safe_load(spec_path.read_text(encoding="utf-8"))["components"][
        "schemas"
    ]
    found = {}
    for name, schema in schemas.items():
        discriminator = schema.get("discriminator")
        if not discriminator or schema.get("oneOf") or schema.get("anyOf"):
            continue
        targets = {_ref_name({"$ref": ref}) for ref in discriminator.get("mapping", {}).values()}
        if targets - {name}:
            raise SpecError(f"{name}: a discriminator of a model maps every value to the model itself")
        found[name] = (discriminator["propertyName"], tuple(discriminator.get("mapping", {})))
    return found


def _ref_name(option: Mapping[str, Any]) -> str | None:
    ref = option.get("$ref", "")
    return ref.removeprefix(SCHEMA_PREFIX) if ref.startswith(SCHEMA_PREFIX) else None


def render_variants(unions: list[dict[str, Any]]) -> str:
    models = sorted({union["name"] for union in unions} | {v for union in unions for v in union["variants"]})
    return template_environment().get_template("variants.py.jinja2").render(unions=unions, models=models)
