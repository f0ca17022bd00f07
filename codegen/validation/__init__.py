"""Check the spec before anything is generated: OpenAPI 3.1 itself, then every convention of ours.

``openapi-spec-validator`` checks the document against OpenAPI 3.1 (``openapi``). The checks of
the other modules cover what the generator relies on and OpenAPI leaves open (see
`spec/README.md`): every ``$ref`` resolves, every ``type`` is a JSON Schema type, every
``x-sdk-*`` extension is known (``document``) and names fields and parameters that exist
(``schemas``, ``pagination``, ``chunks``), and every operation has an ``operationId``, a declared
tag and a unique ``x-sdk-method`` (``operations``). Each check yields ``Problem``s; all of them are
reported together.
"""

from __future__ import annotations

from codegen.source import Problem
from codegen.validation.document import EXTENSIONS, extensions, references, top_level, types
from codegen.validation.nodes import Node
from codegen.validation.openapi import openapi
from codegen.validation.operations import operations

__all__ = ["EXTENSIONS", "problems"]


def problems(document: Node) -> list[Problem]:
    """Every problem of the spec; empty when the generator can run."""
    found = [*references(document), *types(document), *extensions(document), *top_level(document)]
    found.extend(operations(document))
    found.extend(openapi(document, quiet=bool(found)))
    return found
