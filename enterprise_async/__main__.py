"""``python -m enterprise_async``: the command line, as the ``enterprise-async`` script runs it."""

from ._console import main

if __name__ == "__main__":
    main()
