"""The numbers of the PuPPET paper's figures (section 5), from a sweep's results.

One row per run of a figure, with its metrics normalised to the uncapped
run with the same policy, month and idle power (the paper's
normalisation), the uncapped run's own metrics beside them, and the
parameter the bars vary as ``value``; Fig. 16's daily power curves; and
the few printed lines that summarise a figure.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .experiment import Experiment

METRIC_NAMES = {"utilization": "system utilization", "wait_mean_s": "average job wait time",
                "edp_j_s": "energy delay product", "makespan_s": "makespan"}
CAPPING_NAMES = {"none": "no capping", "block": "BLOCK", "wait": "WAIT", "dvfs": "DVFS"}
HOURS = [f"power_hour_{hour:02d}_w" for hour in range(24)]


def study_table(design, experiments: Sequence[Experiment], results: pd.DataFrame
                ) -> pd.DataFrame:
    """The study's runs, one row each, with the uncapped twin's metrics
    (``base_<metric>``) beside the normalised ones; ``value`` is the
    parameter the bars vary."""
    keys = [exp.key() for exp in experiments]
    base = results.set_index("key")
    table = base.reindex(keys)
    for metric in ("utilization", "wait_mean_s", "edp_j_s", "makespan_s", "energy_j"):
        table[f"base_{metric}"] = table["baseline_key"].map(base[metric])
    table = table.reset_index()
    table["value"] = table[design.parameter]
    table["wait_increase_h"] = (table["wait_mean_s"] - table["base_wait_mean_s"]) / 3600
    table["month"] = table["month"].astype("Int64")
    columns = ["key", "policy", "month", "capping", "value", design.parameter, "cap_fraction",
               "cap_w", "uncapped_peak_w", "idle_fraction", "alpha", "beta",
               "utilization", "wait_mean_s", "edp_j_s", "makespan_s", "energy_j",
               "power_peak_w", "cap_exceeded_s",
               *[f"{m}_norm" for m in ("utilization", "wait_mean_s", "edp_j_s",
                                       "makespan_s", "energy_j")],
               "wait_increase_h", "base_utilization", "base_wait_mean_s", "base_edp_j_s",
               "jobs",
               "baseline_key", *HOURS]
    return table[list(dict.fromkeys(c for c in columns if c in table))]


def daily_profiles(table: pd.DataFrame) -> pd.DataFrame:
    """Fig. 16's curves: for each capping method, the mean power in each
    hour of the day averaged over the runs (months), and the mean cap."""
    profiles = {method: rows[HOURS].mean().to_numpy()
                for method, rows in table.groupby("capping", sort=False)}
    frame = pd.DataFrame(profiles, index=pd.RangeIndex(24, name="hour"))
    caps = table["cap_w"].dropna()
    frame["cap_w"] = caps.mean() if len(caps) else np.nan
    return frame


def summary_lines(design, table: pd.DataFrame) -> list[str]:
    """The table in a few lines: mean normalised metrics per policy and bar,
    one number per month (``design``: the figure's ``CappingDesign``)."""
    lines = []
    metrics = design.metrics or ("utilization", "wait_mean_s", "edp_j_s")
    for (policy, capping, value), rows in table.groupby(["policy", "capping", "value"],
                                                        sort=False):
        parts = []
        for metric in metrics:
            column = f"{metric}_norm"
            if metric == "wait_mean_s" and not np.isfinite(rows[column].astype(float)).all():
                per_month = " ".join(f"{v:+.3g}h" for v in rows["wait_increase_h"])
            else:
                per_month = " ".join(f"{v:.3g}" for v in rows[column])
            parts.append(f"{metric.split('_')[0]} {per_month}")
        label = design.value_label(value)
        if capping == design.compare and design.parameter != "capping":
            label = f"{CAPPING_NAMES[capping]} {label}"
        lines.append(f"  {policy.upper():4} {label:14} " + " | ".join(parts))
    return lines
