"""``client.token_customers()``: which enterprise customers the client's token serves.

The services decide what a token may reach from its ``roles`` claim (edx-rbac, which every service
behind the gateway uses): a list of ``role:context`` entries, the context of an enterprise role
being a customer's uuid, or ``*`` for every customer (an operator's token). The token issued to a
client ties it to its customer (the reference, *Authentication*), so its claims are where a
program finds the customer uuid it passes to ``policies.list``, ``learner_summary.list``... Reading
them sends nothing but the token request, if the client holds no token yet.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Final

from .._transport.transport import Transport
from ..errors import ResponseDecodeError

__all__ = ["ALL_CUSTOMERS", "TokenIdentity", "customers_in_claims"]

ALL_CUSTOMERS: Final = "*"
"""The context of a role held for every customer (edx-rbac's ``ALL_ACCESS_CONTEXT``)."""
ROLE_PREFIX: Final = "enterprise_"
"""The enterprise roles (``enterprise_admin``, ``enterprise_learner``, ``enterprise_openedx_operator``...),
whose contexts are customers; other roles' contexts name other things."""


class TokenIdentity:
    """Gives a client ``token_customers()``."""

    _transport: Transport

    async def token_customers(self) -> dict[str, list[str]]:
        """The enterprise customers the client's token serves: each customer's uuid, with the roles
        the token holds for it (``{"<uuid>": ["enterprise_admin"]}``), in the token's order.

        Read from the token's ``roles`` claim, as the services read it to let a request through;
        ``"*"`` stands for every customer (an operator's token). The token is fetched first if the
        client holds none; nothing else is sent. Raises ``ResponseDecodeError`` when the issuer's
        token is not a JWT whose claims can be read (never showing the token).
        """
        token = await self._transport.tokens.token()
        return customers_in_claims(_claims(token))


def customers_in_claims(claims: dict[str, object]) -> dict[str, list[str]]:
    """The customers of a token's decoded claims, with their roles (see ``token_customers``)."""
    roles = claims.get("roles", [])
    customers: dict[str, list[str]] = {}
    for entry in roles if isinstance(roles, list) else ():
        if not isinstance(entry, str):
            continue
        role, _, context = entry.partition(":")
        if role.startswith(ROLE_PREFIX) and context:
            held = customers.setdefault(context, [])
            if role not in held:
                held.append(role)
    return customers


def _claims(token: str) -> dict[str, object]:
    parts = token.split(".")
    if len(parts) != 3:
        raise ResponseDecodeError(
            "auth.token: the token is not a JWT (header.payload.signature); its claims cannot be read"
        )
    payload = parts[1]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (binascii.Error, ValueError):
        raise ResponseDecodeError("auth.token: the token's claims are not base64url JSON") from None
    if not isinstance(decoded, dict):
        raise ResponseDecodeError("auth.token: the token's claims are not a JSON object")
    return decoded
