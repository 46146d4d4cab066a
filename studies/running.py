"""Running one experiment: the record a sweep stores for it.

:func:`run_experiment` resolves a fractional cap (which needs the peak of
the uncapped reference run: given by the sweep, read from the results
directory, or run first), simulates the experiment on PuPPET or, with
failures, TOPPER, and returns one flat record of plain values.
"""

from __future__ import annotations

import time
from typing import Any

from nets import puppet, topper

from .configs import power_config, topper_config
from .experiment import Experiment
from .power_series import power_measures
from .storage import current_result, write_result
from .workloads import MONTH_SECONDS, PreparedWorkload, prepare_workload


class RunInterrupted(RuntimeError):
    """A run stopped by Ctrl-C: its partial result must never be stored."""


def uncapped_peak(exp: Experiment, results_dir=None) -> float | None:
    """The peak power of ``exp``'s cap reference (``None`` for a cap in
    watts): read from ``results_dir`` if there, else run and stored there."""
    reference = exp.cap_reference()
    if reference is None:
        return None
    stored = (current_result(results_dir, reference.key()).record
              if results_dir is not None else None)
    if stored is None:
        stored = run_experiment(reference)
        if results_dir is not None:
            write_result(results_dir, reference.key(), stored)
    return float(stored["power_peak_w"])


def run_experiment(exp: Experiment, results_dir=None,
                   uncapped_peak_w: float | None = None) -> dict[str, Any]:
    """Run ``exp`` through :func:`nets.puppet.simulate` (or, with a
    ``resilience`` method, :func:`nets.topper.simulate`, whose metrics add
    ``system_efficiency``, ``failures``, ``lost_node_hours`` and, with
    replication, ``partially_replicated_jobs``); return one
    flat record: ``key``, the experiment's fields, the run's metrics
    (``utilization``, ``wait_mean_s``, ``edp_j_s``, ...), the cap in watts
    (``cap_w``), ``uncapped_peak_w``, ``baseline_key`` (the uncapped twin),
    time above the cap (``cap_exceeded_s``, ``cap_excess_max_w``), the mean
    power in each local hour of the day (``power_hour_00_w`` ...), the
    job lines the trace reader rejected (``trace_rejected_jobs``: those
    submitted in the run's month, or in the whole trace;
    ``trace_rejected_undated_jobs``: those no month can be told of) and the
    wall-clock time (``elapsed_s``).

    A fractional cap needs the twin's peak: give it (``uncapped_peak_w``, as
    a sweep does), or it is read from ``results_dir``, or the twin is run
    (and stored in ``results_dir`` if given).
    """
    started = time.perf_counter()
    workload = prepare_workload(exp)
    if exp.cap_fraction is not None:
        if uncapped_peak_w is None:
            uncapped_peak_w = uncapped_peak(exp, results_dir)
        cap_w = exp.cap_fraction * uncapped_peak_w
    else:
        cap_w = exp.cap_watts
    result = _simulate(exp, workload, cap_w)
    metrics = {k: v for k, v in result.metrics.items() if not isinstance(v, dict)}
    metrics["simulated_nodes"] = metrics.pop("machine_nodes", workload.machine_nodes)
    metrics["trace_rejected_jobs"] = workload.trace_rejected  # dropped before any run
    metrics["trace_rejected_undated_jobs"] = workload.trace_rejected_undated
    until = MONTH_SECONDS if exp.month is not None else None
    record: dict[str, Any] = {"key": exp.key(), **exp.to_dict(), **metrics}
    record.update({
        "cap_w": cap_w,
        "uncapped_peak_w": uncapped_peak_w,
        "baseline_key": exp.uncapped().key(),
        **power_measures(result, workload.day_offset, cap_w, until),
        "label": exp.label(),
        "elapsed_s": time.perf_counter() - started,
    })
    return record


def _simulate(exp: Experiment, workload: PreparedWorkload, cap_w: float | None):
    """The PuPPET run of ``exp`` under a cap of ``cap_w`` watts, or TOPPER's."""
    config = power_config(exp, workload.machine_nodes, cap_w)
    if exp.resilience is None:
        result = puppet.simulate(list(workload.jobs), config, seed=exp.seed)
    else:
        result = topper.simulate(list(workload.jobs), topper_config(exp, config), seed=exp.seed)
    if result.interrupted:
        raise RunInterrupted(f"run {exp.key()} ({exp.label()}) was interrupted")
    return result
