"""Scheduling and energy metrics over flat simulation records.

Plain functions over plain data, so they apply equally to a simulated run, a
real job log and a measured power trace; nothing here knows about places,
tokens or nets.

Two kinds of input:

*Job records*: a ``pandas.DataFrame`` with one row per finished job and the
columns ``job_id, submit, start, end, nodes`` (seconds, nodes) and usually
``power`` (watts).  ``runtime = end - start`` and ``wait = start - submit``.

*A power series*: the system power as a piecewise-constant step function,
given as two arrays ``times`` (non-decreasing, seconds) and ``watts``, plus the
time ``end`` at which the series stops.  ``watts[i]`` holds on
``[times[i], times[i+1])`` and the last value holds on ``[times[-1], end)``.
Several entries may share a time (several changes at one instant): the last
one wins, the earlier ones last zero seconds and so count for nothing.
Entries after ``end`` are ignored.  This is exactly what a monitor that logs
the place ``Power`` at each firing produces.

Energy is the integral of that step function (:func:`energy_exact`).  The
PuPPET paper (section 4, Table 2) instead sampled the place ``Power`` every
simulation time step and counted the sample for the whole step
(:func:`energy_fixed_step`); comparing the two per day
(:func:`daily_energy_errors`, :func:`max_daily_energy_error`) reproduces the
paper's accuracy study.  :func:`summary_metrics` gathers the
power-performance metrics of the paper's case studies (section 5).

Everything is vectorised with numpy: a series of millions of changes
integrates in milliseconds.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

JOULES_PER_KWH = 3.6e6
SECONDS_PER_DAY = 86400.0

#: Columns every job record must have, in the order ``jobs.csv`` starts with.
JOB_COLUMNS = ("job_id", "submit", "start", "end", "nodes")

#: Columns of ``unfinished.csv``: the jobs a stopped run had not finished,
#: their ``state`` (``running``, ``queued`` or ``unsubmitted``) and their
#: ``start`` (empty unless running).
UNFINISHED_COLUMNS = ("job_id", "state", "submit", "start", "nodes")


# --------------------------------------------------------------------------
# The step series


def _step_series(times, watts, end) -> tuple[np.ndarray, np.ndarray, float]:
    """Validate a power series; return float arrays with times clipped to ``end``.

    Fails loudly on what would otherwise integrate to a silently wrong number:
    mismatched lengths, an empty series, decreasing or non-finite times, or an
    ``end`` before the first time.
    """
    t = np.asarray(times, dtype=float)
    w = np.asarray(watts, dtype=float)
    if t.ndim != 1 or w.ndim != 1:
        raise ValueError("times and watts must be one-dimensional")
    if t.shape != w.shape:
        raise ValueError(f"times and watts differ in length: {t.size} != {w.size}")
    if t.size == 0:
        raise ValueError("the power series is empty")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(w))):
        raise ValueError("times and watts must be finite")
    if t.size > 1 and np.any(t[1:] < t[:-1]):
        i = int(np.argmax(t[1:] < t[:-1]))
        raise ValueError(f"times must be non-decreasing: times[{i + 1}]={t[i + 1]} < times[{i}]={t[i]}")
    end = float(end)
    if not math.isfinite(end) or end < t[0]:
        raise ValueError(f"end={end} must be finite and not before the first time {t[0]}")
    return np.minimum(t, end), w, end


def _durations(t: np.ndarray, end: float) -> np.ndarray:
    """How long each entry holds (zero for entries overridden at the same instant)."""
    return np.diff(t, append=end)


def power_at(times, watts, at):
    """Value of the series at time(s) ``at``, after all changes at that instant.

    The series is right-continuous: at a time where it changes, the new value
    (the last entry with that time) is returned.  ``at`` before the first time
    is an error; ``at`` past the last change returns the last value.

    >>> power_at([0, 10, 10], [1.0, 5.0, 7.0], [0, 9.5, 10, 99])
    array([1., 1., 7., 7.])
    """
    t = np.asarray(times, dtype=float)
    w = np.asarray(watts, dtype=float)
    x = np.asarray(at, dtype=float)
    index = np.searchsorted(t, x, side="right") - 1
    if np.any(index < 0):
        raise ValueError(f"time before the start of the series ({t[0]})")
    return w[index]


def collapse_step_series(times, watts, end=None) -> tuple[np.ndarray, np.ndarray]:
    """The shortest series describing the same step function.

    Keeps the last entry of each instant, drops entries at or after ``end``
    (they hold for zero seconds) and merges consecutive equal values.  Useful
    before exporting or plotting a long monitor log; integrals are unchanged.

    >>> collapse_step_series([0, 5, 5, 8, 9], [1.0, 2.0, 1.0, 1.0, 3.0])
    (array([0., 9.]), array([1., 3.]))
    """
    t = np.asarray(times, dtype=float)
    w = np.asarray(watts, dtype=float)
    if end is not None:
        t, w, end = _step_series(t, w, end)
    if t.size == 0:
        return t, w
    last_of_instant = np.append(t[1:] != t[:-1], True)
    t, w = t[last_of_instant], w[last_of_instant]
    if end is not None and t.size > 1:
        before_end = t < end
        before_end[0] = True  # the value at the start, even for a zero-length series
        t, w = t[before_end], w[before_end]
    changed = np.insert(w[1:] != w[:-1], 0, True)
    return t[changed], w[changed]


def _cumulative_energy(t: np.ndarray, w: np.ndarray, end: float, at) -> np.ndarray:
    """Energy in joules from the first time to each time in ``at`` (clipped to the span)."""
    cumulative = np.concatenate(([0.0], np.cumsum(w * _durations(t, end))))
    x = np.clip(np.asarray(at, dtype=float), t[0], end)
    index = np.searchsorted(t, x, side="right") - 1
    return cumulative[index] + w[index] * (x - t[index])


# --------------------------------------------------------------------------
# Energy


def energy_exact(times, watts, end) -> float:
    """Energy in joules: the exact integral of the step series over ``[times[0], end)``.

    This is what an event-driven simulation knows without approximation:
    power is constant between events, so energy is the sum of
    ``watts[i] * (times[i+1] - times[i])``.

    >>> energy_exact([0, 10, 30], [100.0, 300.0, 200.0], end=60)
    13000.0
    """
    t, w, end = _step_series(times, watts, end)
    return float(np.dot(w, _durations(t, end)))


def time_above(times, watts, end, threshold: float) -> float:
    """Seconds during which power exceeds ``threshold`` (a cap): what an
    operator checks first, and non-zero only when a job alone needs more.

    >>> time_above([0, 10, 30], [100.0, 300.0, 200.0], end=60, threshold=250)
    20.0
    """
    t, w, end = _step_series(times, watts, end)
    return float(_durations(t, end)[w > threshold].sum())


def sample_fixed_step(times, watts, end, step) -> tuple[np.ndarray, np.ndarray]:
    """The series as a fixed-step simulation sees it: sampled at ``t_k = t0 + k*step < end``.

    Returns the sample times and the value at each (after all changes at
    that instant); empty arrays when ``end == t0``.  Each sample stands for
    the step ``[t_k, t_k + step)``: the PuPPET paper's estimate.
    """
    t, w, end = _step_series(times, watts, end)
    step = float(step)
    if not (math.isfinite(step) and step > 0):
        raise ValueError(f"step must be positive, got {step}")
    count = int(math.ceil((end - t[0]) / step))
    sample_times = t[0] + np.arange(count, dtype=float) * step
    sample_times = sample_times[sample_times < end]
    return sample_times, power_at(t, w, sample_times)


def energy_fixed_step(times, watts, end, step) -> float:
    """Energy in joules as the PuPPET paper estimates it with a fixed time step.

    Section 4: "The energy consumption within the time step [t, t+1] is
    approximated as the number of tokens in the place *Power* at time t."
    So the estimate is the sum over ``t_k = t0 + k*step < end`` of
    ``value(t_k) * step``, where ``value(t_k)`` is the power after all
    changes at ``t_k``.  A spike shorter than the step is missed when no
    sample falls inside it, and counted for a whole step when one does.

    Every sample counts a whole step, the last one too, even where it
    reaches past ``end`` (as a fixed-step simulation that stops at the first
    step boundary after ``end`` would, and as ``cpn.monitors.PlaceIntegral``
    with ``step`` does).  When ``step`` divides every change time and
    ``end`` (relative to ``t0``), the estimate equals the exact energy.

    >>> energy_fixed_step([0, 25, 30], [100.0, 1000.0, 100.0], end=60, step=10)
    6000.0
    """
    _, samples = sample_fixed_step(times, watts, end, step)
    return float(samples.sum() * float(step))


def daily_energy(times, watts, end, day: float = SECONDS_PER_DAY, step=None) -> pd.DataFrame:
    """Energy of each day, as a frame with columns ``day, start, kwh``.

    Days are counted from the first time of the series (day 0 starts at
    ``times[0]``), each ``day`` seconds long; the last day may be partial.
    ``start`` is the day's start in seconds.  An interval that crosses a day
    boundary is split between the two days.  Exact by default; with ``step``
    the paper's fixed-step estimate (:func:`energy_fixed_step`) of each day,
    as plotted in Fig. 9 (daily energy, model versus measurement).

    With ``step``, each sample holds for its whole step; a step that
    crosses a day boundary is split between the days, and the part of the
    last step past ``end`` counts in the last day, so the days add up to
    :func:`energy_fixed_step`.  When ``step`` divides ``day`` (all of Table
    2's steps divide a day) each step lies within the day of its sample, as
    in the paper.
    """
    t, w, end = _step_series(times, watts, end)
    day = float(day)
    if not (math.isfinite(day) and day > 0):
        raise ValueError(f"day must be positive, got {day}")
    days = int(math.ceil((end - t[0]) / day))
    series_end = end
    if step is not None and days:
        t0 = t[0]
        t, w = sample_fixed_step(t, w, end, step)
        series_end = t0 + t.size * float(step)
    edges = t[0] + np.arange(days + 1, dtype=float) * day
    if days:
        edges[-1] = series_end
    joules = np.diff(_cumulative_energy(t, w, series_end, edges))
    return pd.DataFrame({"day": np.arange(days), "start": edges[:-1], "kwh": joules / JOULES_PER_KWH})


def daily_energy_errors(times, watts, end, step, day: float = SECONDS_PER_DAY) -> pd.DataFrame:
    """Per-day exact and fixed-step energy and the relative error of the estimate.

    Columns ``day, start, exact_kwh, estimate_kwh, relative_error`` where
    ``relative_error = |estimate - exact| / exact``.  A day with no energy has
    error 0 if the estimate is also 0, else infinity.  This is the comparison
    behind Fig. 9 and Table 2 of section 4.
    """
    exact = daily_energy(times, watts, end, day=day)
    estimate = daily_energy(times, watts, end, day=day, step=step)
    difference = np.abs(estimate["kwh"].to_numpy() - exact["kwh"].to_numpy())
    with np.errstate(divide="ignore", invalid="ignore"):
        error = np.where(difference == 0, 0.0, difference / exact["kwh"].to_numpy())
    return pd.DataFrame(
        {
            "day": exact["day"],
            "start": exact["start"],
            "exact_kwh": exact["kwh"],
            "estimate_kwh": estimate["kwh"],
            "relative_error": error,
        }
    )


def max_daily_energy_error(times, watts, end, step, day: float = SECONDS_PER_DAY) -> float:
    """Table 2's "maximum energy error": the worst day's relative error of the fixed-step estimate.

    Returns a fraction (0.0384 for the paper's 3.84 % at a 1 min step).  A
    series shorter than a day is one (partial) day.
    """
    errors = daily_energy_errors(times, watts, end, step, day=day)["relative_error"]
    return float(errors.max()) if len(errors) else 0.0


def binned_power(times, watts, end, width: float) -> pd.DataFrame:
    """Mean, minimum and maximum power in consecutive bins of ``width`` seconds.

    Columns ``start, mean, min, max`` (seconds, watts).  The mean is
    time-weighted (bin energy / bin length); minimum and maximum are over
    the values that hold for a positive time inside the bin, so a peak is
    never smoothed away.  Bins start at the first time; the last may be
    partial.  Used to draw long series and to check a power cap.
    """
    t, w, end = _step_series(times, watts, end)
    width = float(width)
    if not (math.isfinite(width) and width > 0):
        raise ValueError(f"width must be positive, got {width}")
    if end == t[0]:
        value = power_at(t, w, t[0])
        return pd.DataFrame({"start": [t[0]], "mean": [value], "min": [value], "max": [value]})
    t, w = collapse_step_series(t, w, end)
    bins = int(math.ceil((end - t[0]) / width))
    edges = t[0] + np.arange(bins + 1, dtype=float) * width
    edges[-1] = end
    mean = np.diff(_cumulative_energy(t, w, end, edges)) / np.diff(edges)
    # Segment in force at each bin's start, and the last segment starting before its end.
    first = np.searchsorted(t, edges[:-1], side="right") - 1
    last = np.searchsorted(t, edges[1:], side="left") - 1
    peak = np.maximum(np.maximum.reduceat(w, first), w[last])
    low = np.minimum(np.minimum.reduceat(w, first), w[last])
    return pd.DataFrame({"start": edges[:-1], "mean": mean, "min": low, "max": peak})


# --------------------------------------------------------------------------
# Jobs


def job_frame(jobs_df: pd.DataFrame) -> pd.DataFrame:
    """Job records with ``runtime`` and ``wait`` added, the required columns first.

    Fails loudly on a missing column, a missing value, or a job that starts
    before its submission or ends before its start: metrics computed over
    such records would be wrong without saying so.  Unfinished jobs must be
    filtered out by the caller.
    """
    missing = [c for c in JOB_COLUMNS if c not in jobs_df.columns]
    if missing:
        raise ValueError(f"job records lack columns {missing}")
    required = jobs_df[list(JOB_COLUMNS)]
    if required.isna().any(axis=None):
        bad = jobs_df.loc[required.isna().any(axis=1), "job_id"].tolist()
        raise ValueError(f"job records with missing values: job_id {bad[:10]}")
    frame = jobs_df.copy()
    frame["runtime"] = frame["end"] - frame["start"]
    frame["wait"] = frame["start"] - frame["submit"]
    bad = frame.loc[(frame["runtime"] < 0) | (frame["wait"] < 0), "job_id"].tolist()
    if bad:
        raise ValueError(f"jobs that start before submission or end before start: job_id {bad[:10]}")
    first = list(JOB_COLUMNS)
    return frame[first + [c for c in frame.columns if c not in first]]


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
      schedule when all the jobs have finished processing" (section 5, EDP).
    - ``utilization``: "the ratio of node hours used by user jobs to the total
      elapsed system node hours" (section 5): ``sum(nodes * runtime) /
      (machine_nodes * makespan_s)``.
    - ``wait_mean_s`` ("average job wait time", section 5: from submission
      to allocation), ``wait_median_s``, ``wait_p90_s``, ``wait_p99_s``,
      ``wait_max_s`` (percentiles linearly interpolated, numpy's default).
    - ``bounded_slowdown_mean``: mean of :func:`bounded_slowdown` with
      ``bsld_threshold`` seconds.
    - ``energy_j``, ``energy_kwh``: exact integral of the power series
      (:func:`energy_exact`; section 4 validates daily energy).
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
    jobs = job_frame(jobs_df)
    if len(jobs) == 0:
        raise ValueError("no job records: scheduling metrics are undefined")
    if machine_nodes <= 0:
        raise ValueError(f"machine_nodes must be positive, got {machine_nodes}")
    t, w, end = _step_series(times, watts, end)

    first_submit = float(jobs["submit"].min())
    makespan = float(jobs["end"].max()) - first_submit
    node_seconds = float((jobs["nodes"] * jobs["runtime"]).sum())
    utilization = node_seconds / (machine_nodes * makespan) if makespan > 0 else math.nan
    wait = jobs["wait"].to_numpy(dtype=float)
    median, p90, p99 = np.percentile(wait, [50, 90, 99])
    slowdown = bounded_slowdown(wait, jobs["runtime"].to_numpy(dtype=float), bsld_threshold)

    durations = _durations(t, end)
    energy = float(np.dot(w, durations))
    span = end - float(t[0])
    held = durations > 0
    peak = float(w[held].max()) if held.any() else float(power_at(t, w, t[0]))
    return {
        "jobs": int(len(jobs)),
        "makespan_s": makespan,
        "utilization": float(utilization),
        "wait_mean_s": float(wait.mean()),
        "wait_median_s": float(median),
        "wait_p90_s": float(p90),
        "wait_p99_s": float(p99),
        "wait_max_s": float(wait.max()),
        "bounded_slowdown_mean": float(slowdown.mean()),
        "energy_j": energy,
        "energy_kwh": energy / JOULES_PER_KWH,
        "power_mean_w": energy / span if span > 0 else peak,
        "power_peak_w": peak,
        "edp_j_s": energy * makespan,
        "series_start_s": float(t[0]),
        "series_end_s": end,
        "machine_nodes": int(machine_nodes),
        "bsld_threshold_s": float(bsld_threshold),
    }


# --------------------------------------------------------------------------
# Export


def power_series_frame(times, watts, end=None, collapse: bool = True) -> pd.DataFrame:
    """The power series as a frame with columns ``time, watts`` for CSV export.

    By default the series is collapsed (:func:`collapse_step_series`): one
    row per instant, consecutive equal values merged, so the file states the
    step function unambiguously and stays small.  Pass ``collapse=False`` to
    keep every logged entry.
    """
    if collapse:
        t, w = collapse_step_series(times, watts, end)
    else:
        t, w = np.asarray(times, dtype=float), np.asarray(watts, dtype=float)
    return pd.DataFrame({"time": t, "watts": w})


def json_safe(value):
    """A JSON-safe plain Python value (numpy scalars unwrapped, NaN/inf as null)."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_results(out_dir, jobs_df, metrics: dict, times, watts, end=None,
                  unfinished: pd.DataFrame | None = None) -> dict[str, Path]:
    """Write a run's results to ``out_dir`` (created if needed); return the paths.

    - ``jobs.csv``: the job records with ``runtime`` and ``wait`` added,
      starting with the columns ``job_id, submit, start, end, nodes``.
    - ``unfinished.csv``: the jobs a stopped run had not finished
      (:data:`UNFINISHED_COLUMNS`); always written, with the header alone
      when every job finished, so no file from an earlier run is left
      behind to be mistaken for this one's.
    - ``metrics.json``: ``metrics`` with plain numbers (NaN and infinity as
      ``null``), keys sorted.
    - ``power.csv``: :func:`power_series_frame` (``time, watts``), cut at
      ``end`` (default: ``metrics["series_end_s"]`` if present), which is
      where the last row's value stops holding.
    - ``jobs.parquet``: the same job records, when pyarrow is installed.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = job_frame(jobs_df)
    paths = {"jobs.csv": out / "jobs.csv", "unfinished.csv": out / "unfinished.csv",
             "metrics.json": out / "metrics.json", "power.csv": out / "power.csv"}
    jobs.to_csv(paths["jobs.csv"], index=False)
    if unfinished is None:
        unfinished = pd.DataFrame(columns=list(UNFINISHED_COLUMNS))
    unfinished[list(UNFINISHED_COLUMNS)].to_csv(paths["unfinished.csv"], index=False)
    with open(paths["metrics.json"], "w") as f:
        json.dump(json_safe(metrics), f, indent=2, sort_keys=True, allow_nan=False)
        f.write("\n")
    if end is None:
        end = metrics.get("series_end_s")
    power_series_frame(times, watts, end).to_csv(paths["power.csv"], index=False)
    if importlib.util.find_spec("pyarrow") is not None:
        paths["jobs.parquet"] = out / "jobs.parquet"
        jobs.to_parquet(paths["jobs.parquet"], index=False)
    return paths
