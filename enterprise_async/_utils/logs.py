"""``ENTERPRISE_LOG=info|debug``: turn on the ``enterprise_async`` logger from the environment.

Set, it gives the logger that level and a handler writing to stderr (records still reach the
application's own handlers too), so a user sees the SDK at work without writing logging code.
``info`` shows retries, ``debug`` adds one record per answer (method, path,
status, time, attempt, request id). The handler scrubs anything shaped like a token from what it
writes, on top of the SDK's own rule that no record carries a token or a secret.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import warnings

__all__ = ["LOG_ENVIRONMENT", "RedactingFilter", "configure_logging_from_env"]

LOG_ENVIRONMENT = "ENTERPRISE_LOG"
"""The environment variable read at import: ``info`` or ``debug`` (any case)."""

_LEVELS = {"info": logging.INFO, "debug": logging.DEBUG}
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# A JWT (three base64url parts, the first an encoded JSON header) and the credentials of a
# header or a form, wherever they would appear in a message.
_SECRETS = (
    (re.compile(r"eyJ[\w-]+\.[\w-]+\.[\w-]*"), "<redacted>"),
    (re.compile(r"\b(JWT|Bearer|Basic)\s+[\w\-.~+/=]+", re.IGNORECASE), r"\1 <redacted>"),
    (re.compile(r"(client_secret|access_token|password)=[^&\s]+", re.IGNORECASE), r"\1=<redacted>"),
)


class RedactingFilter(logging.Filter):
    """Replaces token-shaped text in a record's message before a handler writes it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        scrubbed = redact(message)
        if scrubbed != message:
            record.msg, record.args = scrubbed, None
        return True


def redact(text: str) -> str:
    """``text`` with tokens and secrets replaced by ``<redacted>``."""
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


def configure_logging_from_env() -> int | None:
    """Apply ``ENTERPRISE_LOG``; the level set, or None when the variable is unset or empty.

    An unknown value is reported with a warning and ignored, so that a typo never stops a program.
    """
    value = os.environ.get(LOG_ENVIRONMENT, "").strip().lower()
    if not value:
        return None
    level = _LEVELS.get(value)
    if level is None:
        warnings.warn(
            f"{LOG_ENVIRONMENT}={value!r} is not 'info' or 'debug'; the SDK's logging is left as it is",
            stacklevel=2,
        )
        return None
    logger = logging.getLogger("enterprise_async")
    logger.setLevel(level)
    if not any(getattr(handler, "_enterprise_env", False) for handler in logger.handlers):
        logger.addHandler(_stderr_handler())
    return level


def _stderr_handler() -> logging.Handler:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(_FORMAT))
    handler.addFilter(RedactingFilter())
    handler._enterprise_env = True  # type: ignore[attr-defined]  # marks the handler this module added
    return handler
