"""Keep secrets out of everything the SDK shows: messages, error bodies and headers, log records, reprs.

A ``Redactor`` knows a client's secrets (the client secret, a password in its URLs, and every token
it has held) and hides each of them in every form an echo can carry it in:

- as written;
- percent- and form-encoded (``p%40ss%2Bw%2Frd``, ``p%40ss+w%2Frd``; hex digits in either case);
- JSON-escaped (``\\u00e9``, ``\\/``) and HTML/XML-escaped (``&amp;``);
- base64 (standard or URL-safe alphabet), whole or inside a longer value such as a Basic
  ``Authorization`` header, at any of the three byte alignments.

Short secrets are hidden only as whole values. A secret shorter than ``SHORT_SECRET_LENGTH``
characters is replaced only where no letter or digit touches it on either side: ``client_secret=s&``
hides ``s``, while ``/enterprise/v2`` stays as it is. Replacing every ``s`` inside other words would
mangle each message and, by the gaps it leaves, spell the secret out. Longer secrets (and every
token the issuer hands out) are hidden wherever they occur, and base64 is looked for only for them:
a base64 fragment of a few characters occurs by chance in ordinary text.

Whatever the secrets, a password in a URL (``https://user:pw@host``) and anything shaped like a JWT
are hidden too, so a token the client never held (another process's, echoed by a server) does not
show either.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

from multidict import CIMultiDict
from yarl import URL

from .xml import TextObject

__all__ = ["REDACTED", "SHORT_SECRET_LENGTH", "Redactor", "redact_url", "shown_url"]

REDACTED = "<redacted>"
"""What a hidden secret is replaced with."""

SHORT_SECRET_LENGTH = 8
"""Secrets shorter than this are hidden only as whole values (see the module's docstring)."""

MAX_TOKENS_KEPT = 32
"""Tokens a redactor remembers besides the client secret; older ones have long expired."""

_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:?#]*:)[^/@\s?#]*@")
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")
_PERCENT = re.compile(r"%[0-9A-F]{2}")
_BASE64_ALIGNMENTS = (0, 1, 2)
_MIN_BASE64_FRAGMENT = 8


def redact_url(url: object) -> str:
    """A URL (or any text holding URLs) with the password of each hidden: ``https://u:<redacted>@h``."""
    return _URL_PASSWORD.sub(lambda match: f"{match['head']}{REDACTED}@", str(url))


def shown_url(url: URL) -> str:
    """A request's URL as messages show it: scheme, host, port and path, without the user and
    password, the query or the fragment (a query value may carry a secret or a learner's e-mail)."""
    if url.user is None and url.password is None and not url.raw_query_string and not url.raw_fragment:
        return str(url)
    return str(url.with_user(None).with_query(None).with_fragment(None))


class Redactor:
    """The secrets of one client, and the means to hide them in any text or decoded body.

    Cheap to create; the pattern is built on first use after a secret is added.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: list[str] = []
        self._tokens: list[str] = []
        self._pattern: re.Pattern[str] | None = None
        for secret in secrets:
            self.add_secret(secret)

    def add_secret(self, secret: str | None) -> None:
        """Hide ``secret`` (the client secret, a URL password) for the life of this redactor."""
        if secret and secret not in self._secrets:
            self._secrets.append(secret)
            self._pattern = None

    def add_token(self, token: str | None) -> None:
        """Hide ``token`` too; only the latest ``MAX_TOKENS_KEPT`` tokens are remembered."""
        if not token or token in self._tokens:
            return
        self._tokens.append(token)
        del self._tokens[:-MAX_TOKENS_KEPT]
        self._pattern = None

    def text(self, text: str) -> str:
        """``text`` with every form of every secret, URL passwords and JWTs replaced by ``REDACTED``."""
        if not text:
            return text
        pattern = self._compiled()
        if pattern is not None:
            text = pattern.sub(REDACTED, text)
        return _JWT.sub(REDACTED, redact_url(text))

    def data(self, value: Any) -> Any:
        """A decoded body (strings, lists, mappings, in any nesting) with its strings redacted. An
        object read from XML stays one (``TextObject``): its leaves are the renderer's text, which
        the decoder reads as the spec says (``"404"`` where an integer is due)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            redacted = {self.data(key): self.data(item) for key, item in value.items()}
            return TextObject(redacted) if value.__class__ is TextObject else redacted
        if isinstance(value, (list, tuple)):
            return type(value)(self.data(item) for item in value)
        return value

    def headers(self, headers: Mapping[str, str]) -> CIMultiDict[str]:
        """Response headers with their values redacted, every one kept (repeated ones included)."""
        items = headers.items()
        return CIMultiDict((name, self.text(value)) for name, value in items)

    def __repr__(self) -> str:  # neither the secrets nor their number of characters
        return f"Redactor({len(self._secrets)} secrets, {len(self._tokens)} tokens)"

    def _compiled(self) -> re.Pattern[str] | None:
        if self._pattern is None and (self._secrets or self._tokens):
            self._pattern = _pattern_of([*self._secrets, *self._tokens])
        return self._pattern


def _pattern_of(secrets: list[str]) -> re.Pattern[str]:
    long_forms: set[str] = set()
    short_forms: set[str] = set()
    for secret in secrets:
        if len(secret) >= SHORT_SECRET_LENGTH:
            long_forms.update(_forms(secret))
            long_forms.update(_base64_fragments(secret))
        else:
            short_forms.update(_forms(secret))
            short_forms.update(_base64_whole(secret))
    alternatives = []
    if long_forms:
        alternatives.append(_alternation(long_forms))
    if short_forms:
        alternatives.append(rf"(?<![A-Za-z0-9]){_alternation(short_forms)}(?![A-Za-z0-9])")
    return re.compile("|".join(alternatives))


def _alternation(forms: set[str]) -> str:
    ordered = sorted(forms, key=lambda form: (-len(form), form))  # the longest form wins
    return "(?:" + "|".join(re.escape(form) for form in ordered) + ")"


def _forms(secret: str) -> set[str]:
    """The secret as text may carry it: literal, percent/form-encoded, JSON- and HTML-escaped."""
    encoded = {quote(secret, safe=""), quote(secret), quote_plus(secret), quote_plus(secret, safe="/")}
    encoded |= {_PERCENT.sub(lambda match: match[0].lower(), form) for form in encoded}
    escaped = {
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        html.escape(secret),
        html.escape(secret, quote=False),
        " ".join(secret.split()),  # as a one-line message collapses its blanks
    }
    escaped |= {form.replace("/", "\\/") for form in escaped}
    return {form for form in {secret, *encoded, *escaped} if form}


def _base64_whole(secret: str) -> set[str]:
    raw = secret.encode()
    forms = {base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()}
    return forms | {form.rstrip("=") for form in forms}


def _base64_fragments(secret: str) -> set[str]:
    """The characters of the secret's base64 that do not depend on the bytes around it.

    Encoded inside a longer value, the secret starts at one of three byte alignments; for each,
    the characters that differ when the surrounding bytes change are left out of the fragment.
    """
    raw = secret.encode()
    fragments = _base64_whole(secret)
    for alignment in _BASE64_ALIGNMENTS:
        low = base64.b64encode(b"\x00" * alignment + raw + b"\x00\x00").decode()
        high = base64.b64encode(b"\xff" * alignment + raw + b"\xff\xff").decode()
        stable = _stable_run(low, high)
        if len(stable) >= _MIN_BASE64_FRAGMENT:
            fragments |= {stable, stable.translate(str.maketrans("+/", "-_"))}
    return fragments


def _stable_run(low: str, high: str) -> str:
    """The longest run of characters that two encodings of the same secret share, position by position."""
    best, current = "", []
    for left, right in zip(low, high, strict=True):
        if left == right:
            current.append(left)
            continue
        best = max(best, "".join(current), key=len)
        current = []
    return max(best, "".join(current), key=len)
