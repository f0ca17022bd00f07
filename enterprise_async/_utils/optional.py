"""The extras: what ``pip install enterprise-async`` leaves out, and the one line that says how to
add it when a piece that needs it is used.

The client needs only its core dependencies; the command line (``[cli]``), the sandbox
(``[sandbox]``), the fleet's Redis pieces (``[redis]``) and native tracing (``[otel]``) each
bring their own. A piece whose extra is missing raises ``MissingExtraError`` (an ``ImportError``)
whose message is the install command, instead of a traceback from deep inside an import.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from typing import Final

__all__ = ["EXTRAS", "MissingExtraError", "install_command", "missing_modules", "require_extra"]

DISTRIBUTION: Final = "enterprise-async"

EXTRAS: Final[Mapping[str, tuple[str, ...]]] = {
    "cli": ("click", "rich"),
    "sandbox": ("jsonschema",),
    "redis": ("redis", "arq"),
    "otel": ("opentelemetry",),
}
"""Each extra's importable modules, as pyproject's ``[project.optional-dependencies]`` installs them."""

PURPOSES: Final[Mapping[str, str]] = {
    "cli": "the command line",
    "sandbox": "the sandbox",
    "redis": "the fleet (Redis token cache, rate budget, export queue)",
    "otel": "native tracing",
}


class MissingExtraError(ImportError):
    """A piece of the SDK was used without the extra it needs; the message names the install command."""

    def __init__(self, extra: str, missing: list[str]) -> None:
        super().__init__(
            f"{PURPOSES[extra]} needs the [{extra}] extra ({', '.join(missing)} not installed): "
            f"{install_command(extra)}",
            name=missing[0],
        )
        self.extra = extra
        self.missing = missing


def install_command(extra: str) -> str:
    """The command that installs ``extra``: ``pip install 'enterprise-async[cli]'``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here (none when it is installed)."""
    return [module for module in EXTRAS[extra] if not _importable(module)]


def require_extra(extra: str) -> None:
    """Raise ``MissingExtraError`` unless every module of ``extra`` can be imported."""
    missing = missing_modules(extra)
    if missing:
        raise MissingExtraError(extra, missing)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or ``sys.modules[name] = None``
        return False
