"""The spec checked as OpenAPI 3.1, by ``openapi-spec-validator``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from openapi_spec_validator.validation import OpenAPIV31SpecValidator

from codegen.source import Problem, pointer
from codegen.validation.nodes import Node


def openapi(document: Node, *, quiet: bool) -> Iterator[Problem]:
    """The validator's findings. It stops with an exception on some broken documents (a dangling
    ``$ref``); ours have then already said what is wrong, else its exception is the finding."""
    reported = False
    try:
        for error in OpenAPIV31SpecValidator(document).iter_errors():
            path = list(getattr(error, "absolute_path", ()))
            message = f"not valid OpenAPI 3.1: {getattr(error, 'message', error)}"
            if _exists(document, path):
                reported = True
                yield Problem(pointer(*path), message)
            elif not quiet:  # a path inside a schema, relative to it: ours locate such problems
                reported = True
                yield Problem("", f"{message} (at {pointer(*path)} of some schema)")
    except Exception as error:
        if not (reported or quiet):
            name = type(error).__name__
            yield Problem("", f"openapi-spec-validator could not check the spec: {name}: {error}")


def _exists(document: Node, path: list[Any]) -> bool:
    node: Any = document
    for part in path:
        if not isinstance(node, (dict, list)):
            return False
        if not (part in node if isinstance(node, dict) else isinstance(part, int) and part < len(node)):
            return False
        node = node[part]
    return True
