"""What an endpoint answers: a ``Reply`` (status, JSON-shaped data, headers), or an ``ApiError``
raised anywhere below it. The server renders both as JSON or DRF XML, as the request asks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import field, frozen

__all__ = ["ApiError", "Reply", "not_found"]


@frozen
class Reply:
    """A response before rendering. ``data`` None means an empty body."""

    data: Any
    status: int = 200
    headers: Mapping[str, str] = field(factory=dict)


class ApiError(Exception):
    """An error response: raising it anywhere in a handler answers ``status`` with ``body``."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(f"{status}: {body!r}")
        self.reply = Reply(body, status, headers or {})


def not_found(what: str = "Not found.") -> ApiError:
    """The 404 of Django REST framework."""
    return ApiError(404, {"detail": what})
