"""The generated modules read like hand-written code: no branch that repeats or contradicts a test
made before it in the same chain, names that say what they hold, and prose naming real modules."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

GENERATED = Path(__file__).resolve().parents[2] / "enterprise_async" / "_generated"
MODULES = sorted(GENERATED.glob("*.py"))


def _chain_tests(node: ast.If) -> list[ast.expr]:
    """The tests of an ``if``/``elif`` chain, in order."""
    tests = [node.test]
    while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
        node = node.orelse[0]
        tests.append(node.test)
    return tests


def _negated(test: ast.expr) -> str:
    """``test`` with its comparison turned round (``is`` / ``is not``, ``==`` / ``!=``), as a dump."""
    swap = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn}
    swap[ast.NotIn] = ast.In
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ast.dump(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in swap:
        turned = ast.Compare(test.left, [swap[type(test.ops[0])]()], test.comparators)
        return ast.dump(turned)
    return ast.dump(ast.UnaryOp(ast.Not(), test))


def redundant_branches(source: str) -> list[str]:
    """Each branch of an ``if`` chain whose test repeats, or is the opposite of, an earlier one:
    it can never run, or it can only run."""
    found = []
    tree = ast.parse(source)
    chained = {id(n.orelse[0]) for n in ast.walk(tree) if isinstance(n, ast.If) and _is_elif(n)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.If) or id(node) in chained:
            continue
        seen: set[str] = set()
        for test in _chain_tests(node):
            if ast.dump(test) in seen or _negated(test) in seen:
                found.append(f"line {test.lineno}: {ast.unparse(test)}")
            seen.add(ast.dump(test))
    return found


def _is_elif(node: ast.If) -> bool:
    return len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)


def test_the_check_finds_a_branch_that_follows_its_opposite() -> None:
    source = "if v is not ABSENT:\n    a = v\nelif v is ABSENT:\n    a = None\n"
    assert redundant_branches(source) == ["line 3: v is ABSENT"]
    repeated = "if v is None:\n    a = 1\nelif v is None:\n    a = 2\n"
    assert redundant_branches(repeated) == ["line 3: v is None"]
    assert redundant_branches("if v is None:\n    a = 1\nelif v is ABSENT:\n    a = 2\n") == []


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.name)
def test_no_branch_repeats_or_contradicts_an_earlier_one(path: Path) -> None:
    assert redundant_branches(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.name)
def test_no_one_letter_names(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    short = sorted(
        {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and len(node.id) == 1}
        | {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg) and len(node.arg) == 1}
    )
    assert short == []


def _resolves(dotted: str) -> bool:
    """``dotted`` names a module of the package, or an attribute of one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.name)
def test_the_prose_names_real_modules(path: Path) -> None:
    """Every ``enterprise_async.…`` name, and every runtime module named from the package
    (``_decoding.readers``), in the module's comments and docstrings exists."""
    text = path.read_text(encoding="utf-8")
    named = set(re.findall(r"\benterprise_async(?:\.\w+)+", text))
    named |= {f"enterprise_async.{name}" for name in re.findall(r"`(_[a-z]\w*(?:\.\w+)+)`", text)}
    named |= {f"codegen.{name}" for name in re.findall(r"\bcodegen/(\w+)", text)}
    assert sorted(name for name in named if not _resolves(name)) == []
