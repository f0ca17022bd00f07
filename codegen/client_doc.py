"""The constructor's arguments, explained in ``EnterpriseClient``'s own docstring.

The runtime's ``BaseClient`` documents its constructor (an ``Args:`` section, in the order of its
signature); the generated ``EnterpriseClient`` repeats that section, so that ``help()`` and an
editor show every argument where users look. Read from the source with ``ast`` (the generator
does not import the runtime it writes for).
"""

from __future__ import annotations

import ast
from pathlib import Path

BASE_CLIENT = Path(__file__).resolve().parent.parent / "enterprise_async" / "_client" / "base.py"


def constructor_args(path: Path = BASE_CLIENT) -> str:
    """The ``Args:`` section of ``BaseClient``'s docstring, and what follows it, as written."""
    module = ast.parse(path.read_text(encoding="utf-8"))
    base = next(node for node in module.body if isinstance(node, ast.ClassDef) and node.name == "BaseClient")
    doc = ast.get_docstring(base, clean=True) or ""
    if "Args:" not in doc:
        raise ValueError(f"{path}: BaseClient's docstring has no Args: section to repeat")
    return "Args:" + doc.split("Args:", 1)[1].rstrip()
