"""The leak watch: a pytest plugin that fails any test which made the SDK say a secret or a token.

Registered from ``tests/conftest.py`` (``pytest_plugins``), so every pytest process loads it: the
run itself and each xdist worker, which judges the tests it runs. For every phase of every test
(setup, call, teardown) it reads what the phase made visible:

- each record of the ``enterprise_async`` logger (its message, its traceback and any extra
  attributes a structured handler would write), collected by a handler this plugin adds;
- the stdout and stderr pytest captured;
- the failure report's text, which a CI log keeps.

It looks there for the secrets tests register with :func:`watch_for` (the scripted API's and the
hostile server's credentials and the tokens they issue), for anything shaped like a JWT (every
sandbox token is one), and for the sandbox's own client secrets (forty hex digits by default).
A phase that shows one fails, with a report that names where and what kind, never the value.

Nothing of the package is patched: the handler is ordinary logging configuration, as a service
that collects the SDK's records would have.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Generator, Iterable

import pytest

__all__ = ["LeakWatch", "SDK_LOGGER", "hidden", "leaks", "watch_for"]

SDK_LOGGER = "enterprise_async"
JWT = re.compile(r"eyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]+")
"""A JWT: three base64url parts, the first an encoded JSON header (``{"`` is ``eyJ``)."""
SANDBOX_SECRET = re.compile(r"(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])")
"""A sandbox's client secret unless a test gives its own: forty lowercase hex digits
(``Sandbox.client_secret``, derived from the seed)."""
SHORTEST_WATCHED = 4
"""Shorter secrets (``"s"``, ``"id"``) are in every message by chance: tests of those check their own."""

_KNOWN: set[str] = set()
_STANDARD_RECORD_FIELDS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
}


def watch_for(secret: str) -> None:
    """Have every later phase of this process checked for ``secret`` too."""
    if len(secret) >= SHORTEST_WATCHED:
        _KNOWN.add(secret)


def leaks(said: Iterable[tuple[str, str]]) -> list[str]:
    """Where and what kind of secret each text shows: ``"<where>: <kind>"``, without the value."""
    found: list[str] = []
    for where, text in said:
        if any(secret in text for secret in list(_KNOWN)):
            found.append(f"{where}: a client secret or token a test issued")
        if JWT.search(text):
            found.append(f"{where}: a JWT")
        if SANDBOX_SECRET.search(text):
            found.append(f"{where}: forty hex digits, the form of a sandbox's client secret")
    return found


class _Collector(logging.Handler):
    """Keeps the text of every record the SDK logs until the phase's report drains it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        self._texts: list[tuple[str, str]] = []
        self._texts_lock = threading.Lock()  # sandboxes and hostile servers log from their threads

    def emit(self, record: logging.LogRecord) -> None:
        extras = {key: value for key, value in vars(record).items() if key not in _STANDARD_RECORD_FIELDS}
        text = self.format(record) + (f" {extras!r}" if extras else "")
        with self._texts_lock:
            self._texts.append((f"log record {record.levelname} of {record.name}", text))

    def drain(self) -> list[tuple[str, str]]:
        with self._texts_lock:
            texts, self._texts = self._texts, []
        return texts


class LeakWatch:
    """The plugin object: adds the collector to the SDK's logger and judges each phase's report."""

    def __init__(self) -> None:
        self.collector = _Collector()
        self._level = logging.NOTSET

    def pytest_configure(self, config: pytest.Config) -> None:
        logger = logging.getLogger(SDK_LOGGER)
        self._level = logger.level
        logger.setLevel(logging.DEBUG)  # the debug records are the chattiest: they are watched too
        logger.addHandler(self.collector)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        logger = logging.getLogger(SDK_LOGGER)
        logger.removeHandler(self.collector)
        logger.setLevel(self._level)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        found = leaks(self._said(report))
        if found:
            _fail(report, found)
        return report

    def _said(self, report: pytest.TestReport) -> list[tuple[str, str]]:
        said = self.collector.drain()
        for stream in ("stdout", "stderr"):  # this phase's: the sections of earlier ones are kept too
            title = f"Captured {stream} {report.when}"
            said.extend((title, content) for name, content in report.sections if name == title)
        if report.failed:
            said.append((f"failure report of {report.when}", report.longreprtext))
        return said


def hidden(text: str) -> str:
    """``text`` with every watched secret and token replaced, so that the report of a leak does
    not leak it again into the CI log."""
    for secret in sorted(_KNOWN, key=len, reverse=True):
        text = text.replace(secret, "<secret>")
    return SANDBOX_SECRET.sub("<secret>", JWT.sub("<jwt>", text))


def _fail(report: pytest.TestReport, found: list[str]) -> None:
    """Turn the phase into a failure that says where the leak was, its captured output and any
    earlier failure's text kept with the secrets hidden."""
    text = "the SDK showed a secret or a token:\n" + "\n".join(f"  {line}" for line in found)
    if report.failed:
        text = f"{text}\n\n{hidden(report.longreprtext)}"
    report.outcome = "failed"
    report.longrepr = text
    report.sections = [(title, hidden(content)) for title, content in report.sections]
    if hasattr(report, "wasxfail"):
        del report.wasxfail


def pytest_configure(config: pytest.Config) -> None:
    """Register one watch per pytest process (the run, or each xdist worker)."""
    config.pluginmanager.register(LeakWatch(), "leak-watch")
