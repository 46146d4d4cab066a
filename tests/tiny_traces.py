"""Small SWF traces for the sweep and study tests: random ones of two
30-day windows, so that month selection, baselines and normalisation all
act, and a two-job one checked by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from studies.workloads import MONTH_SECONDS


def write_two_month_trace(path: Path, nodes: int, seed: int, later_jobs: int,
                          later_gap: int, max_procs: int, gaps=(60, 900),
                          runtimes=(300, 4000)) -> Path:
    """40 jobs in month 0 (gaps drawn from ``gaps``), ``later_jobs`` in
    month 1 every ``later_gap`` seconds; one processor per node up to
    16 processors (``MaxProcs: 16``), jobs of 1..``max_procs`` processors,
    walltimes 1.5 times their runtime."""
    rng = np.random.default_rng(seed)
    lines = [f"; MaxNodes: {nodes}", "; MaxProcs: 16", "; UnixStartTime: 0",
             "; TimeZoneString: UTC"]
    submits = [0] + list(np.cumsum(rng.integers(*gaps, 39))) + \
        [MONTH_SECONDS + later_gap * k for k in range(later_jobs)]
    for job_id, submit in enumerate(submits, start=1):
        procs = int(rng.integers(1, max_procs + 1))
        runtime = int(rng.integers(*runtimes))
        fields = [job_id, int(submit), -1, runtime, procs, -1, -1, procs,
                  int(runtime * 1.5), -1, 1, int(rng.integers(1, 6)), 1, 1, 1, 1, -1, -1]
        lines.append(" ".join(str(f) for f in fields))
    path.write_text("\n".join(lines) + "\n")
    return path


#: Two jobs on a 4-node machine: job 1 (2 nodes, 100 s, logged wait 5 s) at
#: 0, job 2 (all 4 nodes, 50 s) at 10; on 2 nodes job 2 is too large.
TWO_JOBS = ("; MaxNodes: 4\n; MaxProcs: 4\n"
            "1 0 5 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n"
            "2 10 0 50 4 -1 -1 4 100 -1 1 2 1 -1 1 -1 -1 -1\n")
