"""Scheduling and power-performance metrics of a run, over flat records.

Plain functions over plain data, so they apply equally to a simulated run
and a real job log; nothing here knows about places, tokens or nets.  The
input is *job records*: a ``pandas.DataFrame`` (or the same table as
``modules.tables.Columns``, which needs no pandas) with one row per finished
job and the columns ``job_id, submit, start, end, nodes`` (seconds, nodes)
and usually ``power`` (watts).  ``runtime = end - start`` and ``wait =
start - submit``.  The system power comes as a step series
(:mod:`modules.power_steps`, which integrates it); :func:`summary_metrics`
gathers the power-performance metrics of the PuPPET paper's case studies
(section 5), and :mod:`modules.run_files` writes them out.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .power_steps import power_metrics
from .tables import columns_of

if TYPE_CHECKING:
    import pandas as pd

#: Columns every job record must have, in the order ``jobs.csv`` starts with.
JOB_COLUMNS = ("job_id", "submit", "start", "end", "nodes")


def job_frame(jobs_df: pd.DataFrame) -> pd.DataFrame:
    """Job records with ``runtime`` and ``wait`` added, the required columns
    first (:func:`job_columns`), as a DataFrame: ``jobs_df``'s columns as
    they are, shared, not copied."""
    import pandas as pd

    added = ("runtime", "wait")
    return pd.DataFrame({name: values if name in added else jobs_df[name]
                         for name, values in job_columns(jobs_df).items()}, copy=False)


def job_columns(records) -> dict[str, np.ndarray]:
    """Job records (a DataFrame or ``modules.tables.Columns``) as ``{name:
    array}`` with ``runtime`` and ``wait`` added, the required columns first.

    Fails loudly on a missing column, a missing value, or a job that starts
    before its submission or ends before its start: metrics computed over
    such records would be wrong without saying so.  Unfinished jobs must be
    filtered out by the caller.  The records' columns are shared, not
    copied (a million jobs' table is built where a run's memory peaks);
    ``records`` itself is left as it was.
    """
    columns = columns_of(records)
    missing = [c for c in JOB_COLUMNS if c not in columns]
    if missing:
        raise ValueError(f"job records lack columns {missing}")
    absent = np.zeros(len(columns["job_id"]), dtype=bool)
    for name in JOB_COLUMNS:
        absent |= _missing(columns[name])
    if absent.any():
        bad = columns["job_id"][absent].tolist()
        raise ValueError(f"job records with missing values: job_id {bad[:10]}")
    runtime = columns["end"] - columns["start"]
    wait = columns["start"] - columns["submit"]
    bad = columns["job_id"][(runtime < 0) | (wait < 0)].tolist()
    if bad:
        raise ValueError(f"jobs that start before submission or end before start: job_id {bad[:10]}")
    columns = {**columns, "runtime": runtime, "wait": wait}
    return {**{name: columns[name] for name in JOB_COLUMNS}, **columns}


def _missing(column: np.ndarray) -> np.ndarray:
    """Where ``column`` holds no value (NaN, or None among objects), as pandas' ``isna``."""
    if column.dtype.kind in "fc":
        return np.isnan(column)
    if column.dtype.kind == "O":
        return np.fromiter(map(_absent, column.tolist()), dtype=bool, count=len(column))
    return np.zeros(len(column), dtype=bool)


def _absent(value) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN
    except TypeError:  # pandas.NA: neither equal nor unequal to itself
        return True


def bounded_slowdown(wait, runtime, threshold: float = 10.0):
    """Bounded slowdown ``max(1, (wait + runtime) / max(runtime, threshold))``.

    The threshold (seconds) keeps very short jobs from dominating the mean
    (Feitelson's bounded slowdown; a standard companion of wait time in
    batch-scheduling studies such as PuPPET's section 5).
    """
    wait = np.asarray(wait, dtype=float)
    runtime = np.asarray(runtime, dtype=float)
    return np.maximum(1.0, (wait + runtime) / np.maximum(runtime, threshold))


def summary_metrics(jobs_df, times, watts, end, machine_nodes: int, bsld_threshold: float = 10.0) -> dict[str, Any]:
    """The power-performance metrics of a run, as a flat dict of plain numbers.

    Keys (units in the name; seconds, joules, watts):

    - ``jobs``: number of job records.
    - ``makespan_s``: last end minus first submit, "the total length of the
      schedule when all the jobs have finished processing" (section 5, EDP);
      in a window of a log whose jobs were queued before the run began
      (Mira's, queued for weeks), last end minus the run's start (the power
      series'), the span energy, utilization and EDP then share.
    - ``utilization``: "the ratio of node hours used by user jobs to the total
      elapsed system node hours" (section 5): ``sum(nodes * runtime) /
      (machine_nodes * makespan_s)``.
    - ``wait_mean_s`` ("average job wait time", section 5: from submission
      to allocation), ``wait_median_s``, ``wait_p90_s``, ``wait_p99_s``,
      ``wait_max_s`` (percentiles linearly interpolated, numpy's default).
    - ``bounded_slowdown_mean``: mean of :func:`bounded_slowdown` with
      ``bsld_threshold`` seconds.
    - ``energy_j``, ``energy_kwh``: exact integral of the power series
      (:func:`modules.power_steps.energy_exact`; section 4 validates daily energy).
    - ``power_mean_w``: ``energy_j`` over the series' span ``end - times[0]``.
    - ``power_peak_w``: highest value that holds for a positive time (a value
      overridden at the same instant is not a peak); the quantity a power cap
      bounds (section 5.3).
    - ``edp_j_s``: energy delay product, "the product of the total energy
      consumption and the makespan of all the jobs" (section 5):
      ``energy_j * makespan_s``.
    - ``series_start_s``, ``series_end_s``: the span the energy covers.
    - ``machine_nodes``, ``bsld_threshold_s``: the parameters used.
    """
    jobs = job_columns(jobs_df)
    if len(jobs["job_id"]) == 0:
        raise ValueError("no job records: scheduling metrics are undefined")
    if machine_nodes <= 0:
        raise ValueError(f"machine_nodes must be positive, got {machine_nodes}")
    power = power_metrics(times, watts, end)
    schedule = _schedule_metrics(jobs, machine_nodes, bsld_threshold, power["series_start_s"])
    return {
        **schedule,
        **{name: power[name] for name in ("energy_j", "energy_kwh", "power_mean_w",
                                          "power_peak_w")},
        "edp_j_s": power["energy_j"] * schedule["makespan_s"],
        "series_start_s": power["series_start_s"],
        "series_end_s": power["series_end_s"],
        "machine_nodes": int(machine_nodes),
        "bsld_threshold_s": float(bsld_threshold),
    }


def _schedule_metrics(jobs: dict[str, np.ndarray], machine_nodes: int,
                      bsld_threshold: float, run_start: float = -math.inf) -> dict[str, Any]:
    """The scheduling half of :func:`summary_metrics`, from ``jobs`` (as
    :func:`job_columns` gives them) to ``bounded_slowdown_mean``; the
    makespan begins at the first submit, or at ``run_start`` if later."""
    begin = max(float(jobs["submit"].min()), run_start)
    makespan = float(jobs["end"].max()) - begin
    node_seconds = float((jobs["nodes"] * jobs["runtime"]).sum())
    utilization = node_seconds / (machine_nodes * makespan) if makespan > 0 else math.nan
    wait = np.asarray(jobs["wait"], dtype=float)
    median, p90, p99 = np.percentile(wait, [50, 90, 99])
    slowdown = bounded_slowdown(wait, jobs["runtime"], bsld_threshold)
    return {
        "jobs": int(len(wait)),
        "makespan_s": makespan,
        "utilization": float(utilization),
        "wait_mean_s": float(wait.mean()),
        "wait_median_s": float(median),
        "wait_p90_s": float(p90),
        "wait_p99_s": float(p99),
        "wait_max_s": float(wait.max()),
        "bounded_slowdown_mean": float(slowdown.mean()),
    }
