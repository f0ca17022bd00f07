"""A ``discriminator`` on a model schema (the types one model stands for, such as a policy's
``policy_type``) is checked before anything is generated: its property is one of the schema's, and
every type maps to the schema itself."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from codegen.validation import problems

SPEC = Path(__file__).resolve().parents[2] / "spec" / "openapi.yaml"


def policy_schema_with(discriminator: dict[str, Any]) -> list[str]:
    document = copy.deepcopy(yaml.safe_load(SPEC.read_text(encoding="utf-8")))
    document["components"]["schemas"]["SubsidyAccessPolicy"]["discriminator"] = discriminator
    return [f"{problem.pointer}: {problem.message}" for problem in problems(document)]


def test_the_specs_own_discriminators_are_valid() -> None:
    assert list(problems(yaml.safe_load(SPEC.read_text(encoding="utf-8")))) == []


def test_a_discriminator_naming_no_property_of_the_model_is_refused() -> None:
    found = policy_schema_with({"propertyName": "kind", "mapping": {}})
    schema = "/components/schemas/SubsidyAccessPolicy"
    assert found == [f"{schema}/discriminator: propertyName 'kind' is not a property of this schema"]


def test_a_type_mapped_to_another_schema_is_refused() -> None:
    mapping = {"AssignedLearnerCreditAccessPolicy": "#/components/schemas/Course"}
    (found,) = policy_schema_with({"propertyName": "policy_type", "mapping": mapping})
    assert found.startswith(
        "/components/schemas/SubsidyAccessPolicy/discriminator/mapping/AssignedLearnerCreditAccessPolicy:"
    )
