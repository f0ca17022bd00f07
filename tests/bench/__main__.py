"""``python -m tests.bench [--rounds N] [--only B1,B3] [--quick] [--output bench-results.md]``

Runs the benchmarks, prints the results table and writes it, with its notes, as Markdown.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from . import (
    adaptive,
    call_cost,
    changes,
    decode,
    export,
    first_pages,
    fleet,
    fleet_size,
    import_time,
    loop_hold,
    memory,
    overhead,
    realdata,
    sandbox_size,
    serving,
    tokens,
    xml_vs_json,
)
from ._harness import Row, render_report

BENCHMARKS: dict[str, Callable[[int], list[Row]]] = {
    "B1": export.run,
    "B2": decode.run,
    "B3": xml_vs_json.run,
    "B4": memory.run,
    "B5": tokens.run,
    "B6": overhead.run,
    "B7": fleet.run,
    "B8": realdata.run,
    "B9": adaptive.run,
    "B10": loop_hold.run,
    "B11": import_time.run,
    "B12": adaptive.run_deep,
    "B13": call_cost.run,
    "B14": sandbox_size.run,
    "B15": changes.run,
    "B16": first_pages.run,
    "B17": fleet_size.run,
    "B18": serving.run,
}
QUICK: dict[str, Callable[..., list[Row]]] = {"B17": fleet_size.run, "B18": serving.run}
"""The benchmarks that take ``quick=True`` (``--quick``): smaller sizes, for a trial run."""
DEFAULT_ROUNDS = 5


def main(arguments: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__)
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="rounds per benchmark (median)")
    parser.add_argument("--only", default=",".join(BENCHMARKS), help="comma-separated: B1,B2,...")
    parser.add_argument(
        "--quick", action="store_true", help="smaller sizes where a benchmark has them (B17, B18)"
    )
    parser.add_argument("--output", type=Path, default=Path("bench-results.md"), help="Markdown report")
    options = parser.parse_args(arguments)
    chosen = [key.strip().upper() for key in options.only.split(",") if key.strip()]
    unknown = sorted(set(chosen) - set(BENCHMARKS))
    if unknown or options.rounds < 1:
        parser.error(f"unknown benchmarks {unknown}" if unknown else "--rounds must be at least 1")
    rows: list[Row] = []
    for key in chosen:
        started = time.perf_counter()
        print(f"{key} ...", end=" ", flush=True, file=sys.stderr)
        if options.quick and key in QUICK:
            rows += QUICK[key](options.rounds, quick=True)
        else:
            rows += BENCHMARKS[key](options.rounds)
        print(f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    report = render_report(rows, options.rounds)
    options.output.write_text(report, encoding="utf-8")
    print(report)
    print(f"written to {options.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
