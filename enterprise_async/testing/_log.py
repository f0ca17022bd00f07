"""The request log: what reached the sandbox, for assertions, with every credential redacted.

An entry keeps the method, path, query, headers and body of a request, the status answered and
the fault applied. The ``Authorization`` header keeps its scheme and loses the token
(``JWT <redacted>``); a short one-way ``token_fingerprint`` still tells tokens apart. A token
request's ``client_secret`` is redacted from the body, and so is any other occurrence of the
secret. The log holds the latest ``limit`` entries, so a benchmark or a soak run stays bounded.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator, Mapping
from urllib.parse import parse_qsl, urlencode

import orjson
from attrs import frozen

from .._utils.json_types import JSONValue
from ._tokens import fingerprint

__all__ = ["LoggedRequest", "RequestLog", "REDACTED"]

REDACTED = "<redacted>"
BODY_LIMIT = 65_536
"""Bytes of a request body kept in the log."""


@frozen
class LoggedRequest:
    """One request as the sandbox saw it, credentials redacted."""

    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    headers: Mapping[str, str]
    body: str | None
    status: int | None
    """The status answered; None when the connection was dropped."""
    fault: str | None
    """The fault applied (``"503"``, ``"drop"``, ``"latency"``...), if any."""
    token_fingerprint: str | None
    started: float
    """``time.monotonic()`` when the request arrived."""
    operation: str | None = None
    """The operation of the spec that the request's method and path name (``"catalogs.list"``);
    None for the token endpoint and for paths no operation serves."""

    def query_value(self, name: str) -> str | None:
        """The first value of a query parameter."""
        return next((value for key, value in self.query if key == name), None)

    def json(self) -> JSONValue:
        """The body decoded as JSON."""
        decoded: JSONValue = orjson.loads(self.body or "null")
        return decoded


class RequestLog:
    """The latest requests, oldest first. Iterate it, index it, or ``find`` by method and path."""

    def __init__(self, *, secret: str, limit: int = 10_000) -> None:
        self._entries: deque[LoggedRequest] = deque(maxlen=limit)
        self._secret = secret
        self.enabled = limit > 0

    def __repr__(self) -> str:
        return f"RequestLog({len(self._entries)} entries)"

    def __iter__(self) -> Iterator[LoggedRequest]:
        return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> LoggedRequest:
        return self._entries[index]

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()

    def find(
        self, method: str | None = None, path: str | None = None, *, operation: str | None = None
    ) -> list[LoggedRequest]:
        """Entries with this method and/or path (an exact path, or a prefix ending in ``*``), and/or
        served by this operation (``"subscriptions.bulk_revoke"``)."""
        return [
            entry
            for entry in self._entries
            if _matches(entry, method, path) and operation in (None, entry.operation)
        ]

    def record(
        self,
        *,
        method: str,
        path: str,
        query: tuple[tuple[str, str], ...],
        headers: Mapping[str, str],
        body: bytes | None,
        status: int | None,
        fault: str | None,
        started: float | None = None,
        operation: str | None = None,
    ) -> None:
        """Keep one request, credentials redacted."""
        if not self.enabled:
            return
        redacted, token = self._headers(headers)
        self._entries.append(
            LoggedRequest(
                method=method,
                path=path,
                query=query,
                headers=redacted,
                body=self._body(body, headers.get("Content-Type", "")),
                status=status,
                fault=fault,
                token_fingerprint=token,
                started=started if started is not None else time.monotonic(),
                operation=operation,
            )
        )

    def _headers(self, headers: Mapping[str, str]) -> tuple[dict[str, str], str | None]:
        kept: dict[str, str] = {}
        token = None
        for name, value in headers.items():
            if name.lower() in ("authorization", "proxy-authorization"):
                scheme, _, credential = value.partition(" ")
                token = fingerprint(credential.strip()) if credential.strip() else None
                value = f"{scheme} {REDACTED}" if credential else REDACTED
            elif name.lower() == "cookie":
                value = REDACTED
            kept[name] = self._scrub(value)
        return kept, token

    def _body(self, body: bytes | None, content_type: str) -> str | None:
        if not body:
            return None
        text = body[:BODY_LIMIT].decode("utf-8", "replace")
        if content_type.startswith("application/x-www-form-urlencoded"):
            pairs = [
                (name, REDACTED if name == "client_secret" else value)
                for name, value in parse_qsl(text, keep_blank_values=True)
            ]
            text = urlencode(pairs)
        return self._scrub(text)

    def _scrub(self, text: str) -> str:
        return text.replace(self._secret, REDACTED) if self._secret else text


def _matches(entry: LoggedRequest, method: str | None, path: str | None) -> bool:
    if method is not None and entry.method != method.upper():
        return False
    if path is None:
        return True
    if path.endswith("*"):
        return entry.path.startswith(path[:-1])
    return entry.path == path
