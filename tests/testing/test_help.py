"""``help(Sandbox)`` reads as documentation: the default spec shows as a short name, not the
whole spec."""

from __future__ import annotations

import pydoc

from enterprise_async.testing import GENERATED_SPEC, Sandbox

MOST_HELP_CHARACTERS = 20_000
"""Generous for the class's documentation and methods; the spec's repr alone was 190 KB."""


def test_help_of_the_sandbox_is_short() -> None:
    text = pydoc.render_doc(Sandbox, renderer=pydoc.plaintext)
    assert len(text) < MOST_HELP_CHARACTERS
    assert "spec: 'SpecTable' = SpecTable(" in text


def test_the_spec_table_repr_counts_its_operations() -> None:
    assert repr(GENERATED_SPEC) == f"SpecTable({len(GENERATED_SPEC.operations)} operations)"
