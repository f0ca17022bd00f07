"""``python -m tests.bench._measured_worker FIGURES WORKER-ARGUMENTS...``: ``enterprise-async`` (the
command line, in this process) with the arguments given, then its peak memory and CPU time as JSON
in the file ``FIGURES`` (B17: what one worker of a fleet costs).

The peak is the kernel's high-water mark of this process's own memory (``VmHWM`` in
``/proc/self/status``: the most resident memory it ever had since it started), read when the
command line exits, so no moment between two samples is missed. Not ``ru_maxrss``: Linux keeps
that across ``execve``, so a worker started by a process holding more memory than the worker
ever uses would report its parent's size at the fork (B17's bench process, holding the sandbox's
listing of every item, made a worker's ``ru_maxrss`` grow with the catalogs' size).
"""

from __future__ import annotations

import atexit
import json
import resource
import sys
from pathlib import Path


def own_peak_mb(status: str | None = None) -> float:
    """This process's own peak resident memory in MB (``VmHWM``, in KiB in ``/proc/self/status``)."""
    text = Path("/proc/self/status").read_text(encoding="utf-8") if status is None else status
    for line in text.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("/proc/self/status has no VmHWM line: the peak is read on Linux only")


def _note(figures: Path) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    noted = {"peak_rss_mb": own_peak_mb(), "cpu_s": usage.ru_utime + usage.ru_stime}
    figures.write_text(json.dumps(noted), encoding="utf-8")


def main() -> None:
    figures, arguments = Path(sys.argv[1]), sys.argv[2:]
    atexit.register(_note, figures)
    from enterprise_async.__main__ import main as command_line

    command_line(arguments, prog_name="enterprise-async")


if __name__ == "__main__":
    main()
