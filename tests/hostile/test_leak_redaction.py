"""The redaction rule: every form of a secret is hidden, a short secret only as a whole value, and
text that carries no secret is left exactly as it was."""

from __future__ import annotations

import base64
import html
import json
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enterprise_async._utils.redaction import REDACTED, SHORT_SECRET_LENGTH, Redactor, redact_url

SECRET = "p@ss+w/rd=1&x~é"
FAST = settings(max_examples=60, deadline=None)
SECRETS = st.text(
    st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=SHORT_SECRET_LENGTH, max_size=40
)


@pytest.mark.parametrize(
    "form",
    [
        SECRET,
        quote(SECRET, safe=""),
        quote(SECRET, safe="").lower(),
        quote_plus(SECRET),
        json.dumps(SECRET)[1:-1],
        json.dumps(SECRET)[1:-1].replace("/", "\\/"),
        html.escape(SECRET),
        base64.b64encode(SECRET.encode()).decode(),
        base64.urlsafe_b64encode(SECRET.encode()).decode().rstrip("="),
    ],
    ids=["literal", "percent", "percent-lower", "form", "json", "json-slash", "html", "base64", "base64url"],
)
def test_every_encoding_of_the_secret_is_hidden(form: str) -> None:
    assert Redactor([SECRET]).text(f"echo: {form}; end") == f"echo: {REDACTED}; end"


@pytest.mark.parametrize("prefix", ["", "a", "ab", "abc", "client:"])
def test_the_secret_is_hidden_inside_a_longer_base64_value(prefix: str) -> None:
    encoded = base64.b64encode(f"{prefix}{SECRET}!".encode()).decode()
    start = -(-len(prefix) // 3) * 4  # the first group holding the secret's bytes alone
    end = (len(prefix) + len(SECRET.encode())) // 3 * 4
    shown = Redactor([SECRET]).text(f"Basic {encoded}")
    assert shown.startswith(f"Basic {encoded[: len(prefix) * 4 // 3]}")
    assert encoded[start:end] not in shown
    assert REDACTED in shown


def test_a_short_secret_is_hidden_as_a_whole_value_only() -> None:
    redactor = Redactor(["s"])
    assert redactor.text("GET /enterprise/v2/enterprise-catalogs failed") == (
        "GET /enterprise/v2/enterprise-catalogs failed"
    )
    assert redactor.text("client_id=a&client_secret=s&token_type=jwt") == (
        f"client_id=a&client_secret={REDACTED}&token_type=jwt"
    )


def test_a_short_secret_path_segment_is_hidden_as_a_whole_value() -> None:
    assert Redactor(["v2"]).text("/enterprise/v2/x and /enterprise/v22/x") == (
        f"/enterprise/{REDACTED}/x and /enterprise/v22/x"
    )


def test_decoded_bodies_are_redacted_at_any_depth_keys_included() -> None:
    body = {"detail": [f"bad {SECRET}"], SECRET: {"nested": (SECRET, 3)}}
    assert Redactor([SECRET]).data(body) == {
        "detail": [f"bad {REDACTED}"],
        REDACTED: {"nested": (REDACTED, 3)},
    }


def test_every_header_is_kept_with_its_value_redacted() -> None:
    headers = Redactor(["token-0123456789"]).headers({"X-Echo": "JWT token-0123456789", "Server": "x"})
    assert list(headers.items()) == [("X-Echo", f"JWT {REDACTED}"), ("Server", "x")]


def test_tokens_learnt_later_are_hidden_too() -> None:
    redactor = Redactor([SECRET])
    assert redactor.text("JWT later-token-0001") == "JWT later-token-0001"
    redactor.add_token("later-token-0001")
    assert redactor.text("JWT later-token-0001") == f"JWT {REDACTED}"


def test_url_passwords_and_jwt_shapes_are_hidden_whatever_the_secrets() -> None:
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
    shown = Redactor().text(f"https://ops:hunter22@api.test/x and JWT {jwt}")
    assert shown == f"https://ops:{REDACTED}@api.test/x and JWT {REDACTED}"
    assert redact_url("redis://:pw@cache:6379/0") == f"redis://:{REDACTED}@cache:6379/0"


def test_a_redactors_repr_shows_neither_secret_nor_length() -> None:
    assert repr(Redactor([SECRET])) == "Redactor(1 secrets, 0 tokens)"


@FAST
@given(secret=SECRETS, before=st.text(max_size=20), after=st.text(max_size=20))
def test_any_long_secret_is_hidden_in_any_surroundings(secret: str, before: str, after: str) -> None:
    redactor = Redactor([secret])
    for form in (secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1]):
        assert form not in redactor.text(before + form + after)


@FAST
@given(secret=st.text(min_size=1, max_size=40), text=st.text(st.characters(codec="ascii"), max_size=80))
def test_text_without_the_secret_is_left_as_it_was(secret: str, text: str) -> None:
    redactor = Redactor([secret])
    if any(form in text for form in (secret, quote(secret, safe=""), quote_plus(secret))):
        return
    if "eyJ" in text or "@" in text or REDACTED in text:
        return
    forms = [json.dumps(secret)[1:-1], html.escape(secret), base64.b64encode(secret.encode()).decode()]
    if any(form in text for form in forms):
        return
    assert redactor.text(text) == text
