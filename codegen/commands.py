"""The command line's index of the operation table: what ``enterprise-async --help`` lists
(each resource and its description, each operation and its summary) without importing a model."""

from __future__ import annotations

from pprint import pformat

from codegen.operations import ResourceSpec
from codegen.rendering import docline

MODULE = '''"""The command line's index of the operations: each resource's description and its operations'
summaries, so that ``enterprise-async --help`` lists them without importing a model."""

from typing import Final

RESOURCES: Final[dict[str, tuple[str, dict[str, str]]]] = {index}
"""Each resource (by its name in the spec) with its description and its operations (method name:
summary), in the spec's order."""
'''


def render_commands(resources: tuple[ResourceSpec, ...]) -> str:
    """``_generated/commands.py``: the index of ``resources``."""
    index = {
        resource.name: (
            docline(resource.description),
            {operation.method_name: operation.summary for operation in resource.operations},
        )
        for resource in resources
    }
    return MODULE.format(index=pformat(index, width=100, sort_dicts=False))
