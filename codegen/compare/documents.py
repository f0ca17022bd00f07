"""Reading a service's OpenAPI document (a file, or its ``/api/schema/`` over http(s)) and finding
an operation in it by the shape of its path.

A path's shape is its literal text with every template variable as a slot, whatever its name:
``/api/v1/subscriptions/{uuid}/`` and ``/api/v1/subscriptions/{subscription_uuid}/`` are one path.
drf-spectacular writes a route's regular expression that captures nothing into the path as a
variable glued to literal text (``/api/v1/{var}subscriptions/`` for ``(?<!learner-)subscriptions``);
such a variable, inside a segment rather than the whole of it, may also stand for nothing.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from attrs import frozen

from codegen.compare.shapes import UnresolvableError, resolve

METHODS = ("get", "post", "put", "patch", "delete")
_VARIABLE = re.compile(r"\{[^{}/]*\}")
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's loader where PyYAML was built with it: a service's document is large."""
_ACCEPT = "application/vnd.oai.openapi, application/yaml;q=0.9, application/json;q=0.8"


class UnreadableError(Exception):
    """Input `compare` cannot read; its message is the one line shown."""


@frozen
class Endpoint:
    """An operation of the service's document: its method, path as written there, and node."""

    method: str
    path: str
    operation: Mapping[str, Any]
    item: Mapping[str, Any]

    @property
    def where(self) -> str:
        return f"{self.method.upper()} {self.path}"


def read_document(source: str, timeout: float = 30.0) -> dict[str, Any]:
    """The OpenAPI document at ``source`` (a path, or an http(s) URL), parsed (YAML or JSON)."""
    if re.match(r"^https?://", source, re.IGNORECASE):
        text = _download(source, timeout)
    else:
        try:
            text = Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise UnreadableError(f"cannot read {source}: {_reason(error)}") from None
    return parse_document(text, source)


def parse_document(text: str, source: str) -> dict[str, Any]:
    """An OpenAPI document from its text; anything but a mapping with ``paths`` is unreadable."""
    try:
        document = json.loads(text) if text.lstrip().startswith("{") else yaml.load(text, Loader=LOADER)
    except (ValueError, yaml.YAMLError) as error:
        mark = getattr(error, "problem_mark", None)
        at = f" (line {mark.line + 1})" if mark is not None else ""
        raise UnreadableError(f"{source} is not YAML or JSON{at}") from None
    if not isinstance(document, dict) or not isinstance(document.get("paths"), dict):
        raise UnreadableError(f"{source} is not an OpenAPI document (no `paths` mapping)")
    return document


def _download(url: str, timeout: float) -> str:
    request = urllib.request.Request(url, headers={"Accept": _ACCEPT})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            body: bytes = answer.read()
            charset = answer.headers.get_content_charset() or "utf-8"
    except urllib.error.HTTPError as error:
        raise UnreadableError(f"cannot read {url}: HTTP {error.code} {error.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise UnreadableError(f"cannot read {url}: {_reason(error)}") from None
    try:
        return body.decode(charset)
    except (LookupError, UnicodeDecodeError):
        raise UnreadableError(f"cannot read {url}: the body is not {charset} text") from None


def _reason(error: Exception) -> str:
    reason = getattr(error, "reason", None) or getattr(error, "strerror", None) or error
    return str(reason)


def shape_of(path: str) -> str:
    """``path`` with every template variable written ``{}``."""
    return _VARIABLE.sub("{}", path)


def _pattern(path: str) -> re.Pattern[str]:
    """What shapes a document's path template matches: a whole-segment variable a slot, a
    variable glued to literal text a slot or nothing; a final slash optional."""
    pieces = []
    for segment in path.rstrip("/").split("/"):
        if _VARIABLE.fullmatch(segment):
            pieces.append(r"\{\}")
            continue
        parts = _VARIABLE.split(segment)
        pieces.append(r"(?:\{\})?".join(re.escape(part) for part in parts))
    return re.compile("/".join(pieces) + "/?")


def find(document: Mapping[str, Any], method: str, path: str) -> Endpoint | None:
    """The document's operation for ``method path``: the path of the same shape, else the one
    whose template matches it with the fewest variables standing for nothing."""
    wanted = shape_of(path)
    candidates: list[tuple[int, str]] = []
    for their_path, item in document.get("paths", {}).items():
        if not isinstance(item, dict) or not isinstance(item.get(method.lower()), dict):
            continue
        theirs = shape_of(str(their_path))
        if theirs == wanted:
            candidates.append((0, str(their_path)))
        elif theirs.rstrip("/") == wanted.rstrip("/"):
            candidates.append((1, str(their_path)))
        elif _pattern(str(their_path)).fullmatch(wanted):
            candidates.append((2 + theirs.count("{}") - wanted.count("{}"), str(their_path)))
    if not candidates:
        return None
    best = min(candidates)[1]
    item = document["paths"][best]
    return Endpoint(method.lower(), best, item[method.lower()], item)


def parameters(
    document: Mapping[str, Any], endpoint_item: Mapping[str, Any], operation: Mapping[str, Any]
) -> dict[str, Any]:
    """The operation's query parameters by name (path-item ones first, the operation's over them)."""
    found: dict[str, Any] = {}
    for parameter in [*endpoint_item.get("parameters", ()), *operation.get("parameters", ())]:
        try:
            node = resolve(document, parameter["$ref"]) if "$ref" in parameter else parameter
        except UnresolvableError:
            continue
        if isinstance(node, dict) and node.get("in") == "query":
            found[str(node.get("name"))] = node
    return found
