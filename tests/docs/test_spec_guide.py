"""`spec/README.md`, the maintainer's guide, documents every extension the generator reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codegen.validation import EXTENSIONS

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "spec" / "README.md").read_text(encoding="utf-8")
SPEC = (ROOT / "spec" / "openapi.yaml").read_text(encoding="utf-8")

DOCUMENTED = frozenset(re.findall(r"^### `(x-sdk-[a-z-]+)`", GUIDE, flags=re.MULTILINE))
"""The extensions with a section of their own in the guide."""
USED = frozenset(re.findall(r"x-sdk-[a-z]+(?:-[a-z]+)*", SPEC))
"""The extensions the spec itself names, as keys or in its descriptions."""


def _section(extension: str) -> str:
    start = GUIDE.index(f"### `{extension}`")
    following = GUIDE.find("\n### ", start + 1)
    return GUIDE[start : following if following != -1 else len(GUIDE)]


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_every_extension_the_validator_accepts_has_a_section(extension: str) -> None:
    assert extension in DOCUMENTED


@pytest.mark.parametrize("extension", sorted(USED))
def test_every_extension_the_spec_uses_has_a_section(extension: str) -> None:
    assert extension in DOCUMENTED


@pytest.mark.parametrize("extension", sorted(DOCUMENTED))
def test_every_section_shows_a_yaml_example_of_its_extension(extension: str) -> None:
    examples = re.findall(r"```yaml\n(.*?)```", _section(extension), flags=re.DOTALL)
    assert any(extension in example for example in examples)


def test_the_guide_documents_no_extension_the_validator_refuses() -> None:
    assert set(EXTENSIONS) >= DOCUMENTED


def test_the_extensions_the_spec_uses_are_found() -> None:
    assert {"x-sdk-method", "x-sdk-pagination", "x-sdk-retry-statuses"} <= USED
