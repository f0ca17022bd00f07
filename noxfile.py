"""Sessions: `nox` runs lint, typecheck, drift (codegen --check), conformance (schemathesis
against the sandbox) and the tests, last, so that a run ends with pytest's summary: exactly what CI runs.

On demand: `nox -s codegen` regenerates from the spec, `nox -s bench` runs the benchmarks,
`nox -s soak` the long fault-injection run.
"""

from __future__ import annotations

import nox

nox.options.sessions = ["lint", "typecheck", "drift", "conformance", "tests"]
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "venv"

DEV = ".[dev]"


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: lint and formatting."""
    session.install("ruff==0.17.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the package."""
    session.install("-e", DEV)
    session.run("mypy", "--strict", "enterprise_async")


@nox.session
def codegen(session: nox.Session) -> None:
    """Regenerate enterprise_async/_generated from spec/ (`-- --check` fails on drift instead)."""
    session.install("-e", DEV)
    session.run("python", "-m", "codegen", *session.posargs)


@nox.session
def drift(session: nox.Session) -> None:
    """Fail when the committed generated code differs from a fresh generation."""
    session.install("-e", DEV)
    session.run("python", "-m", "codegen", "--check")


@nox.session
def tests(session: nox.Session) -> None:
    """The whole test suite (warnings are errors)."""
    session.install("-e", DEV)
    session.run("pytest", *session.posargs)


@nox.session
def conformance(session: nox.Session) -> None:
    """schemathesis against a running sandbox: it answers as spec/openapi.yaml says."""
    session.install("-e", ".[conformance]")
    session.run("python", "tests/testing/conformance.py", *session.posargs)


@nox.session
def soak(session: nox.Session) -> None:
    """Export 20,000 catalog items under 10% faults and expiring tokens, in JSON and XML; prints a summary."""
    session.install("-e", DEV)
    session.env["ENTERPRISE_SOAK_ITEMS"] = session.env.get("ENTERPRISE_SOAK_ITEMS", "20000")
    session.run("pytest", "tests/test_soak.py", "-q", "-p", "no:cacheprovider", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """The benchmarks (tests/bench): prints the results table and writes bench-results.md.

    About ten minutes; `nox -s bench -- --rounds 3 --only B2,B3` for a part of it.
    """
    session.install("-e", DEV)
    session.run("python", "-m", "tests.bench", *session.posargs)
