"""The API page (``enterprise_async/api.md``): every method of the spec with its arguments, result
and errors, every model with its fields, links that land, and the drift check holding it fresh."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import attrs
import pytest

from codegen import pipeline
from codegen.__main__ import main
from codegen.api_page import slug
from enterprise_async import models
from enterprise_async.errors import status_error_class
from tests.openapi_spec import SpecOperation, document, operations, resolve

PAGE = pipeline.API_PAGE
TEXT = PAGE.read_text(encoding="utf-8")


def _section(heading: str) -> str:
    """The page's text under ``heading`` up to the next heading of its level or above."""
    level = heading.split(" ", 1)[0]
    start = TEXT.index(f"\n{heading}\n")
    ends = [TEXT.find(f"\n{mark} ", start + 1) for mark in ("#" * n for n in range(1, len(level) + 1))]
    found = [end for end in ends if end != -1]
    return TEXT[start : min(found) if found else None]


def _model_classes() -> list[str]:
    return [
        name
        for name in models.__all__
        if isinstance(getattr(models, name), type) and attrs.has(getattr(models, name))
    ]


@pytest.mark.parametrize("expected", list(operations()), ids=lambda operation: operation.name)
def test_every_method_is_on_the_page_with_its_arguments_and_path(expected: SpecOperation) -> None:
    section = _section(f"### client.{expected.name}")
    assert f"`{expected.http_method} {expected.path}`" in section
    for argument in (*expected.positional, *expected.keyword):
        assert re.search(rf"^\| `{argument}` \|", section, re.MULTILINE), argument
    signature = section.split("```python\n", 1)[1].split("\n", 1)[0]
    assert ", ".join(expected.positional) in signature


@pytest.mark.parametrize("expected", list(operations()), ids=lambda operation: operation.name)
def test_every_method_links_its_result_model_and_lists_its_documented_errors(expected: SpecOperation) -> None:
    section = _section(f"### client.{expected.name}")
    returns = section.split("\nReturns ", 1)[1].split("\n", 1)[0]
    node = document()["paths"][expected.path][expected.http_method.lower()]
    for status, response in node["responses"].items():
        if not str(status).isdigit():
            continue
        if 200 <= int(status) < 300:
            linked = re.findall(r"\[(\w+)\]\(#(\w+)\)", returns)
            if resolve(response).get("content"):  # a model, linked to its section
                assert linked
            assert all(hasattr(models, name) and anchor == slug(name) for name, anchor in linked)
        elif not resolve(response).get("x-sdk-json-fallback"):
            assert f"- {status}: `{status_error_class(int(status)).__name__}`" in section


@pytest.mark.parametrize("name", _model_classes())
def test_every_model_is_on_the_page_with_every_field(name: str) -> None:
    section = _section(f"### {name}")
    for field in attrs.fields(getattr(models, name)):
        if field.init:
            assert re.search(rf"^\| `{field.name}` \| .+ \| .+ \|$", section, re.MULTILINE), field.name


def test_every_link_of_the_page_lands_on_a_heading() -> None:
    headings = {slug(line.lstrip("#")) for line in TEXT.splitlines() if line.startswith("#")}
    targets = set(re.findall(r"\]\(#([^)]+)\)", TEXT))
    assert len(targets) > 50
    assert targets - headings == set()


def _named_enums() -> list[tuple[str, str, str, list[str]]]:
    """(operation, argument, name, values) of each argument whose closed enum the spec names."""
    found = []
    for expected in operations():
        node = document()["paths"][expected.path][expected.http_method.lower()]
        for parameter in map(resolve, node.get("parameters", ())):
            schema = resolve(parameter.get("schema", {}))
            if "x-sdk-type-name" in schema:
                argument = parameter.get("x-sdk-argument", parameter["name"])
                found.append((expected.name, argument, schema["x-sdk-type-name"], schema["enum"]))
    return found


def test_every_closed_enum_an_argument_takes_is_on_the_page_with_its_values() -> None:
    """``AssignmentOrdering`` and the like are ``Literal`` aliases: the page says what they allow."""
    named = _named_enums()
    assert {name for _, _, name, _ in named} >= {"AssignmentOrdering", "LearnerSummaryOrdering"}
    for operation, argument, name, values in named:
        section = _section(f"### {name}")
        assert f"`client.{operation}({argument}=...)`" in section
        listed = re.findall(r"`([^`]+)`", section.split("\nValues: ", 1)[1].split("\n", 1)[0])
        assert listed == [str(value) for value in values]
        row = f"| `{argument}` | [{name}](#{slug(name)}) |"
        assert row in _section(f"### client.{operation}"), row


def test_the_readme_links_the_page() -> None:
    readme = (pipeline.ROOT / "README.md").read_text(encoding="utf-8")
    assert "(enterprise_async/api.md)" in readme


@pytest.fixture
def copy_of_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "api.md"
    shutil.copy(PAGE, target)
    monkeypatch.setattr(pipeline, "API_PAGE", target)
    return target


def test_the_drift_check_fails_on_a_stale_page_and_regenerating_repairs_it(
    copy_of_page: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--check"]) == 0
    copy_of_page.write_text(
        TEXT.replace("### client.catalogs.list", "### client.catalogs.lst"), encoding="utf-8"
    )
    assert main(["--check"]) == 1
    assert f"stale: {copy_of_page} differs" in capsys.readouterr().err
    assert main([]) == 0
    assert copy_of_page.read_text(encoding="utf-8") == TEXT
