"""Throughput of a small sweep (runs per minute) on 1 and 2 local workers.

    python bench/sweep.py                      # synthetic Mira-like month
    python bench/sweep.py --trace ../shared/data/swf/LLNL-Atlas-2006-2.1-cln.swf --month 1
    python bench/sweep.py --workers 1,2,4 --dask   # also through a local Dask cluster

Each measurement runs the same grid (FCFS and WFP x WAIT and DVFS x caps of
80 % and 60 %, plus the two uncapped twins: 10 runs) into a fresh results
directory, and prints one line per configuration:

    sweep workers=N runs=R runs_per_min=X

Runs of a grid differ a lot in cost (a tight cap makes long queues), so the
number is for comparing executors and machines on the same grid, not a
per-run cost.  Worker start-up is included: it is part of what a user waits for.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studies.experiment import Experiment  # noqa: E402
from studies.grids import grid, plan  # noqa: E402
from studies.sweep import run_sweep  # noqa: E402
from studies.workloads import prepare_workload  # noqa: E402


def bench_grid(trace: str, month: int | None) -> list[Experiment]:
    return grid(Experiment(trace=trace, month=month), policy=["fcfs", "wfp"],
                capping=["wait", "dvfs"], cap_fraction=[0.8, 0.6])


def measure(experiments, workers: int, client=None) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as results:
        started = time.perf_counter()
        summary = run_sweep(experiments, results, workers=workers, client=client,
                            progress=False, collect_results=False)
        elapsed = time.perf_counter() - started
    if summary.failed:
        raise RuntimeError(f"runs failed: {summary.failed}")
    return len(summary.ran), elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default="synthetic")
    parser.add_argument("--month", type=int)
    parser.add_argument("--workers", default="1,2", help="comma list of worker counts")
    parser.add_argument("--dask", action="store_true",
                        help="also measure a local Dask cluster of as many worker processes")
    args = parser.parse_args(argv)
    experiments = bench_grid(args.trace, args.month)
    prepare_workload(experiments[0])  # read the trace once, outside the timing
    print(f"# grid: {len(plan(experiments))} runs on {experiments[0].label()}", flush=True)
    for workers in (int(w) for w in args.workers.split(",")):
        runs, elapsed = measure(experiments, workers)
        print(f"sweep workers={workers} runs={runs} runs_per_min={runs / elapsed * 60:.1f}",
              flush=True)
        if args.dask:
            from distributed import Client, LocalCluster
            with LocalCluster(n_workers=workers, threads_per_worker=1,
                              dashboard_address=":0") as cluster, Client(cluster) as client:
                runs, elapsed = measure(experiments, workers, client)
            print(f"sweep dask workers={workers} runs={runs} "
                  f"runs_per_min={runs / elapsed * 60:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
