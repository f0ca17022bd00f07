"""Load `spec/openapi.yaml` once, remembering the line of every node, so problems name their line.

A problem is located by a JSON pointer (RFC 6901: ``/paths/~1enterprise~1v1~1subscriptions/get``);
the YAML loader's node positions turn it into the line a maintainer opens the file at.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from attrs import field, frozen


@frozen
class Problem:
    """One thing wrong with the spec: where (a JSON pointer) and what to do about it."""

    pointer: str
    message: str
    line: int | None = None  # where the pointer alone cannot tell (a key given twice)


class InvalidSpecError(Exception):
    """The spec breaks OpenAPI or a convention of the generator; carries every problem found."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


@frozen
class Source:
    """A parsed spec and the line (from 1) of each of its nodes by JSON pointer."""

    path: Path
    document: Mapping[str, Any]
    lines: Mapping[str, int] = field(factory=dict)

    def line_of(self, pointer: str) -> int:
        """The line of ``pointer``, or of its nearest ancestor present in the file."""
        while pointer and pointer not in self.lines:
            pointer = pointer.rpartition("/")[0]
        return self.lines.get(pointer, 1)

    def report(self, problems: Iterable[Problem], shown: str) -> list[str]:
        """``file:LINE: pointer: message`` lines, in the order of the file."""
        located = sorted({(p.line or self.line_of(p.pointer), p.pointer or "/", p.message) for p in problems})
        return [f"{shown}:{line}: {pointer}: {message}" for line, pointer, message in located]


def pointer(*parts: object) -> str:
    """The JSON pointer of a path of keys and indexes (``~`` and ``/`` escaped)."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def load(path: Path, shown: str) -> Source:
    """Parse the spec; invalid YAML or duplicate keys raise ``InvalidSpecError`` naming file and line."""
    text = path.read_text(encoding="utf-8")
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise InvalidSpecError([_yaml_problem(error, shown)]) from None
    if not isinstance(document, dict):
        raise InvalidSpecError([f"{shown}:1: /: the spec must be a YAML mapping (openapi, info, paths, ...)"])
    lines: dict[str, int] = {"": 1}
    duplicates: list[Problem] = []
    _index(root, "", lines, duplicates)
    source = Source(path, document, lines)
    if duplicates:
        raise InvalidSpecError(source.report(duplicates, shown))
    return source


def _yaml_problem(error: yaml.YAMLError, shown: str) -> str:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    line = mark.line + 1 if mark is not None else 1
    what = " ".join(filter(None, (getattr(error, "context", None), getattr(error, "problem", None))))
    return f"{shown}:{line}: /: invalid YAML: {what or error}; fix the syntax at this line"


def _index(node: yaml.Node, at: str, lines: dict[str, int], duplicates: list[Problem]) -> None:
    """Record the line of every node below ``node``; note keys given twice in one mapping."""
    if isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[f"{at}/{index}"] = item.start_mark.line + 1
            _index(item, f"{at}/{index}", lines, duplicates)
        return
    if not isinstance(node, yaml.MappingNode):
        return
    seen: set[str] = set()
    for key, value in node.value:
        child = at + pointer(key.value)
        if key.value in seen:
            message = (
                f"key {key.value!r} appears twice in this mapping; the second silently replaces the first"
            )
            duplicates.append(Problem(child, message + " (merge or rename them)", key.start_mark.line + 1))
        seen.add(key.value)
        lines.setdefault(child, key.start_mark.line + 1)
        _index(value, child, lines, duplicates)
