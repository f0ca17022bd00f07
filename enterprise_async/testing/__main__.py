"""``python -m enterprise_async.testing --port 8000``: serve a sandbox in the foreground."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ._data import DataSize
from ._sandbox import DEFAULT_HOST, DEFAULT_TOKEN_LIFETIME
from ._serve import serve


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line and serve until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m enterprise_async.testing", description=__doc__)
    parser.add_argument("--host", default=DEFAULT_HOST, help="interface to listen on (default: %(default)s)")
    parser.add_argument(
        "--port", type=int, default=8000, help="port to listen on; 0 picks a free one (default: %(default)s)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the generated data (default: %(default)s)"
    )
    parser.add_argument(
        "--catalog-items", type=int, default=DataSize().catalog_items, help="items per catalog"
    )
    parser.add_argument(
        "--token-lifetime", type=float, default=DEFAULT_TOKEN_LIFETIME, help="token lifetime in seconds"
    )
    parser.add_argument(
        "--next-host", default=None, help="origin that next/previous links name instead of the sandbox's"
    )
    parser.add_argument(
        "--rate-limit", default=None, help='throttle API requests with 429s, e.g. "18/second; 360/minute"'
    )
    arguments = parser.parse_args(argv)
    serve(
        arguments.host,
        arguments.port,
        arguments.seed,
        size=DataSize(catalog_items=arguments.catalog_items),
        token_lifetime=arguments.token_lifetime,
        next_host=arguments.next_host,
        rate_limit=arguments.rate_limit,
    )


if __name__ == "__main__":
    main()
