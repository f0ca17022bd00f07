"""The token issuer: client-credentials grants, JWT-shaped tokens, expiry, and verification.

Tokens look like the real ones (``header.payload.signature``, base64url, HS256 over a key derived
from the seed) and carry the client, a user id, the customer (as the services' tokens do: an
``enterprise_admin:<uuid>`` entry of the ``roles`` claim) and the validity period. Validity is
decided by the issuer's own table on the monotonic clock, so ``expire_all()`` and short lifetimes
(``token_lifetime=2.0``) behave exactly, whatever the wall clock does.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

import orjson
from attrs import frozen

__all__ = ["AuthFailure", "TokenIssuer", "fingerprint"]

TOKEN_SCOPE = "user_id email profile read write"
TOKEN_ROLE = "enterprise_admin"
"""The role the token holds for its customer, written ``role:customer_uuid`` in its ``roles`` claim as
edx-rbac writes a system-wide role (``create_role_auth_claim_for_user``), which the services read."""
_TOKENS_KEPT = 256
"""Tokens whose id is kept once read (``TokenIssuer.check``)."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def fingerprint(token: str) -> str:
    """A short, one-way name for a token: enough to tell tokens apart in a log, never the token."""
    return hashlib.sha256(token.encode()).hexdigest()[:12]


@frozen
class AuthFailure:
    """Why a request or a grant was refused: the status and the body to answer with."""

    status: int
    body: dict[str, Any]
    expired: bool = False
    """Whether the token was ours but its lifetime had run out (each service words that its own way)."""


class TokenIssuer:
    """Issues and checks the tokens of one sandbox's single client."""

    def __init__(
        self,
        *,
        client_id: str,
        client_secret: str,
        customer_uuid: str,
        user_id: int,
        lifetime: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if lifetime <= 0:
            raise ValueError("token_lifetime must be a positive number of seconds")
        self.client_id = client_id
        self._secret = client_secret
        self._customer_uuid = customer_uuid
        self._user_id = user_id
        self.lifetime = lifetime
        self._clock = clock
        self._key = hashlib.sha256(f"sandbox-signing:{client_secret}".encode()).digest()
        self._read: dict[str, str] = {}
        """The id each token read lately carries ("": none), by the token (its signature checked once)."""
        self._expiry: dict[str, float] = {}
        self.issued = 0
        """Tokens issued so far."""

    def __repr__(self) -> str:
        return f"TokenIssuer(client_id={self.client_id!r}, lifetime={self.lifetime}, issued={self.issued})"

    # ------------------------------------------------------------------ grants

    def grant(self, form: Mapping[str, str]) -> dict[str, Any] | AuthFailure:
        """Answer a token request: the token response, or why it is refused."""
        missing = [name for name in ("grant_type", "client_id", "client_secret") if not form.get(name)]
        if missing:
            return AuthFailure(
                400, {"error": "invalid_request", "error_description": f"Missing {', '.join(missing)}."}
            )
        if form["grant_type"] != "client_credentials":
            return AuthFailure(
                400, {"error": "unsupported_grant_type", "error_description": "Use client_credentials."}
            )
        if form.get("token_type", "jwt").lower() != "jwt":
            return AuthFailure(
                400, {"error": "invalid_request", "error_description": "token_type must be jwt."}
            )
        if not (
            hmac.compare_digest(form["client_id"].encode(), self.client_id.encode())
            and hmac.compare_digest(form["client_secret"].encode(), self._secret.encode())
        ):
            return AuthFailure(
                401, {"error": "invalid_client", "error_description": "Client authentication failed."}
            )
        return self._issue()

    def _issue(self) -> dict[str, Any]:
        now_wall = time.time()
        token_id = secrets.token_hex(8)
        header = _b64(orjson.dumps({"alg": "HS256", "typ": "JWT"}))
        claims = {
            "iss": "enterprise-sandbox",
            "aud": "enterprise-api",
            "client_id": self.client_id,
            "user_id": self._user_id,
            "roles": [f"{TOKEN_ROLE}:{self._customer_uuid}"],
            "scopes": TOKEN_SCOPE.split(),
            "iat": int(now_wall),
            "exp": int(now_wall + self.lifetime),
            "jti": token_id,
        }
        payload = _b64(orjson.dumps(claims))
        signature = _b64(hmac.new(self._key, f"{header}.{payload}".encode(), hashlib.sha256).digest())
        self._forget_expired()
        self._expiry[token_id] = self._clock() + self.lifetime
        self.issued += 1
        return {
            "access_token": f"{header}.{payload}.{signature}",
            "token_type": "JWT",
            "expires_in": str(max(1, math.floor(self.lifetime))),
            "scope": TOKEN_SCOPE,
        }

    def _forget_expired(self) -> None:
        now = self._clock()
        for token_id in [token_id for token_id, expiry in self._expiry.items() if expiry <= now - 3600]:
            del self._expiry[token_id]

    @property
    def customer_uuid(self) -> str:
        """The enterprise customer every token of this issuer is tied to."""
        return self._customer_uuid

    # ------------------------------------------------------------------ checks

    def check(self, authorization: str | None) -> AuthFailure | None:
        """None when the ``Authorization`` header carries a live token of this issuer, else the 401."""
        if not authorization:
            return _unauthorized("Authentication credentials were not provided.")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "jwt" or not token.strip():
            return _unauthorized("Authentication credentials were not provided.")
        token = token.strip()
        token_id = self._read.get(token)
        if token_id is None:
            if len(self._read) >= _TOKENS_KEPT:
                self._read.clear()
            token_id = self._read[token] = self._token_id(token) or ""
        expiry = self._expiry.get(token_id) if token_id else None
        if expiry is None:
            return _unauthorized("Invalid token.")
        if self._clock() >= expiry:
            return AuthFailure(401, {"detail": "Signature has expired."}, expired=True)
        return None

    def _token_id(self, token: str) -> str | None:
        parts = token.split(".")
        if len(parts) != 3:
            return None
        header, payload, signature = parts
        expected = _b64(hmac.new(self._key, f"{header}.{payload}".encode(), hashlib.sha256).digest())
        if not hmac.compare_digest(signature, expected):
            return None
        try:
            claims = orjson.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        except (ValueError, orjson.JSONDecodeError):
            return None
        token_id = claims.get("jti") if isinstance(claims, dict) else None
        return token_id if isinstance(token_id, str) else None

    def expire_all(self) -> None:
        """Make every token issued so far expired, as if their lifetime had run out now."""
        now = self._clock()
        for token_id in self._expiry:
            self._expiry[token_id] = now


def _unauthorized(detail: str) -> AuthFailure:
    return AuthFailure(401, {"detail": detail})
