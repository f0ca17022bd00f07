"""The benchmark suite: ``python -m tests.bench`` (or ``nox -s bench``).

Not collected by pytest (no ``test_*.py`` here). Every figure is a ratio or a count measured side
by side in one run, the median of several rounds, so that a noisy shared machine shifts both sides
of a ratio alike. The sandbox runs in a process of its own wherever time is measured, so that the
client's figures are the client's. The latest results: tests/bench/README.md.
"""
