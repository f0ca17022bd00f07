"""Canned answers: bodies a test gives (a recorded payload, a real service's answer) that the
sandbox serves for an operation in place of its own data.

They go through everything else as any answer does: the token is checked, faults and the throttle
apply, and the body is rendered as JSON or DRF XML as the request asks. So a test can feed the
client what a real deployment sends (``../shared/realdata``) and see what the SDK makes of it:
``client.drift()`` names what the spec does not describe.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from ._replies import Reply

__all__ = ["CannedAnswers"]


class CannedAnswers:
    """Bodies queued per operation (``"policies.list"``): each request of the operation takes the
    next one; when none is left, the operation's own handler answers again."""

    def __init__(self, operations: Iterable[str]) -> None:
        self._operations = frozenset(operations)
        self._queued: dict[str, deque[Reply]] = {}
        self._lock = threading.Lock()

    def add(
        self,
        operation: str,
        *bodies: Any,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        path_params: Mapping[str, str] | None = None,
    ) -> None:
        """Answer the next requests of ``operation`` with ``bodies``, one request each, in order,
        with ``status`` and ``headers``. A body is JSON-shaped data (None: an empty body).
        ``path_params`` (``{"catalog_uuid": ...}``) keeps them for the requests whose path
        parameters are these (one catalog's contents among many); they are served before the
        bodies queued for every request of the operation.

        Raises ``ValueError`` for an operation the sandbox does not serve.
        """
        if operation not in self._operations:
            known = ", ".join(sorted(self._operations))
            raise ValueError(f"unknown operation {operation!r}; the sandbox serves {known}")
        if not 100 <= status <= 599:
            raise ValueError(f"status must be an HTTP status (100-599), got {status!r}")
        replies = [Reply(body, status, dict(headers or {})) for body in bodies]
        key = _key(operation, path_params)
        with self._lock:
            self._queued.setdefault(key, deque()).extend(replies)

    def take(self, operation: str, path_params: Mapping[str, str] | None = None) -> Reply | None:
        """The next canned answer of ``operation`` for a request with these path parameters (those
        kept for them first), or None to let its handler answer."""
        with self._lock:
            for key in (_key(operation, path_params), operation) if path_params else (operation,):
                queued = self._queued.get(key)
                if queued:
                    return queued.popleft()
            return None

    def pending(self, operation: str | None = None) -> int:
        """Canned answers not served yet (of one operation, or of all)."""
        with self._lock:
            if operation is not None:
                return sum(
                    len(queued) for key, queued in self._queued.items() if key.split(" ")[0] == operation
                )
            return sum(len(queued) for queued in self._queued.values())

    def clear(self) -> None:
        """Drop every canned answer not served yet."""
        with self._lock:
            self._queued.clear()


def _key(operation: str, path_params: Mapping[str, str] | None) -> str:
    """Where canned answers are queued: by operation, and by path parameters when kept for some."""
    if not path_params:
        return operation
    return f"{operation} " + "&".join(f"{name}={value}" for name, value in sorted(path_params.items()))
