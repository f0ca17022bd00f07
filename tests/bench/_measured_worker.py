"""``python -m tests.bench._measured_worker FIGURES WORKER-ARGUMENTS...``: ``enterprise-async`` (the
command line, in this process) with the arguments given, then its peak memory and CPU time as JSON
in the file ``FIGURES`` (B17: what one worker of a fleet costs).

The peak is the kernel's (``ru_maxrss``: the most resident memory the process ever had), read
when the command line exits, so no moment between two samples is missed.
"""

from __future__ import annotations

import atexit
import json
import resource
import sys
from pathlib import Path


def _note(figures: Path) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    # ru_maxrss is in KiB on Linux
    noted = {"peak_rss_mb": usage.ru_maxrss / 1024, "cpu_s": usage.ru_utime + usage.ru_stime}
    figures.write_text(json.dumps(noted), encoding="utf-8")


def main() -> None:
    figures, arguments = Path(sys.argv[1]), sys.argv[2:]
    atexit.register(_note, figures)
    from enterprise_async.__main__ import main as command_line

    command_line(arguments, prog_name="enterprise-async")


if __name__ == "__main__":
    main()
