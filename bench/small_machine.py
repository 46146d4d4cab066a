"""A seeded synthetic SWF trace on a small machine, for the benchmarks.

A 64-node machine fed 90 % of its capacity keeps a queue of tens to
hundreds of jobs: the scheduling pass, not the trace reader, is what the
benchmark then measures.  Sizes prefer powers of two, runtimes are
log-normal (median about half an hour, at most a day), requested walltimes
overestimate them (accuracy uniform on [0.2, 1], rounded up to a minute),
and arrivals are uniform over the span that gives the load.  Needs no data
directory, so every machine can run it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

NODES = 64
LOAD = 0.9


def write_trace(path: Path, jobs: int, seed: int = 1, nodes: int = NODES,
                load: float = LOAD) -> Path:
    """``jobs`` jobs on ``nodes`` nodes, one node a processor, as an SWF file."""
    rng = np.random.default_rng(seed)
    sizes = np.where(rng.random(jobs) < 0.5, 2 ** rng.integers(0, 7, jobs),
                     rng.integers(1, nodes + 1, jobs))
    sizes = np.minimum(sizes, nodes)
    runtimes = np.clip(rng.lognormal(7.5, 1.3, jobs), 1, 86_400).astype(int)
    walltimes = np.minimum(np.ceil(runtimes / rng.uniform(0.2, 1, jobs) / 60) * 60,
                           86_400).astype(int)
    span = (sizes * runtimes).sum() / (nodes * load)
    submits = np.sort(rng.uniform(0, span, jobs)).astype(int)
    users, groups = rng.integers(1, 20, jobs), rng.integers(1, 5, jobs)
    with open(path, "w") as out:
        out.write(f"; MaxNodes: {nodes}\n; MaxProcs: {nodes}\n; UnixStartTime: 0\n")
        for i in range(jobs):
            out.write(f"{i + 1} {submits[i]} -1 {runtimes[i]} {sizes[i]} -1 -1 {sizes[i]} "
                      f"{walltimes[i]} -1 1 {users[i]} {groups[i]} 1 1 1 -1 -1\n")
    return path
