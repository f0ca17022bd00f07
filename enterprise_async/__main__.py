"""``python -m enterprise_async`` and the ``enterprise-async`` console script: the command line if
its extra is installed, else one line saying how to install it.

It lives outside ``enterprise_async.cli`` so that starting it imports nothing of the ``[cli]``
extra (click, rich) before checking that the extra is there.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Final

from ._utils.optional import MissingExtraError, missing_modules

__all__ = ["EXIT_MISSING_EXTRA", "main"]

EXIT_MISSING_EXTRA: Final = 2
"""The exit code of a command line run without its extra: the same as a usage error's."""


def main(arguments: Sequence[str] | None = None, prog_name: str | None = None) -> None:
    """Run the command line (on the process's arguments by default), or say in one line on
    standard error how to install it."""
    missing = missing_modules("cli")
    if missing:
        print(f"enterprise-async: {MissingExtraError('cli', missing)}", file=sys.stderr)
        raise SystemExit(EXIT_MISSING_EXTRA)
    from .cli import cli

    cli.main(args=arguments, prog_name=prog_name)


if __name__ == "__main__":
    main()
