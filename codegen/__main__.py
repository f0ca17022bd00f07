"""``python -m codegen [--check]``: regenerate `enterprise_async/_generated/` from the spec;
``python -m codegen compare SCHEMA --service NAME``: hold the spec against a service's document."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

GENERATOR_MODULES = ("yaml", "jinja2", "datamodel_code_generator", "openapi_spec_validator", "ruff")
"""What the generator imports (or runs) beyond the package's own dependencies: the [codegen] extra."""
INSTALL = "pip install -e '.[codegen]'"
"""The command that installs them, in a checkout (`[dev]` has them too)."""


def missing_module() -> str | None:
    """The first of the generator's modules this environment cannot import, if any."""
    for name in GENERATOR_MODULES:
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):  # hidden (None in sys.modules) or half-installed
            found = None
        if found is None:
            return name
    return None


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    missing = missing_module()
    if missing is not None:
        print(
            f"python -m codegen needs the [codegen] extra (no module named {missing!r}): {INSTALL}",
            file=sys.stderr,
        )
        return 2
    if arguments[:1] == ["compare"]:
        from codegen.compare import main as compare

        return compare(arguments[1:])
    from codegen.pipeline import check, generate, write  # the generator's imports are heavy
    from codegen.source import InvalidSpecError

    parser = argparse.ArgumentParser(prog="python -m codegen", description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if the committed output is not fresh")
    options = parser.parse_args(arguments)
    try:
        outputs = generate()
    except InvalidSpecError as invalid:
        for line in invalid.lines:
            print(line, file=sys.stderr)
        print(f"{len(invalid.lines)} problem(s) in the spec; nothing was written", file=sys.stderr)
        return 1
    if options.check:
        stale = check(outputs)
        for path in stale:
            print(f"stale: {_shown(path)} differs from a fresh generation", file=sys.stderr)
        if stale:
            print("run `nox -s codegen` (or `python -m codegen`) and commit the result", file=sys.stderr)
            return 1
        print(f"generated code is fresh ({len(outputs)} modules)")
        return 0
    for path in write(outputs):
        print(f"wrote {_shown(path)}")
    return 0


def _shown(path: Path) -> str:
    from codegen.pipeline import ROOT

    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


if __name__ == "__main__":
    sys.exit(main())
