"""``python -m tests.bench.code_lines``: the code lines of the hand-written core.

The core is ``enterprise_async`` outside ``_generated``, ``cli``, ``testing``, ``fleet`` and
``exports``. A code line is a line that holds a token other than a comment, a newline, an
indent or a docstring (a string standing alone as a statement: the one that opens a module, a
class or a function, and those documenting an attribute).
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from pathlib import Path

__all__ = ["core_files", "code_lines"]

PACKAGE = Path(__file__).resolve().parents[2] / "enterprise_async"
OUTSIDE_THE_CORE = frozenset({"_generated", "cli", "testing", "fleet", "exports"})
_LAYOUT = frozenset(
    {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
)


def core_files() -> list[Path]:
    """The core's Python files, in path order."""
    return sorted(
        path
        for path in PACKAGE.rglob("*.py")
        if not OUTSIDE_THE_CORE & set(path.relative_to(PACKAGE).parts[:-1])
    )


def _docstring_lines(tree: ast.Module) -> set[int]:
    """The lines of every string that stands alone as a statement: docstrings, attributes' included."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        alone = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if alone and isinstance(node.value.value, str):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def code_lines(path: Path) -> int:
    """The lines of ``path`` that hold code."""
    source = path.read_text(encoding="utf-8")
    docstrings = _docstring_lines(ast.parse(source))
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in _LAYOUT:
            continue
        lines.update(line for line in range(token.start[0], token.end[0] + 1) if line not in docstrings)
    return len(lines)


def main() -> int:
    counts = {path: code_lines(path) for path in core_files()}
    if "-v" in sys.argv[1:]:
        for path, count in counts.items():
            print(f"{count:6d}  {path.relative_to(PACKAGE.parent)}")
    print(f"{sum(counts.values())} code lines in {len(counts)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
