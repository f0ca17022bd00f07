"""The server's own words in an error body, in one line: what an error's message shows.

Django REST framework, the OAuth provider, the gateways and the allocation services each put them
elsewhere (``detail``, ``error_description``, ``user_message``, field errors, an HTML page).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._utils.constants import ERROR_DETAIL_LIMIT
from .._utils.redaction import REDACTED

__all__ = ["error_detail"]


_TAG = re.compile(rf"(?!{re.escape(REDACTED)})<[^>]+>")
"""Markup to drop from an error's words (an HTML page's tags), never the mark of a hidden secret."""
_DETAIL_KEYS = (
    "user_message",
    "detail",
    "error_description",
    "error",
    "error_message",
    "message",
    "errors",
    "non_field_errors",
)
"""Keys whose value is the reason itself, most human first (``user_message`` of an allocation
refusal before its ``detail``); other keys are field errors, shown as ``field: reason``."""


def error_detail(body: Any) -> str:
    """The server's own words from an error body, in one line."""
    text = _detail_text(body)
    text = " ".join(_TAG.sub(" ", text).split())
    return text if len(text) <= ERROR_DETAIL_LIMIT else text[: ERROR_DETAIL_LIMIT - 3] + "..."


def _detail_text(body: Any) -> str:
    if body is None:
        return ""
    if isinstance(body, str):
        return body
    if isinstance(body, list):
        return "; ".join(filter(None, (_detail_text(item) for item in body)))
    if isinstance(body, dict):
        for key in _DETAIL_KEYS:
            if body.get(key):
                return _detail_text(body[key])
        return "; ".join(_field_errors(body))
    return str(body)


def _field_errors(body: Mapping[str, Any]) -> list[str]:
    """Django REST framework's field errors (``{"emails": ["Enter a valid email address."]}``), each
    named by its field."""
    found = []
    for key, value in body.items():
        if not isinstance(value, (dict, list)) or not (text := _detail_text(value)):
            continue
        found.append(f"{key}: {text}")
    return found
