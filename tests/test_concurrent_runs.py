"""Simulations that run at once in threads of one process -- a Dask worker
runs several tasks in threads, a web server serves several steppers -- give
each the results it gives alone: no state of a run is shared with another."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from studies.experiment import Experiment
from tiny_traces import write_two_month_trace


def results(experiment: Experiment) -> dict:
    """The experiment's record (its cap reference run first), less the
    wall-clock time it took."""
    reference = experiment.prerequisite()
    record = experiment.run(None if reference is None else reference.run())
    return {key: value for key, value in record.items() if key != "elapsed_s"}


def test_runs_in_threads_give_the_results_they_give_alone(tmp_path):
    # Month 1 of this trace overloads its 16 nodes: queues of tens of jobs,
    # so every scheduling pass has work (and memory) of its own.
    trace = write_two_month_trace(tmp_path / "busy.swf", nodes=16, seed=3, later_jobs=400,
                                  later_gap=300, max_procs=16)
    base = Experiment(trace=str(trace), month=1, policy="wfp")
    experiments = [base, replace(base, policy="fcfs"),
                   *(replace(base, capping=capping, cap_fraction=0.7)
                     for capping in ("block", "wait", "dvfs")),
                   replace(base, resilience="checkpoint")]
    alone = [results(experiment) for experiment in experiments]
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns every few instructions
    try:
        with ThreadPoolExecutor(len(experiments)) as pool:
            together = list(pool.map(results, experiments))
    finally:
        sys.setswitchinterval(switch)
    for experiment, own, shared in zip(experiments, alone, together):
        assert shared == own, experiment
