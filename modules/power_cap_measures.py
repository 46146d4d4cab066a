"""How well a run kept a power cap, and the paper's per-month measures
(Wallace et al., sections VII-C and VIII): plain functions over a run's
power series and job records, shared by the data-driven model and any run
compared with it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .power_steps import binned_power, collapse_step_series, power_at
from .power_cap_schedule import PowerCapSchedule

__all__ = ["capping_success_rate", "monthly_metrics", "window_utilization", "MONTH_SECONDS"]

MONTH_SECONDS = 30 * 86_400.0


def capping_success_rate(times, watts, end: float, cap: PowerCapSchedule, interval: float,
                         details: bool = False):
    """Section VII-C: the share of scheduling intervals ``[start + k
    interval, ...)`` from the series' start up to ``end`` in which the system power (a step series,
    see ``modules/metrics.py``) never exceeds ``Pcap(t)``.  With
    ``details``, a dict that also gives the intervals, the time spent over
    the cap (``cap_exceeded_s``) and the worst excess (``max_excess_w``)."""
    t, w = collapse_step_series(times, watts, end)
    changes = [at for at, _ in cap.steps if t[0] < at < end]
    grid = np.union1d(t, changes)
    excess = power_at(t, w, grid) - cap.at_times(grid)
    excess = np.where(np.isfinite(excess), excess, -1.0)
    bins = binned_power(grid, excess, end, interval)
    tolerance = 1e-6  # watts: sums of floats in the Power place
    within = bins["max"].to_numpy() <= tolerance
    rate = float(within.mean())
    if not details:
        return rate
    over = np.diff(np.append(grid, end)) * (excess > tolerance)
    return {"capping_success_rate": rate, "scheduling_intervals": int(len(within)),
            "intervals_over_cap": int((~within).sum()), "cap_exceeded_s": float(over.sum()),
            "max_excess_w": float(max(excess.max(), 0.0))}


def monthly_metrics(jobs: pd.DataFrame, machine_nodes: int,
                    month: float = MONTH_SECONDS) -> pd.DataFrame:
    """Per month (``month`` seconds from time 0): jobs submitted, their
    average wait, and utilization (node-seconds run within the month over
    the machine's)."""
    submit, start, end = (jobs[c].to_numpy(dtype=float) for c in ("submit", "start", "end"))
    nodes = jobs["nodes"].to_numpy(dtype=float)
    months = int(end.max() // month) + 1 if len(jobs) else 0
    rows = []
    for m in range(months):
        low, high = m * month, (m + 1) * month
        mine = (submit >= low) & (submit < high)
        busy = np.clip(np.minimum(end, high) - np.maximum(start, low), 0, None)
        rows.append({"month": m, "jobs": int(mine.sum()),
                     "wait_mean_s": float((start - submit)[mine].mean()) if mine.any() else math.nan,
                     "utilization": float((busy * nodes).sum() / (machine_nodes * month))})
    return pd.DataFrame(rows, columns=["month", "jobs", "wait_mean_s", "utilization"])


def window_utilization(jobs: pd.DataFrame, machine_nodes: int, start: float,
                       end: float) -> float:
    """Node-seconds run within ``[start, end)`` over the machine's."""
    begin = np.maximum(jobs["start"].to_numpy(dtype=float), start)
    finish = np.minimum(jobs["end"].to_numpy(dtype=float), end)
    busy = np.clip(finish - begin, 0, None) * jobs["nodes"].to_numpy(dtype=float)
    return float(busy.sum() / (machine_nodes * (end - start)))
