"""``python -m enterprise_async.testing --port 8000``: serve a sandbox in the foreground.

The same command as ``enterprise-async sandbox``, which it hands over to: one command line, one
set of options.
"""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``enterprise-async sandbox`` with these arguments (the process's own by default)."""
    import sys

    from .._console import main as command_line  # one line, not a traceback, without [cli]

    arguments = list(sys.argv[1:] if argv is None else argv)
    command_line(["sandbox", *arguments], prog_name="python -m enterprise_async.testing")


if __name__ == "__main__":
    main()
