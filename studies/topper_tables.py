"""The numbers of the TOPPER paper's figures (section 5), from a sweep's results.

One row per variant of a figure (checkpoint or replication, an overhead, a
redundancy degree, ...), policy and month: its metrics, the mean over the
seeds it ran with, and each metric over the figure's reference variant's
in the same policy and month, the paper's normalisation.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .experiment import Experiment

#: The paper's four metrics (section 5), normalised in every figure.
METRICS = {"system_efficiency": "system efficiency", "wait_mean_s": "average job wait time",
           "makespan_s": "makespan", "energy_j": "energy consumption"}


def study_table(reference: str, runs: Sequence[tuple[str, Experiment]],
                results: pd.DataFrame) -> pd.DataFrame:
    """One row per variant, policy and month: the metrics (the mean over
    seeds, ``seeds`` of them), and each metric over the reference
    variant's in the same policy and month (``<metric>_norm``; the wait
    ratio is NaN when the reference made no job wait); ``reference``: the
    label of the variant the figure is normalised to."""
    stored = results.set_index("key")
    columns = ["utilization", *METRICS, "failures", "lost_node_hours", "jobs", "cap_w"]
    rows = []
    for label, exp in runs:
        record = stored.loc[exp.key()]
        rows.append({"variant": label, "policy": exp.policy, "month": exp.month,
                     "seed": exp.seed, "key": exp.key(),
                     **{c: record[c] for c in columns if c in record}})
    runs_table = pd.DataFrame(rows)
    for column in columns:
        if column in runs_table:
            runs_table[column] = pd.to_numeric(runs_table[column], errors="coerce")
    runs_table["month"] = runs_table["month"].astype("Int64")
    by = ["variant", "policy", "month"]
    table = runs_table.groupby(by, sort=False, dropna=False).agg(
        seeds=("seed", "size"), keys=("key", ";".join),
        **{c: (c, "mean") for c in columns if c in runs_table}).reset_index()
    reference = table[table["variant"] == reference].set_index(["policy", "month"])
    at = pd.MultiIndex.from_frame(table[["policy", "month"]])
    for metric in METRICS:
        base = reference[metric].reindex(at).to_numpy(dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            table[f"{metric}_norm"] = np.where(base != 0, table[metric] / base, np.nan)
    return table


def wide(table: pd.DataFrame, column: str) -> pd.DataFrame:
    """``column`` with one row per (policy, month) and one column per variant."""
    return table.pivot_table(index=["policy", "month"], columns="variant", values=column,
                             aggfunc="first", dropna=False)



def summary_lines(table: pd.DataFrame) -> list[str]:
    """Mean normalised metrics per policy and variant, one number per month."""
    lines = []
    for (policy, variant), rows in table.groupby(["policy", "variant"], sort=False):
        parts = [f"{metric.split('_')[0]} " + " ".join(f"{v:.3g}" for v in rows[f"{metric}_norm"])
                 for metric in METRICS]
        failures = " ".join(f"{v:.3g}" for v in rows["failures"])
        lines.append(f"  {policy.upper():4} {variant:16} " + " | ".join(parts)
                     + f" | failures {failures}")
    return lines
