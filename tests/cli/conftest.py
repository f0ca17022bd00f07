"""Fixtures of the command line's tests.

``served`` runs a sandbox in a background thread, as another process would, and points the
environment at it: the commands then run exactly as a user runs them, credentials from the
environment, while the test keeps the sandbox's state, faults and request log at hand. ``cli``
runs a command with click's runner and checks, for every command a test runs, that neither the
client secret nor any token issued meanwhile appears in its output, and that the output is one
tools can read: no line of it ends in a space.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Mapping
from typing import Any

import click
import pytest
from attrs import frozen
from click.testing import CliRunner

from enterprise_async.cli import cli as command_line
from enterprise_async.testing import Sandbox, TokenIssuer

ENVIRONMENT = (
    "ENTERPRISE_CLIENT_ID",
    "ENTERPRISE_CLIENT_SECRET",
    "ENTERPRISE_BASE_URL",
    "ENTERPRISE_AUTH_URL",
)
JWT_PREFIX = "eyJ"
"""Every JWT starts with the base64 of ``{"``."""


@frozen
class Ran:
    """What a command did: its exit code and what it wrote to each stream."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def error_lines(self) -> list[str]:
        return self.stderr.splitlines()


class CommandLine:
    """Runs ``enterprise-async`` commands in-process and guards their output against leaks."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.secrets = {Sandbox(seed=0).client_secret}

    def __call__(self, *args: str) -> Ran:
        return self.invoke(command_line, *args)

    def invoke(self, root: click.Group, *args: str) -> Ran:
        """Run ``args`` with another command tree (one built from a table of the test's own)."""
        result = CliRunner().invoke(root, list(args), catch_exceptions=False)
        ran = Ran(result.exit_code, result.stdout, result.stderr)
        self.assert_no_credentials(ran.stdout + ran.stderr)
        assert_no_trailing_spaces(ran)
        return ran

    def assert_no_credentials(self, text: str) -> None:
        for secret in self.secrets:
            assert secret not in text, "the client secret was printed"
        for token in self.tokens:
            assert token not in text, "a token was printed"
            assert token.split(".")[-1] not in text, "a token's signature was printed"
        assert JWT_PREFIX not in text, "something shaped like a JWT was printed"


def assert_no_trailing_spaces(ran: Ran) -> None:
    """Output to a file or a pipe is for tools too: no line ends in spaces (or tabs)."""
    for stream, text in (("stdout", ran.stdout), ("stderr", ran.stderr)):
        padded = [line for line in text.splitlines() if line != line.rstrip(" \t")]
        assert not padded, f"{len(padded)} line(s) of {stream} end in spaces, the first: {padded[0]!r}"


@pytest.fixture
def issued_tokens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every access token a sandbox issues during the test (served or embedded by ``--sandbox``)."""
    tokens: list[str] = []
    grant = TokenIssuer.grant

    def recording_grant(self: TokenIssuer, form: Mapping[str, str]) -> Any:
        answer = grant(self, form)
        if isinstance(answer, dict):
            tokens.append(answer["access_token"])
        return answer

    monkeypatch.setattr(TokenIssuer, "grant", recording_grant)
    return tokens


@pytest.fixture
def cli(issued_tokens: list[str]) -> CommandLine:
    return CommandLine(issued_tokens)


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ENTERPRISE_* variable set."""
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, cli: CommandLine) -> Iterator[Sandbox]:
    """A sandbox (seed 0) serving from its own thread, with the environment pointing at it."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="served-sandbox", daemon=True)
    thread.start()
    # The reference profile: the command tests check the commands against every customer's data;
    # tests/testing/test_as_the_services.py checks what the services answer.
    sandbox = Sandbox(seed=0, profile="reference")
    try:
        asyncio.run_coroutine_threadsafe(sandbox.start(), loop).result(timeout=30)
        cli.secrets.add(sandbox.client_secret)
        for name, value in zip(
            ENVIRONMENT,
            (sandbox.client_id, sandbox.client_secret, sandbox.base_url, sandbox.auth_url),
            strict=True,
        ):
            monkeypatch.setenv(name, value)
        yield sandbox
    finally:
        asyncio.run_coroutine_threadsafe(sandbox.stop(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()
