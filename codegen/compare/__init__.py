"""``python -m codegen compare SCHEMA --service NAME [--json] [--all]``: hold the spec against a
service's own OpenAPI document (drf-spectacular's ``/api/schema/``) and print where they part.

Exit 0 when nothing differs, 1 when something does, 2 when an input cannot be read (one line).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from codegen.compare.documents import LOADER, UnreadableError, read_document
from codegen.compare.known import read_known, split
from codegen.compare.walk import Difference, differences

__all__ = ["Difference", "differences", "main"]

_ROOT = Path(__file__).resolve().parent.parent.parent
SPEC = _ROOT / "spec" / "openapi.yaml"
KNOWN = _ROOT / "spec" / "service-differences.yaml"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"python -m codegen compare: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv: list[str]) -> int:
    parser = _Parser(prog="python -m codegen compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("schema", help="the service's OpenAPI document: a file, or an http(s) URL")
    parser.add_argument("--service", required=True, help="a service of x-sdk-services")
    parser.add_argument("--json", action="store_true", help="write a JSON list of the differences")
    parser.add_argument("--all", action="store_true", help="include the deliberate differences too")
    parser.add_argument("--spec", type=Path, default=SPEC, help=argparse.SUPPRESS)
    parser.add_argument("--known", type=Path, default=KNOWN, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    try:
        spec = _read_spec(options.spec)
        services = spec.get("x-sdk-services") or {}
        if options.service not in services:
            raise UnreadableError(
                f"unknown service {options.service!r}; x-sdk-services has {', '.join(services)}"
            )
        document = read_document(options.schema)
        known = read_known(options.known, options.service)
    except UnreadableError as error:
        print(f"python -m codegen compare: {error}", file=sys.stderr)
        return 2
    found = differences(spec, document, options.service)
    unresolved = [item for item in found if item.kind == "unresolved"]
    new, deliberate, stale = split([item for item in found if item.kind != "unresolved"], known)
    shown = new + deliberate if options.all else new
    if options.json:
        print(json.dumps([item.as_json() for item in shown + unresolved], indent=2))
    else:
        for item in shown:
            print(item.line() + ("  [deliberate]" if item in deliberate else ""))
        for item in unresolved:
            print(item.line())
        print(_summary(shown, unresolved, deliberate, options.all), file=sys.stderr)
    for entry in stale:
        name = f"{entry.model}.{entry.field}" if entry.field else entry.model
        print(f"listed in {options.known.name} but no longer found: {entry.kind} {name}", file=sys.stderr)
    return 1 if shown else 0


def _read_spec(path: Path) -> dict[str, Any]:
    try:
        spec = yaml.load(path.read_text(encoding="utf-8"), Loader=LOADER)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise UnreadableError(f"cannot read the spec {path}: {str(error).splitlines()[0]}") from None
    if not isinstance(spec, dict):
        raise UnreadableError(f"the spec {path} is not a mapping")
    return spec


def _summary(
    shown: list[Difference], unresolved: list[Difference], deliberate: list[Difference], every: bool
) -> str:
    counts: dict[str, int] = {}
    for item in shown:
        counts[item.kind] = counts.get(item.kind, 0) + 1
    by_kind = ", ".join(f"{kind} {count}" for kind, count in sorted(counts.items())) or "no differences"
    hidden = "" if every or not deliberate else f"; {len(deliberate)} deliberate left out (--all shows them)"
    return f"{by_kind}; {len(unresolved)} unresolved{hidden}"
