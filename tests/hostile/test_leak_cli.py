"""What the command line prints against a server that echoes credentials: one line naming the
error, and no form of the secret or of a token."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from enterprise_async.cli import cli as command_line
from tests.hostile.leak_server import (
    CATALOGS,
    CLIENT_ID,
    TOKEN_PATH,
    HostileServer,
    echo_authorization,
    echo_form,
    serving,
)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[HostileServer]:
    with serving() as running:
        monkeypatch.setenv("ENTERPRISE_CLIENT_ID", CLIENT_ID)
        monkeypatch.setenv("ENTERPRISE_CLIENT_SECRET", running.client_secret)
        monkeypatch.setenv("ENTERPRISE_BASE_URL", running.base_url)
        monkeypatch.delenv("ENTERPRISE_AUTH_URL", raising=False)
        yield running


def printed(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(command_line, list(args))
    return result.exit_code, result.stdout + result.stderr


def test_an_echoed_token_request_prints_no_form_of_the_secret(server: HostileServer) -> None:
    server.route("POST", TOKEN_PATH)(echo_form)
    exit_code, output = printed("catalogs", "list")
    assert exit_code == 1
    assert "AuthenticationError" in output
    assert len(output.strip().splitlines()) == 1
    for form in server.shown_forms():
        assert form not in output


def test_an_echoed_authorization_header_prints_no_token(server: HostileServer) -> None:
    server.route("GET", CATALOGS)(echo_authorization)
    exit_code, output = printed("catalogs", "list")
    assert exit_code == 1
    assert "PermissionDeniedError" in output
    assert "you sent JWT <redacted>" in output
    assert server.tokens
    for form in server.shown_forms():
        assert form not in output
